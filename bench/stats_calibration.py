"""Calibration of the matrix statistics on simulated paired data with a known truth.

Run: .venv/bin/python bench/stats_calibration.py [--reps 400] [--bootstrap 1000]
[--matrices 10] [--matrix-bootstrap 10000] [--seed 0]; the defaults take under a minute on 2
cores, more --reps give tighter estimates (the Monte Carlo standard error of a coverage near
0.95 is sqrt(0.95 x 0.05 / reps), 0.011 at 400).

The population: a task's baseline success rate is U(0.3, 0.6) and its gain is
mu + u_family + v_task, u ~ N(0, tau^2) shared by a family's tasks, v ~ N(0, 0.1^2); the
artifact arm's rate is clipped to [0, 1]; k = 3 trials per task and arm. The true gain is the
population mean of (clipped artifact rate - baseline rate), computed once over 2,000,000 tasks.

Prints:
1. coverage and mean width of the 95% gain interval by both methods the release uses (the
   percentile cluster bootstrap and the cluster t-interval), over one family of 10-100 tasks
   (tasks resampled) and over 2-8 families of 10 tasks (families resampled); the method the
   release picks for each row is marked;
2. the size of the one-sided sign-flip negative-transfer test at gain 0 (share of p <= 0.05);
3. Benjamini-Hochberg at q = 0.05 across whole matrices built by ``cells_metrics`` (shared
   draws and all): 200 cells of 40 tasks, 20 with a true gain of -0.15 and 180 with 0 or
   +0.1; the mean false discovery proportion (the FDR) and the power. BH needs p-values
   below q / 200 = 0.00025 to reject at all, so the p floor 1/(B + 1) of the Monte Carlo
   sign-flip test matters here: this table uses B = 10,000 like a release.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from reports._cell import cells_metrics, interval_method, pair_arms
from reports._stats import benjamini_hochberg, sign_flip_pvalue
from reports._stats_arms import ArmOutcomes
from reports._stats_bootstrap import Clusters, group_clusters, percentile_interval
from reports._stats_shared import resample_counts
from reports._stats_student_t import cluster_t_interval

TRIALS = 3
TASK_SD = 0.1


def _rates(
    rng: np.random.Generator, mu: float, tau: float, families: int, tasks: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Baseline and artifact success rates of ``families`` x ``tasks`` tasks, and each task's
    family index."""
    family = np.repeat(np.arange(families), tasks)
    base = rng.uniform(0.3, 0.6, families * tasks)
    gain = mu + rng.normal(0.0, tau, families)[family] + rng.normal(0.0, TASK_SD, len(base))
    return base, np.clip(base + gain, 0.0, 1.0), family


def _truth(mu: float, tau: float, rng: np.random.Generator) -> float:
    base, rate, _ = _rates(rng, mu, tau, 2000, 1000)
    return float(np.mean(rate - base))


def _clusters(
    rng: np.random.Generator, mu: float, tau: float, families: int, tasks: int
) -> Clusters:
    base, rate, family = _rates(rng, mu, tau, families, tasks)
    diffs = (rng.binomial(TRIALS, rate) - rng.binomial(TRIALS, base)) / TRIALS
    names = {f"t{i}": f"f{f}" for i, f in enumerate(family)}
    return group_clusters(dict(zip(names, diffs.tolist(), strict=True)), names)


