"""Calibration of every verdict the transfer matrix prints, on simulated data with a known truth.

Run: .venv/bin/python bench/stats_calibration.py [--reps 2000] [--bootstrap 1000] [--seed 0]
[--only coverage,strata,negative,critical,fdr,retention,mde] [--floor-weight 3]; about 10
minutes on 2 shared cores with the defaults. ``--floor-weight`` shows what another floor on the
standard error would do to tables 1-3 (how the release's weight of 3 was chosen). The Monte
Carlo standard error of a coverage near 0.95 is sqrt(0.95 x 0.05 / reps): 0.005 at 2,000
replicates; of a rate near 0.05, the same.

The population (sim-like: the demo's per-task baselines range from 0 to 1 with most tasks at
1; its no-artifacts arm agrees with the baseline on 92% of trial pairs where independent arms
would on 66%): a task's baseline success rate is Beta with mean b and concentration 4; its gain
is mu + N(0, 0.1^2), the artifact rate clipped to [0, 1]; k trials per task and arm. Arms are
``independent`` (agreement 0: real providers) or ``correlated`` (agreement 0.8: each trial pair
shares its draw with probability 0.8, like the sim's common random numbers). The truth is the
population mean gain E[clip(p + g) - p], computed over 4,000,000 tasks (clipping makes it
differ from mu near a baseline of 1).

Tables (docs/statistics.md quotes them):
1. coverage of the 95% gain interval over one family, n in {6, 12, 24, 48, 100} tasks, k in
   {1, 3}, baselines 0.5-0.95, both couplings, mu in {0, -0.15}, for the release's method
   (``floored t``: ``reports._stats_strata``, checked equal to the release code on every
   configuration) and the candidates it was chosen over: the plain t-interval, the percentile,
   studentized and BCa bootstraps (B draws shared by the replicates of a row);
2. family sets as strata: 2-3 fixed families of 24 tasks, one of them losing every success (a
   typed skill stopping safely on a changed interface): coverage and width of the stratified
   floored t against the t over family means the release used before;
3. negative transfer: the size of the one-sided test at alpha 0.05 under the exact null (the
   artifact arm as the baseline: an A/A comparison), and its power at mu = -0.05, -0.10, -0.15;
4. CRITICAL: McNemar's exact test on trial pairs under pure noise (both arms the same critical
   rate per task, correlated draws): its size, and the flag's rate after Benjamini-Hochberg
   across 90 null cells (the demo's artifact cells), against the old rule "more critical trials
   than the baseline"; power and false discovery proportion with 10 cells of +0.10;
5. Benjamini-Hochberg across whole matrices built by the release code (``cells_metrics``,
   ``apply_fdr``): 200 cells of 24 tasks x k = 3, 20 with mu = -0.15;
6. retention (release code): source gain S, target gain r S over the same tasks (joint) or other
   tasks (independent), 12-48 tasks x k = 1 or 3: how often it is reported, its coverage where
   reported (adjusted for the gate, and plain Fieller on the same cells), the median ratio and
   interval width;
7. the minimum detectable gain (80% power) by size, from the release's ``mde``.
"""

from __future__ import annotations

import argparse
import math
import re
import time
from collections.abc import Callable
from statistics import NormalDist

import numpy as np
from _common import bench_run

from reports._cell import apply_fdr, cell_metrics, cells_metrics, pair_arms
from reports._stats import binomial_sign_test, screened_benjamini_hochberg
from reports._stats_arms import ArmOutcomes
from reports._stats_strata import FLOOR_WEIGHT, Stratum, stratified
from reports._stats_student_t import student_t_cdf, student_t_quantile

KAPPA = 4.0
TASK_SD = 0.1
AGREEMENT = {"independent": 0.0, "correlated": 0.8}
SIZES = (6, 12, 24, 48, 100)
BASELINES = (0.5, 0.7, 0.9, 0.95)
_NORMAL = NormalDist()


def _rates(
    rng: np.random.Generator, shape: tuple[int, ...], b: float, mu: float, sd: float = TASK_SD
) -> tuple[np.ndarray, np.ndarray]:
    """Per-task baseline and artifact success rates."""
    p = rng.beta(b * KAPPA, (1 - b) * KAPPA, shape)
    q = np.clip(p + mu + (rng.normal(0.0, sd, shape) if sd else 0.0), 0.0, 1.0)
    return p, q


def _truth(b: float, mu: float, sd: float = TASK_SD) -> float:
    p, q = _rates(np.random.default_rng(9), (4_000_000,), b, mu, sd)
    return float(np.mean(q - p))


def _trials(
    rng: np.random.Generator, p: np.ndarray, q: np.ndarray, k: int, agreement: float
) -> tuple[np.ndarray, np.ndarray]:
    """Success counts (artifact arm, baseline) per task: trial pairs share their uniform draw
    with probability ``agreement``."""
    u = rng.random((*p.shape, k))
    v = np.where(rng.random(u.shape) < agreement, u, rng.random(u.shape))
    return (v < q[..., None]).sum(-1), (u < p[..., None]).sum(-1)


FLOOR = [float(FLOOR_WEIGHT)]
"""The floor weight the vectorised tables use: the release's, unless --floor-weight says
otherwise (to see what another weight would do; the release-code checks are then skipped)."""