def _coverage(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print("1. coverage of the 95% gain interval (mu = 0.1; * = the method the release uses)")
    print(f"   {'clusters':<22} {'truth':>6}  {'bootstrap':>9} {'width':>6}  {'t':>6} {'width':>6}")
    rows = [(1, n, 0.0) for n in (10, 20, 40, 100)] + [(g, 10, 0.05) for g in (2, 4, 8)]
    for families, tasks, tau in rows:
        truth = _truth(0.1, tau, rng)
        hits, widths = np.zeros(2), np.zeros(2)
        method = ""
        for rep in range(args.reps):
            clusters = _clusters(rng, 0.1, tau, families, tasks)
            method = interval_method(clusters.level, len(clusters.ids))
            counts = resample_counts(args.seed + rep, clusters.level, clusters.ids, args.bootstrap)
            draws = (counts @ clusters.sums) / (counts @ clusters.sizes)
            for j, (lo, hi) in enumerate(
                (percentile_interval(draws, 0.95), cluster_t_interval(clusters, 0.95))
            ):
                hits[j] += lo <= truth <= hi
                widths[j] += hi - lo
        cover, width = hits / args.reps, widths / args.reps
        mark = ("*", " ") if method == "percentile_bootstrap" else (" ", "*")
        label = (
            f"{tasks} tasks, 1 family" if families == 1 else f"{families} families x {tasks} tasks"
        )
        print(
            f"   {label:<22} {truth:6.3f}  {cover[0]:8.3f}{mark[0]} {width[0]:6.3f}"
            f"  {cover[1]:5.3f}{mark[1]} {width[1]:6.3f}"
        )


def _size(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print("2. size of the sign-flip test of negative transfer at gain 0 (alpha = 0.05)")
    for families, tasks, tau in ((1, 10, 0.0), (1, 20, 0.0), (1, 40, 0.0), (4, 10, 0.05)):
        rejected = 0
        for _ in range(args.reps):
            c = _clusters(rng, 0.0, tau, families, tasks)
            p = sign_flip_pvalue(c.means, c.sizes, draws=args.bootstrap, rng=rng).p
            rejected += p <= 0.05
        label = f"{tasks} tasks, 1 family" if families == 1 else f"{families} families"
        print(f"   {label:<22} rejection rate {rejected / args.reps:.3f}")


def _arms(rng: np.random.Generator, mu: float, tasks: int) -> tuple[ArmOutcomes, ArmOutcomes]:
    base, rate, _ = _rates(rng, mu, 0.0, 1, tasks)

    def arm(p: np.ndarray) -> ArmOutcomes:
        wins = rng.random((len(p), TRIALS)) < p[:, None]
        return ArmOutcomes.from_trials(
            (f"t{i}", "f", "success" if w else "failure") for i, row in enumerate(wins) for w in row
        )

    return arm(rate), arm(base)


def _fdr(args: argparse.Namespace, rng: np.random.Generator) -> None:
    print(
        "3. BH at q = 0.05 over matrices of 200 cells x 40 tasks "
        f"(20 with gain -0.15, 90 with 0, 90 with +0.1; B = {args.matrix_bootstrap})"
    )
    gains = [-0.15] * 20 + [0.0] * 90 + [0.1] * 90
    fdp, power = [], []
    for m in range(args.matrices):
        cells = [pair_arms(*_arms(rng, mu, 40)) for mu in gains]
        metrics = cells_metrics(cells, [None] * len(cells), bootstrap=args.matrix_bootstrap, seed=m)
        decided = benjamini_hochberg([c.p_negative for c in metrics], 0.05)
        true = sum(d for d, g in zip(decided, gains, strict=True) if g < 0)
        false = sum(d for d, g in zip(decided, gains, strict=True) if g >= 0)
        fdp.append(false / max(1, true + false))
        power.append(true / 20)
    print(
        f"   {args.matrices} matrices: mean false discovery proportion {np.mean(fdp):.3f} "
        f"(max {max(fdp):.3f}), mean power {np.mean(power):.3f}"
    )


def main() -> None:
    """Print the three calibration tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400, help="replicate cells per row")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap draws B")
    parser.add_argument("--matrices", type=int, default=10, help="matrices for the BH table")
    parser.add_argument(
        "--matrix-bootstrap",
        type=int,
        default=10_000,
        help="sign patterns per cell in the BH table (as a release: the p floor is 1/(B+1))",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the simulation")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    print(f"{args.reps} replicates per row, B = {args.bootstrap}, k = {TRIALS}, seed {args.seed}")
    _coverage(args, rng)
    _size(args, rng)
    _fdr(args, rng)
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