def _floored_t(d: np.ndarray, k: int, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The release's interval, vectorised over replicates (rows of task gains)."""
    n = d.shape[1]
    m = d.mean(1)
    var = np.maximum(d.var(1, ddof=1) / n, FLOOR[0] / (n * k + 2) ** 2)
    half = student_t_quantile(confidence, n - 1) * np.sqrt(var)
    return np.maximum(m - half, -1.0), np.minimum(m + half, 1.0)


def _release_interval(d_row: np.ndarray, k: int) -> tuple[float, float]:
    """The same interval by the release code itself, from integer task values."""
    values = tuple(round(float(x) * k) for x in d_row)
    est = stratified(
        [Stratum("f", tuple(map(str, range(len(values)))), values, k * len(values))], k
    )
    return est.interval(0.95, (-1.0, 1.0))


def _plain_t(d: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    n = d.shape[1]
    half = student_t_quantile(confidence, n - 1) * d.std(1, ddof=1) / math.sqrt(n)
    return d.mean(1) - half, d.mean(1) + half


def _bootstraps(d: np.ndarray, counts: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Percentile, studentized and BCa intervals of each row's mean, from the B x n resample
    ``counts`` (shared by every row)."""
    n = d.shape[1]
    means = counts @ d.T / n  # B x R
    squares = counts @ (d * d).T / n
    m, s = d.mean(1), d.std(1, ddof=1) / math.sqrt(n)
    out = {"percentile": tuple(np.quantile(means, [0.025, 0.975], axis=0))}
    boot_se = np.sqrt(np.maximum(squares - means**2, 0.0) * n / (n - 1) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (means - m) / boot_se
    t = np.where(np.isfinite(t), t, np.nan)
    t_lo, t_hi = np.nanquantile(t, [0.025, 0.975], axis=0)
    stud = (m - np.nan_to_num(t_hi) * s, m - np.nan_to_num(t_lo) * s)
    out["studentized"] = (np.where(s > 0, stud[0], m), np.where(s > 0, stud[1], m))
    below = (means < m).mean(0) + 0.5 * (means == m).mean(0)
    z0 = np.array([_NORMAL.inv_cdf(min(max(x, 1e-6), 1 - 1e-6)) for x in below])
    jack = (d.sum(1, keepdims=True) - d) / (n - 1)
    dev = jack.mean(1, keepdims=True) - jack
    with np.errstate(divide="ignore", invalid="ignore"):
        a = (dev**3).sum(1) / (6 * ((dev**2).sum(1)) ** 1.5)
    a = np.nan_to_num(a)
    ordered = np.sort(means, axis=0)
    ends = []
    for z in (_NORMAL.inv_cdf(0.025), _NORMAL.inv_cdf(0.975)):
        level = np.array([_NORMAL.cdf(x) for x in z0 + (z0 + z) / (1 - a * (z0 + z))])
        index = np.clip((level * (len(means) - 1)).round().astype(int), 0, len(means) - 1)
        ends.append(np.take_along_axis(ordered, index[None, :], 0)[0])
    out["BCa"] = (ends[0], ends[1])
    return out


def _covers(lo: np.ndarray, hi: np.ndarray, truth: float) -> float:
    return float(np.mean((lo <= truth + 1e-12) & (truth - 1e-12 <= hi)))


METHODS = ("floored t", "plain t", "percentile", "studentized", "BCa")


def coverage(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print(
        "1. coverage of the 95% gain interval, one family (* = the release's method; "
        f"{args.reps} replicates, B = {args.bootstrap})"
    )
    print("   methods per size: " + " / ".join(METHODS))
    worst = {m: [1.0, 0.0] for m in METHODS}
    rows = 0
    for mu in (0.0, -0.15):
        for b in BASELINES:
            truth = _truth(b, mu)
            for k in (1, 3):
                for coupling, agreement in AGREEMENT.items():
                    cells = []
                    for n in SIZES:
                        p, q = _rates(rng, (args.reps, n), b, mu)
                        w, wo = _trials(rng, p, q, k, agreement)
                        d = (w - wo) / k
                        counts = rng.multinomial(n, np.full(n, 1 / n), size=args.bootstrap)
                        ends = {"floored t": _floored_t(d, k), "plain t": _plain_t(d)}
                        ends.update(_bootstraps(d, counts.astype(float)))
                        checked = 20 if FLOOR[0] == FLOOR_WEIGHT else 0
                        for r in range(min(checked, args.reps)):  # the release code agrees
                            lo, hi = _release_interval(d[r], k)
                            assert abs(lo - ends["floored t"][0][r]) < 1e-9
                            assert abs(hi - ends["floored t"][1][r]) < 1e-9
                        cover = [_covers(*ends[m], truth) for m in METHODS]
                        for m, c in zip(METHODS, cover, strict=True):
                            worst[m] = [min(worst[m][0], c), max(worst[m][1], c)]
                        cells.append(f"{cover[0]:.3f}*" + "".join(f"/{c:.3f}" for c in cover[1:]))
                    rows += 1
                    print(
                        f"   mu {mu:+.2f} b {b:.2f} k {k} {coupling:<11} truth {truth:+.3f}: "
                        + "  ".join(f"n={n} {c}" for n, c in zip(SIZES, cells, strict=True)),
                        flush=True,
                    )
    print("   range over all rows (min - max):")
    for m in METHODS:
        print(f"     {m:<12} {worst[m][0]:.3f} - {worst[m][1]:.3f}")


def _strata_case(
    rng: np.random.Generator, gains: tuple[float, ...], bases: tuple[float, ...], reps: int
) -> None:
    """Fixed families (strata) of 24 tasks, k = 3, correlated arms; the truth is the mean of
    the families' own population gains."""
    k, n, g = 3, 24, len(gains)
    truths = [_truth(b, mu, 0.05) if mu > -1 else -b for b, mu in zip(bases, gains, strict=True)]
    truth = float(np.mean(truths))
    ends = []
    d_all = []
    for b, mu in zip(bases, gains, strict=True):
        p, q = _rates(rng, (reps, n), b, max(mu, -1.0), 0.05)
        if mu <= -1:  # every trial stops: no success with the artifacts
            q = np.zeros_like(p)
        w, wo = _trials(rng, p, q, k, 0.8)
        d_all.append((w - wo) / k)
    d = np.stack(d_all, 1)  # reps x g x n
    means = d.mean(2)
    var = np.maximum(d.var(2, ddof=1) / n, FLOOR[0] / (n * k + 2) ** 2) / g**2
    total = var.sum(1)
    df = np.floor(total**2 / (var**2 / (n - 1)).sum(1) + 1e-9).astype(int)
    half = np.array([student_t_quantile(0.95, int(x)) for x in df]) * np.sqrt(total)
    gain = means.mean(1)
    ends.append((np.maximum(gain - half, -1), np.minimum(gain + half, 1)))
    old_half = student_t_quantile(0.95, g - 1) * means.std(1, ddof=1) / math.sqrt(g)
    ends.append((np.maximum(gain - old_half, -1), np.minimum(gain + old_half, 1)))
    # the release code on the first replicates
    for r in range(min(10 if FLOOR[0] == FLOOR_WEIGHT else 0, reps)):
        strata = [
            Stratum(
                f"f{j}",
                tuple(f"t{j}-{i}" for i in range(n)),
                tuple(round(float(x) * k) for x in d[r, j]),
                n * k,
            )
            for j in range(g)
        ]
        lo, hi = stratified(strata, k).interval(0.95, (-1.0, 1.0))
        assert abs(lo - ends[0][0][r]) < 1e-9 and abs(hi - ends[0][1][r]) < 1e-9
    below = float(np.mean(ends[0][1] < 0))
    print(
        f"   {g} families, gains {', '.join(f'{x:+.2f}' if x > -1 else 'stop' for x in gains)}"
        f" (truth {truth:+.3f}): stratified floored t covers {_covers(*ends[0], truth):.3f}, "
        f"width {np.mean(ends[0][1] - ends[0][0]):.3f}, wholly below 0 in {below:.3f}; "
        f"t over family means covers {_covers(*ends[1], truth):.3f}, width "
        f"{np.mean(ends[1][1] - ends[1][0]):.3f}"
    )


def strata(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print("2. family sets as strata (24 tasks per family, k = 3, correlated arms)")
    _strata_case(rng, (-2.0, 0.05, 0.10), (0.6, 0.8, 0.7), args.reps)
    _strata_case(rng, (-2.0, 0.0), (0.6, 0.8), args.reps)
    _strata_case(rng, (0.10, 0.0, -0.05), (0.5, 0.7, 0.9), args.reps)


def _p_negative(d: np.ndarray, k: int) -> np.ndarray:
    n = d.shape[1]
    m = d.mean(1)
    se = np.sqrt(np.maximum(d.var(1, ddof=1) / n, FLOOR[0] / (n * k + 2) ** 2))
    return np.array([student_t_cdf(float(x), n - 1) for x in m / se])


def negative(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print("3. negative transfer: one-sided t-test at alpha = 0.05 (share of p <= 0.05)")
    for n in (24, 48):
        for coupling, agreement in AGREEMENT.items():
            parts = []
            for b in (0.5, 0.7, 0.77, 0.9):
                p, _ = _rates(rng, (args.reps, n), b, 0.0, 0.0)
                w, wo = _trials(rng, p, p, 3, agreement)  # the artifacts do nothing
                parts.append(f"b {b:.2f}: {np.mean(_p_negative((w - wo) / 3, 3) <= 0.05):.3f}")
            print(f"   size, {n} tasks x k = 3, {coupling:<11} " + "  ".join(parts))
    for n in (24, 48):
        for coupling, agreement in AGREEMENT.items():
            parts = []
            for mu in (-0.05, -0.10, -0.15):
                p, q = _rates(rng, (args.reps, n), 0.77, mu)
                w, wo = _trials(rng, p, q, 3, agreement)
                parts.append(f"mu {mu:+.2f}: {np.mean(_p_negative((w - wo) / 3, 3) <= 0.05):.3f}")
            print(f"   power, {n} tasks x k = 3, b 0.77, {coupling:<11} " + "  ".join(parts))


def _critical_pairs(
    rng: np.random.Generator,
    cells: int,
    n: int,
    k: int,
    rate: float,
    extra: float,
    agreement: float = 0.8,
) -> tuple[np.ndarray, np.ndarray]:
    """Per cell: trial pairs critical only with the artifacts, only without."""
    c = rng.beta(rate * 2 + 1e-9, (1 - rate) * 2, (cells, n))
    u = rng.random((cells, n, k))
    v = np.where(rng.random(u.shape) < agreement, u, rng.random(u.shape))
    with_ = v < np.clip(c + extra, 0, 1)[..., None]
    without = u < c[..., None]
    return (with_ & ~without).sum((1, 2)), (without & ~with_).sum((1, 2))


def _decide(more: np.ndarray, fewer: np.ndarray) -> list[bool]:
    """The release's decisions: BH over the cells whose discordant pairs could reach q."""
    ps = [binomial_sign_test(int(a), int(b)) for a, b in zip(more, fewer, strict=True)]
    smallest = [binomial_sign_test(int(a + b), 0) for a, b in zip(more, fewer, strict=True)]
    return screened_benjamini_hochberg(ps, smallest, 0.05)


def critical(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print(
        "4. CRITICAL: McNemar's exact test on trial pairs, 24 tasks x k = 3 (both arms the same "
        "critical rate per task under the null)"
    )
    matrices = max(1, args.reps // 90)
    for (coupling, agreement), rate in (
        (c, r) for c in AGREEMENT.items() for r in (0.02, 0.05, 0.10, 0.20)
    ):
        more, fewer = _critical_pairs(rng, args.reps, 24, 3, rate, 0.0, agreement)
        p = np.array([binomial_sign_test(int(a), int(b)) for a, b in zip(more, fewer, strict=True)])
        old = np.mean(more > fewer)
        flagged, any_flag = [], []
        for _ in range(matrices):
            m_more, m_fewer = _critical_pairs(rng, 90, 24, 3, rate, 0.0, agreement)
            decided = _decide(m_more, m_fewer)
            flagged.append(np.mean(decided))
            any_flag.append(any(decided))
        print(
            f"   null, {coupling:<11} critical rate {rate:.2f}: size at 0.05 "
            f"{np.mean(p <= 0.05):.3f} (mean discordant pairs {np.mean(more + fewer):.1f}); flag "
            f"rate after BH over 90 cells {np.mean(flagged):.4f} (a flag anywhere in "
            f"{np.mean(any_flag):.3f} of {matrices} matrices); old rule 'more than the "
            f"baseline' {old:.3f}"
        )
    for rate in (0.02, 0.10):
        power, fdp = [], []
        for _ in range(matrices):
            a_more, a_fewer = _critical_pairs(rng, 10, 24, 3, rate, 0.10)
            n_more, n_fewer = _critical_pairs(rng, 80, 24, 3, rate, 0.0)
            decided = np.array(
                _decide(np.concatenate([a_more, n_more]), np.concatenate([a_fewer, n_fewer]))
            )
            true, false = decided[:10].sum(), decided[10:].sum()
            power.append(true / 10)
            fdp.append(false / max(1, true + false))
        print(
            f"   10 cells of +0.10 among 90, base rate {rate:.2f}: power {np.mean(power):.3f}, "
            f"false discovery proportion {np.mean(fdp):.3f} (max {np.max(fdp):.3f})"
        )


def _arm(successes: np.ndarray, k: int, family: str = "f", prefix: str = "t") -> ArmOutcomes:
    return ArmOutcomes.from_trials(
        (f"{prefix}{i}", family, "success" if j < s else "failure")
        for i, s in enumerate(successes)
        for j in range(k)
    )


def fdr(args: argparse.Namespace, rng: np.random.Generator) -> None:
    matrices = max(2, args.reps // 200)
    print(
        f"5. BH at q = 0.05 over {matrices} matrices of 200 cells x 24 tasks x k = 3 built by "
        "the release code (20 with mu -0.15, 90 with 0, 90 with +0.10; correlated arms)"
    )
    gains = [-0.15] * 20 + [0.0] * 90 + [0.10] * 90
    fdp, power = [], []
    for _ in range(matrices):
        cells = []
        for mu in gains:
            p, q = _rates(rng, (24,), 0.6, mu, TASK_SD if mu else 0.0)
            w, wo = _trials(rng, p, q, 3, 0.8)
            cells.append(pair_arms(_arm(w, 3), _arm(wo, 3)))
        decided = apply_fdr(cells_metrics(cells, [None] * len(cells)), 0.05)
        true = sum(bool(c.negative_transfer) for c, g in zip(decided, gains, strict=True) if g < 0)
        false = sum(
            bool(c.negative_transfer) for c, g in zip(decided, gains, strict=True) if g >= 0
        )
        fdp.append(false / max(1, true + false))
        power.append(true / 20)
    print(
        f"   mean false discovery proportion {np.mean(fdp):.3f} (max {max(fdp):.3f}), mean "
        f"power {np.mean(power):.3f}"
    )


RETENTION_SIZES = ((12, 3), (24, 3), (48, 3), (24, 1))
"""Tasks x trials of table 6: the default size, half and twice it, and one trial per task."""
RETENTION_GAINS = (0.10, 0.20, 0.30)
"""True source gains of table 6: the gate opens in 0.01%-30% of cells at 0.1-0.2, mostly at 0.3."""


def _retention_pairs(
    rng: np.random.Generator, n: int, k: int, gain: float, ratio: float, shared: bool, draws: int
) -> tuple[np.ndarray, ...]:
    """Success counts (source with, without, target with, without), draws x n tasks: a task's
    baseline about 0.4, its source gain ``gain`` + N(0, 0.05^2), correlated arms; the target's
    gain ``ratio`` x the source's on the same tasks (``shared``) or over other tasks."""
    p = rng.uniform(0.25, 0.55, (draws, n))
    effect = gain + rng.normal(0, 0.05, (draws, n))
    sw, swo = _trials(rng, p, np.clip(p + effect, 0, 1), k, AGREEMENT["correlated"])
    tp = p if shared else rng.uniform(0.25, 0.55, (draws, n))
    te = ratio * effect if shared else ratio * (gain + rng.normal(0, 0.05, (draws, n)))
    tw, two = _trials(rng, tp, np.clip(tp + te, 0, 1), k, AGREEMENT["correlated"])
    return sw, swo, tw, two


def _passes_gate(sw: np.ndarray, swo: np.ndarray, k: int) -> np.ndarray:
    """Which draws' source gain passes retention's gate (lower bound >= half the gain), as the
    release computes it, with a little slack: the release code then decides each of them."""
    d = (sw - swo) / k
    n = d.shape[1]
    se = np.sqrt(np.maximum(d.var(1, ddof=1) / n, FLOOR_WEIGHT / (n * k + 2) ** 2))
    return d.mean(1) >= 2 * student_t_quantile(0.95, n - 1) * se - 1e-6


def _retention_row(
    rng: np.random.Generator, size: tuple[int, int], gain: float, ratio: float, shared: bool,
    want: int, most: int,
) -> str:  # fmt: skip
    """One row of table 6: draw until ``want`` cells report retention (or ``most`` draws)."""
    n, k = size
    prefix = "t" if shared else "u"
    drawn = checked = 0
    found: dict[int, list[float]] = {4: [], 5: []}
    covered = {4: 0, 5: 0}
    widths: dict[int, list[float]] = {4: [], 5: []}
    while len(found[5]) < want and drawn < most:
        sw, swo, tw, two = _retention_pairs(rng, n, k, gain, ratio, shared, 20_000)
        passed = _passes_gate(sw, swo, k)
        # the draws that passed, and a few that did not: the release must not report those
        failed = np.flatnonzero(~passed)[: max(0, 20 - checked)]
        checked += len(failed)
        drawn += len(sw)
        for i in np.union1d(np.flatnonzero(passed), failed):
            cells = [
                pair_arms(_arm(tw[i], k, prefix=prefix), _arm(two[i], k, prefix=prefix)),
                pair_arms(_arm(sw[i], k), _arm(swo[i], k)),
            ]
            for version in (5, 4):
                m = cells_metrics(cells, [1, None], version=version)[0]
                if m.retention is None:
                    continue
                assert passed[i], "the release reported retention the screen let go"
                found[version].append(m.retention.value)
                covered[version] += m.retention.ci.lo <= ratio <= m.retention.ci.hi
                widths[version].append(m.retention.ci.hi - m.retention.ci.lo)
            if len(found[5]) >= want:
                drawn -= len(sw) - i - 1  # the draws after this one were not looked at
                break
    got = len(found[5])
    if not got:
        return f"reported 0 of {drawn:,} draws"
    return (
        f"reported {got / drawn:.4f} ({got} of {drawn:,} draws), coverage {covered[5] / got:.3f} "
        f"(plain Fieller {covered[4] / max(1, len(found[4])):.3f}), median ratio "
        f"{np.median(found[5]):.2f}, median width {np.median(widths[5]):.2f} (plain "
        f"{np.median(widths[4]) if widths[4] else float('nan'):.2f})"
    )


def retention(args: argparse.Namespace, rng: np.random.Generator) -> None:
    want, most = max(10, args.reps // 2), args.reps * 5000
    print(
        f"6. retention (release code; each row draws until {want} cells report it, at most "
        f"{most:,} draws): baseline about 0.4, correlated arms; the interval adjusted for the "
        "gate (CellMetrics v5) and the plain Fieller one (v4) on the same cells"
    )
    lowest = 1.0
    for size in RETENTION_SIZES:
        for shared in (True, False):
            for ratio in (1.0, 0.5):
                for gain in RETENTION_GAINS:
                    row = _retention_row(rng, size, gain, ratio, shared, want, most)
                    found = re.search(r"coverage ([\d.]+)", row)
                    lowest = min(lowest, float(found.group(1))) if found else lowest
                    print(
                        f"   {size[0]}x{size[1]} {'joint' if shared else 'independent':<11} "
                        f"retention {ratio:.1f}, source gain {gain:.2f}: {row}",
                        flush=True,
                    )
    print(f"   lowest coverage where reported: {lowest:.3f}")


def mde(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print("7. minimum detectable gain at 80% power (median of the release's mde), baseline 0.77")
    reps = max(20, args.reps // 50)
    for coupling, agreement in AGREEMENT.items():
        parts = []
        for n in (12, 24, 48, 100):
            for k in (1, 3):
                values = []
                for _ in range(reps):
                    p, q = _rates(rng, (n,), 0.77, 0.0)
                    w, wo = _trials(rng, p, q, k, agreement)
                    values.append(cell_metrics(_arm(w, k), _arm(wo, k)).mde)
                parts.append(f"{n}x{k} {np.median(values):.3f}")
        print(f"   {coupling:<11} " + "  ".join(parts))


TABLES: dict[str, Callable[[argparse.Namespace, np.random.Generator], None]] = {
    "coverage": coverage,
    "strata": strata,
    "negative": negative,
    "critical": critical,
    "fdr": fdr,
    "retention": retention,
    "mde": mde,
}


def main() -> None:
    """Print the calibration tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="replicates per row")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap draws B")
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulation")
    parser.add_argument("--only", default=",".join(TABLES), help="tables to print, by name")
    parser.add_argument(
        "--floor-weight",
        type=float,
        default=float(FLOOR_WEIGHT),
        help="floor weight w of the standard error sqrt(w)/(N+2) in tables 1-3 (the release's: 3)",
    )
    args = parser.parse_args()
    FLOOR[0] = args.floor_weight
    start = time.perf_counter()
    with bench_run("calibration of the matrix statistics"):
        print(
            f"{args.reps} replicates per row, B = {args.bootstrap}, seed {args.seed}, floor "
            f"weight {FLOOR[0]:g}"
        )
        for name in args.only.split(","):
            TABLES[name](args, np.random.default_rng([args.seed, list(TABLES).index(name)]))
        print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
