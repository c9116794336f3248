"""Tests of cell metrics and the matrix-wide FDR decisions."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmark import stable_int
from reports._cell import (
    TOLERANCE,
    CellMetrics,
    GainDifference,
    Interval,
    LeaveOneOut,
    Retention,
    _retention,
    apply_fdr,
    cell_metrics,
    cells_metrics,
    pair_arms,
)
from reports._stats_arms import ArmOutcomes
from reports._stats_bootstrap import percentile_interval
from reports._stats_shared import resample_counts
from reports._stats_student_t import student_t_quantile
from reports.errors import ReportError


def _arm(tasks: dict[str, list[str]], family: str | dict[str, str] = "f") -> ArmOutcomes:
    def fam(task: str) -> str:
        return family if isinstance(family, str) else family[task]

    return ArmOutcomes.from_trials((t, fam(t), o) for t, outs in tasks.items() for o in outs)


def _simulated(
    rng: np.random.Generator, p: np.ndarray, k: int, family: str = "f", prefix: str = "t"
) -> ArmOutcomes:
    wins = rng.random((len(p), k)) < p[:, None]
    return _arm(
        {
            f"{prefix}{i}": ["success" if w else "failure" for w in row]
            for i, row in enumerate(wins)
        },
        family,
    )


WITH = {
    "t1": ["success", "success", "failure"],
    "t2": ["success", "invalid"],
    "t3": ["failure", "safe_stop"],
    "t4": ["invalid"],
    "t5": ["critical"],
}
WITHOUT = {
    "t1": ["success", "failure", "failure"],
    "t2": ["failure", "failure"],
    "t3": ["success", "failure"],
    "t4": ["success"],
}


def test_hand_computed_cell() -> None:
    m = cell_metrics(_arm(WITH), _arm(WITHOUT), bootstrap=1000, seed=0)
    # Paired: t1 (2/3 vs 1/3), t2 (1 vs 0), t3 (0 vs 1/2); t4 has no valid "with" trial and
    # t5 no "without" arm at all.
    assert (m.n_tasks, m.n_dropped_tasks) == (3, 2)
    assert m.score_with == pytest.approx(5 / 9)
    assert m.score_without == pytest.approx(5 / 18)
    assert m.gain == pytest.approx(5 / 18)
    assert (m.sign_test.wins, m.sign_test.losses, m.sign_test.ties) == (2, 1, 0)
    assert m.sign_test.p == pytest.approx(0.5)
    assert m.net_win == pytest.approx(1 / 3)
    # 6 of the 8 sign patterns of (1/3, 1, -1/2) sum to <= 5/6.
    assert (m.p_negative, m.p_negative_method) == (pytest.approx(0.75), "exact")
    assert (m.cluster_level, m.n_clusters, m.few_clusters) == ("task", 3, False)
    assert m.interval_method == "cluster_t"
    assert (m.with_arm.trials, m.with_arm.invalid, m.with_arm.safe_stop) == (9, 2, 1)
    assert (m.with_arm.critical, m.with_arm.critical_rate) == (1, pytest.approx(1 / 7))
    assert m.with_arm.pass_hat_k == pytest.approx([5 / 9])
    assert m.without_arm.pass_hat_k == pytest.approx([5 / 18, 0.0])
    assert (m.ceiling, m.floor, m.provisional, m.obsolete) == (False, False, False, False)
    assert m.retention is None and m.retention_reason == "no source cell given"
    assert m.seed == 0 and m.bootstrap == 1000
    assert m.gain_ci.lo <= m.gain <= m.gain_ci.hi


def test_ties_are_exact_across_trial_counts() -> None:
    m = cell_metrics(
        _arm({"a": ["success", "failure", "failure"]}),
        _arm({"a": ["success", "failure", "failure", "success", "failure", "failure"]}),
        bootstrap=100,
        seed=0,
    )
    assert (m.sign_test.ties, m.gain, m.provisional) == (1, 0.0, True)
    # One task: no spread to estimate, so the interval is every possible gain.
    assert (m.gain_ci.lo, m.gain_ci.hi) == (-1.0, 1.0)


def test_cell_is_deterministic_under_its_seed() -> None:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.2, 0.8, 30)
    with_arm, without_arm = _simulated(rng, p + 0.1, 4), _simulated(rng, p, 4)
    first = cell_metrics(with_arm, without_arm, bootstrap=2000, seed=9)
    assert cell_metrics(with_arm, without_arm, bootstrap=2000, seed=9) == first
    other = cell_metrics(with_arm, without_arm, bootstrap=2000, seed=10)
    assert other.gain == first.gain and other.gain_ci != first.gain_ci
    assert first.p_negative_method == "monte_carlo"
    assert other.p_negative != first.p_negative


def test_families_are_the_clusters_when_the_cell_spans_two() -> None:
    w = {"a": ["failure"], "b": ["failure"], "c": ["failure"], "d": ["success"]}
    wo = {"a": ["success"], "b": ["success"], "c": ["success"], "d": ["failure"]}
    two = {"a": "f1", "b": "f1", "c": "f1", "d": "f2"}
    m = cell_metrics(_arm(w, two), _arm(wo, two), bootstrap=500, seed=0)
    assert (m.cluster_level, m.n_clusters, m.few_clusters) == ("family", 2, True)
    # Family sums (-3, +1): 2 of the 4 patterns are <= the observed -2.
    assert m.p_negative == 0.5
    one = cell_metrics(_arm(w), _arm(wo), bootstrap=500, seed=0)
    assert (one.cluster_level, one.n_clusters, one.few_clusters) == ("task", 4, False)
    # Task differences (-1, -1, -1, +1): 5 of the 16 patterns are <= -2.
    assert one.p_negative == 5 / 16


def _families(n_families: int, tasks: int = 3) -> tuple[ArmOutcomes, ArmOutcomes]:
    """Arms over ``n_families`` families of ``tasks`` one-trial tasks: task t of family f
    succeeds with artifacts when f + t is odd, and never without."""
    family = {f"f{f}-{t}": f"f{f}" for f in range(n_families) for t in range(tasks)}
    w = {
        task: ["success" if sum(map(int, task[1:].split("-"))) % 2 else "failure"]
        for task in family
    }
    return _arm(w, family), _arm({t: ["failure"] for t in family}, family)


@pytest.mark.parametrize("n_families", [2, 3, 4, 5, 6, 8])
def test_few_clusters_flag_appears_exactly_below_five_families(n_families: int) -> None:
    m = cell_metrics(*_families(n_families), bootstrap=200, seed=0)
    assert (m.cluster_level, m.n_clusters) == ("family", n_families)
    assert m.few_clusters == (n_families < 5)
    assert m.interval_method == "cluster_t"


@pytest.mark.parametrize("tasks", [2, 4, 19, 20, 40])
def test_one_family_is_never_few_clusters_and_keeps_the_bootstrap_from_20_tasks(
    tasks: int,
) -> None:
    m = cell_metrics(*_families(1, tasks), bootstrap=200, seed=0)
    assert (m.cluster_level, m.n_clusters, m.few_clusters) == ("task", tasks, False)
    assert m.interval_method == ("percentile_bootstrap" if tasks >= 20 else "cluster_t")


def test_few_families_take_the_t_interval_over_family_means() -> None:
    # Family means (1/3, 2/3, 1/3, 2/3): gain 1/2, standard deviation sqrt(1/27), so the
    # interval is 1/2 +- t(0.975, 3 df) sqrt(1/27) / sqrt(4) = 1/2 +- 3.1824 / sqrt(108).
    m = cell_metrics(*_families(4), bootstrap=200, seed=0)
    half = student_t_quantile(0.95, 3) / math.sqrt(108)
    assert half == pytest.approx(0.306231, abs=1e-6)
    assert m.gain == pytest.approx(0.5)
    assert (m.gain_ci.lo, m.gain_ci.hi) == pytest.approx((0.5 - half, 0.5 + half))
    # No draws behind it: another seed or bootstrap size gives the same interval.
    assert cell_metrics(*_families(4), bootstrap=5000, seed=7).gain_ci == m.gain_ci


def test_the_retention_gate_takes_the_source_cells_own_interval() -> None:
    # Source over two families of 10 tasks with gains 0.6 and 0.1: the family bootstrap puts
    # its interval at [0.1, 0.6], but the t-interval with 1 df spans 0, so no retention.
    family = {f"{f}{t}": f for f in "ab" for t in range(10)}
    wins = {"a": 6, "b": 1}
    w = {t: ["success" if int(t[1:]) < wins[f] else "failure"] for t, f in family.items()}
    source = (_arm(w, family), _arm({t: ["failure"] for t in family}, family))
    alone = cell_metrics(*source, bootstrap=1000, seed=0)
    assert (alone.interval_method, alone.gain) == ("cluster_t", pytest.approx(0.35))
    assert alone.gain_ci.lo < 0
    m = cell_metrics(*source, bootstrap=1000, seed=0, source=source)
    assert m.retention is None and m.retention_reason == (
        f"source gain 0.350 has interval [{alone.gain_ci.lo:.3f}, {alone.gain_ci.hi:.3f}], "
        "not above 0"
    )


_outcome = st.sampled_from(["success", "failure", "critical", "safe_stop"])
_trials = st.lists(_outcome, min_size=1, max_size=3)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(_trials, _trials, st.sampled_from(["f1", "f2", "f3"])), min_size=1, max_size=8
    )
)
def test_p_negative_matches_brute_force(tasks: list[tuple[list[str], list[str], str]]) -> None:
    family = {f"t{i}": fam for i, (_, _, fam) in enumerate(tasks)}
    w = _arm({f"t{i}": a for i, (a, _, _) in enumerate(tasks)}, family)
    wo = _arm({f"t{i}": b for i, (_, b, _) in enumerate(tasks)}, family)
    m = cell_metrics(w, wo, bootstrap=10_000, seed=1)
    diffs = {
        t: w.tasks[t].successes / w.tasks[t].valid - wo.tasks[t].successes / wo.tasks[t].valid
        for t in family
    }
    key = family if len(set(family.values())) >= 2 else {t: t for t in family}
    cluster_sums: dict[str, float] = {}
    for t, d in diffs.items():
        cluster_sums[key[t]] = cluster_sums.get(key[t], 0.0) + d
    sums = list(cluster_sums.values())
    observed = sum(sums)
    patterns = list(itertools.product((1, -1), repeat=len(sums)))
    hits = sum(
        sum(s * v for s, v in zip(signs, sums, strict=True)) <= observed + 1e-9
        for signs in patterns
    )
    assert m.p_negative == pytest.approx(max(hits / len(patterns), 1 / 10_001))
    assert m.gain == pytest.approx(np.mean(list(diffs.values())))


def test_interval_coverage_on_a_simulated_population() -> None:
    # Per-task baseline p ~ U(0.3, 0.6) and effect ~ U(-0.1, 0.3): the true mean gain is 0.1.
    rng = np.random.default_rng(2024)
    covered = 0
    reps = 200
    for rep in range(reps):
        base = rng.uniform(0.3, 0.6, 40)
        effect = rng.uniform(-0.1, 0.3, 40)
        m = cell_metrics(
            _simulated(rng, base + effect, 4), _simulated(rng, base, 4), bootstrap=1000, seed=rep
        )
        covered += m.gain_ci.lo <= 0.1 <= m.gain_ci.hi
    assert 0.88 <= covered / reps <= 0.99


def test_retention_with_shared_draws() -> None:
    rng = np.random.default_rng(3)
    p = rng.uniform(0.2, 0.5, 25)
    with_arm, without_arm = _simulated(rng, p + 0.4, 5), _simulated(rng, p, 5)
    src_with, src_without = _simulated(rng, p + 0.4, 5), _simulated(rng, p, 5)
    m = cell_metrics(with_arm, without_arm, bootstrap=2000, seed=4, source=(src_with, src_without))
    source_alone = cell_metrics(src_with, src_without, bootstrap=2000, seed=4)
    assert m.retention is not None and m.retention.shared_draws
    assert m.retention.value == pytest.approx(m.gain / source_alone.gain)
    assert m.retention.source_gain_ci == source_alone.gain_ci
    assert m.retention.ci.lo <= m.retention.value <= m.retention.ci.hi


def test_identical_target_and_source_give_a_point_retention_interval() -> None:
    rng = np.random.default_rng(5)
    p = rng.uniform(0.2, 0.5, 20)
    with_arm, without_arm = _simulated(rng, p + 0.4, 4), _simulated(rng, p, 4)
    m = cell_metrics(with_arm, without_arm, bootstrap=1000, seed=0, source=(with_arm, without_arm))
    assert m.retention is not None
    # Same draws on the same data: every resampled ratio is exactly 1.
    assert (m.retention.value, m.retention.ci.lo, m.retention.ci.hi) == (1.0, 1.0, 1.0)


def test_retention_with_independent_draws_on_other_tasks() -> None:
    rng = np.random.default_rng(5)
    p = rng.uniform(0.2, 0.5, 20)
    with_arm, without_arm = _simulated(rng, p + 0.4, 4), _simulated(rng, p, 4)
    src = (_simulated(rng, p + 0.4, 4, prefix="s"), _simulated(rng, p, 4, prefix="s"))
    m = cell_metrics(with_arm, without_arm, bootstrap=1000, seed=0, source=src)
    assert m.retention is not None and not m.retention.shared_draws
    assert m.retention.ci.lo < m.retention.value < m.retention.ci.hi


def test_retention_is_withheld_when_the_source_gain_may_be_zero() -> None:
    rng = np.random.default_rng(6)
    p = rng.uniform(0.3, 0.6, 20)
    with_arm, without_arm = _simulated(rng, p + 0.2, 4), _simulated(rng, p, 4)
    flat = (_simulated(rng, p, 4), _simulated(rng, p, 4))
    m = cell_metrics(with_arm, without_arm, bootstrap=1000, seed=0, source=flat)
    assert m.retention is None
    assert m.retention_reason is not None and "not above 0" in m.retention_reason


def test_obsolete_ceiling_and_floor_flags() -> None:
    done = {f"t{i}": ["success"] * 10 for i in range(30)}
    m = cell_metrics(_arm(done), _arm(done), bootstrap=500, seed=0)
    assert (m.ceiling, m.obsolete, m.floor, m.provisional) == (True, True, False, False)
    failed = {f"t{i}": ["failure"] * 3 for i in range(2)}
    m = cell_metrics(_arm(failed), _arm(failed), bootstrap=500, seed=0)
    assert (m.ceiling, m.obsolete, m.floor, m.provisional) == (False, False, True, True)
    # Baseline at the ceiling but the artifact arm clearly worse: not obsolete.
    worse = {f"t{i}": ["failure"] * 10 for i in range(30)}
    m = cell_metrics(_arm(worse), _arm(done), bootstrap=500, seed=0)
    assert (m.ceiling, m.obsolete) == (True, False)


def test_apply_fdr_decides_negative_transfer_across_cells() -> None:
    lose = {f"t{i}": ["failure"] * 3 for i in range(12)}
    win = {f"t{i}": ["success"] * 3 for i in range(12)}
    harmful = cell_metrics(_arm(lose), _arm(win), bootstrap=1000, seed=0)
    helpful = cell_metrics(_arm(win), _arm(lose), bootstrap=1000, seed=0)
    assert harmful.negative_transfer is None
    decided = apply_fdr([harmful, helpful], q=0.05)
    assert [c.negative_transfer for c in decided] == [True, False]
    assert decided[0].fdr_q == 0.05
    assert decided[0].p_negative == harmful.p_negative == pytest.approx(1 / 1001)


def test_metrics_round_trip_as_json() -> None:
    m = cell_metrics(_arm(WITH), _arm(WITHOUT), bootstrap=200, seed=3)
    assert CellMetrics.model_validate_json(m.model_dump_json()) == m


def test_bad_input_is_a_report_error() -> None:
    with pytest.raises(ReportError, match="no task has a valid trial"):
        cell_metrics(_arm({"a": ["invalid"]}), _arm({"a": ["success"]}), bootstrap=100, seed=0)
    empty = (_arm({"a": ["invalid"]}), _arm({"a": ["success"]}))
    with pytest.raises(ReportError, match="both arms of the source cell"):
        cell_metrics(_arm(WITH), _arm(WITHOUT), bootstrap=100, seed=0, source=empty)
    with pytest.raises(ReportError, match="at least 100"):
        cell_metrics(_arm(WITH), _arm(WITHOUT), bootstrap=10, seed=0)
    with pytest.raises(ReportError, match="seed"):
        cell_metrics(_arm(WITH), _arm(WITHOUT), seed=-1)
    with pytest.raises(ReportError, match="confidence"):
        cell_metrics(_arm(WITH), _arm(WITHOUT), seed=0, confidence=1.5)
    with pytest.raises(ReportError, match="cluster"):
        cell_metrics(_arm(WITH, "f"), _arm(WITHOUT, "g"), seed=0)


def _one_trial(diffs: list[int], prefix: str = "t") -> tuple[ArmOutcomes, ArmOutcomes]:
    """One-trial tasks of one family: difference +1 (win), -1 (loss) or 0 (both fail)."""
    w = {f"{prefix}{i}": ["success" if d > 0 else "failure"] for i, d in enumerate(diffs)}
    wo = {f"{prefix}{i}": ["success" if d < 0 else "failure"] for i, d in enumerate(diffs)}
    return _arm(w), _arm(wo)


# 20 tasks, 6 wins and 1 loss: the percentile lower bound of the gain is 0 for about two
# draws in three and 0.05 otherwise, so redrawing the source interval per target disagrees
# with the published one.
BORDERLINE = [1] * 6 + [-1] + [0] * 13


def _matrix_with_13_targets(seed: int) -> list[CellMetrics]:
    rng = np.random.default_rng(11)
    cells = [pair_arms(*_one_trial(BORDERLINE, "s"))]
    for n in range(13):
        p = rng.uniform(0.2, 0.5, 25)
        target = (
            _simulated(rng, p + 0.3, 3, prefix=f"x{n}-"),
            _simulated(rng, p, 3, prefix=f"x{n}-"),
        )
        cells.append(pair_arms(*target))
    return cells_metrics(cells, [None] + [0] * 13, bootstrap=1000, seed=seed)


def test_the_gate_is_the_published_source_interval_for_every_target() -> None:
    source = _one_trial(BORDERLINE, "s")
    lows = [cell_metrics(*source, bootstrap=1000, seed=s).gain_ci.lo for s in range(12)]
    assert 0.0 in lows and any(lo > TOLERANCE for lo in lows), "not a borderline source"
    withheld = next(s for s, lo in enumerate(lows) if lo <= TOLERANCE)
    source_cell, *targets = _matrix_with_13_targets(withheld)
    assert source_cell.gain_ci.lo == 0.0
    for t in targets:
        # Targets run other task instances (independent draws) and still take the published
        # interval: none reports retention, and each names that interval.
        assert t.retention is None
        assert t.retention_reason == (
            f"source gain 0.250 has interval [0.000, {source_cell.gain_ci.hi:.3f}], not above 0"
        )
    reported = next(s for s, lo in enumerate(lows) if lo > TOLERANCE)
    source_cell, *targets = _matrix_with_13_targets(reported)
    assert source_cell.gain_ci.lo > TOLERANCE
    for t in targets:
        assert t.retention is not None and not t.retention.shared_draws
        assert t.retention.source_gain_ci == source_cell.gain_ci
        assert t.retention.value == t.gain / source_cell.gain


def test_a_tiny_positive_source_bound_is_not_above_zero() -> None:
    cell = pair_arms(*_one_trial([1, 0, 1]))
    draws = np.full(100, 0.5)
    for lo in (2e-18, 0.0, -1e-12, TOLERANCE):
        reason = _retention(cell, cell, draws, draws, Interval(lo=lo, hi=0.9), 0.95)
        assert isinstance(reason, str) and "not above 0" in reason
    kept = _retention(cell, cell, draws, draws, Interval(lo=2 * TOLERANCE, hi=0.9), 0.95)
    assert isinstance(kept, Retention) and kept.value == 1.0
    for ci in (Interval(lo=2e-18, hi=0.2), Interval(lo=-0.2, hi=-2e-18)):
        tiny = GainDifference(value=0.1, ci=ci, interval_method="cluster_t", n_tasks=5)
        assert not tiny.excludes_zero
    clear = Interval(lo=-0.2, hi=-2 * TOLERANCE)
    assert GainDifference(
        value=-0.1, ci=clear, interval_method="cluster_t", n_tasks=5
    ).excludes_zero


def test_shared_task_ids_give_a_joint_bootstrap_over_the_same_resamples() -> None:
    rng = np.random.default_rng(8)
    p = rng.uniform(0.2, 0.5, 30)
    target = (_simulated(rng, p + 0.2, 3), _simulated(rng, p, 3))
    source = (_simulated(rng, p + 0.4, 3), _simulated(rng, p, 3))
    m = cell_metrics(*target, bootstrap=2000, seed=5, source=source)
    assert m.retention is not None and m.retention.shared_draws
    # Reference: the counts matrix of these 30 task ids, applied to both cells' differences.
    ids = tuple(sorted(target[0].tasks))
    counts = resample_counts(5, "task", ids, 2000)
    t, s = pair_arms(*target), pair_arms(*source)
    ratio = (counts @ t.sums[0]) / (counts @ s.sums[0])
    assert (m.retention.ci.lo, m.retention.ci.hi) == pytest.approx(percentile_interval(ratio, 0.95))
    # The source's interval is its own published one, from the same counts.
    src = cell_metrics(*source, bootstrap=2000, seed=5)
    assert m.retention.source_gain_ci == src.gain_ci
    own = (counts @ s.sums[0]) / (30 * s.scale)
    assert (src.gain_ci.lo, src.gain_ci.hi) == pytest.approx(percentile_interval(own, 0.95))


def test_a_target_of_other_families_is_resampled_independently() -> None:
    rng = np.random.default_rng(9)
    p = rng.uniform(0.2, 0.5, 30)
    source = (_simulated(rng, p + 0.4, 3), _simulated(rng, p, 3))
    other = (_simulated(rng, p + 0.3, 3, "g", "u"), _simulated(rng, p, 3, "g", "u"))
    m = cell_metrics(*other, bootstrap=2000, seed=5, source=source)
    assert m.retention is not None and not m.retention.shared_draws
    own = resample_counts(5, "task", tuple(sorted(other[0].tasks)), 2000)
    src = resample_counts(5, "task", tuple(sorted(source[0].tasks)), 2000)
    o, s = pair_arms(*other), pair_arms(*source)
    ratio = (own @ o.sums[0]) / (src @ s.sums[0])
    assert (m.retention.ci.lo, m.retention.ci.hi) == pytest.approx(percentile_interval(ratio, 0.95))


def _reference(
    with_arm: ArmOutcomes, without_arm: ArmOutcomes, seed: int, draws: int
) -> dict[str, object]:
    """Gain, arm scores and their percentile intervals, and the Monte Carlo p, computed the
    straightforward way: one resample (or sign pattern) at a time over the per-task scores."""
    tasks = sorted(set(with_arm.tasks) & set(without_arm.tasks))
    sw = np.array([with_arm.tasks[t].successes / with_arm.tasks[t].valid for t in tasks])
    swo = np.array([without_arm.tasks[t].successes / without_arm.tasks[t].valid for t in tasks])
    d = sw - swo
    rng = np.random.default_rng([seed, stable_int("bootstrap", "task", *tasks)])
    picks = rng.integers(0, len(tasks), size=(draws, len(tasks)))
    gains, withs, withouts = (np.array([x[row].mean() for row in picks]) for x in (d, sw, swo))
    flips = np.random.default_rng([seed, stable_int("flip", "task", *tasks)])
    flags = flips.integers(0, 2, size=(draws, len(tasks)))
    hits = sum(float(np.sum(np.where(f == 1, -d, d))) <= d.sum() + 1e-9 for f in flags)
    return {
        "gain": d.mean(),
        "gain_ci": percentile_interval(gains, 0.95),
        "score_with_ci": percentile_interval(withs, 0.95),
        "score_without_ci": percentile_interval(withouts, 0.95),
        "p": (1 + hits) / (draws + 1),
    }


def test_the_fast_path_matches_a_straightforward_reference() -> None:
    rng = np.random.default_rng(12)
    arms = []
    for n in range(4):
        p = rng.uniform(0.1, 0.8, 40)
        arms.append((_simulated(rng, p + 0.1 * (n - 1), 3), _simulated(rng, p, 3)))
    # Every cell in one call (shared counts and sign patterns) and each against the reference.
    cells = cells_metrics([pair_arms(*a) for a in arms], [None] * 4, bootstrap=1000, seed=3)
    for m, a in zip(cells, arms, strict=True):
        ref = _reference(*a, seed=3, draws=1000)
        assert m.p_negative_method == "monte_carlo"
        assert m.gain == pytest.approx(ref["gain"], abs=1e-12)
        for field in ("gain_ci", "score_with_ci", "score_without_ci"):
            got = getattr(m, field)
            assert (got.lo, got.hi) == pytest.approx(ref[field], abs=1e-12), field
        assert m.p_negative == pytest.approx(ref["p"])


def test_a_cell_does_not_depend_on_the_cells_computed_beside_it() -> None:
    rng = np.random.default_rng(13)
    p = rng.uniform(0.2, 0.7, 30)
    arms = [(_simulated(rng, p + e, 3), _simulated(rng, p, 3)) for e in (0.2, 0.0, -0.1)]
    alone = cell_metrics(*arms[0], bootstrap=1000, seed=4)
    together = cells_metrics([pair_arms(*a) for a in arms], [None] * 3, bootstrap=1000, seed=4)
    assert together[0] == alone
    assert together[1] != alone


def test_leave_one_out_on_a_hand_computed_cell() -> None:
    # Two families: f1 tasks with differences (1, 0, 1), f2 tasks (-1, 0): gain 1/5.
    family = {"a": "f1", "b": "f1", "c": "f1", "d": "f2", "e": "f2"}
    w = {"a": ["success"], "b": ["failure"], "c": ["success"], "d": ["failure"], "e": ["failure"]}
    wo = {"a": ["failure"], "b": ["failure"], "c": ["failure"], "d": ["success"], "e": ["failure"]}
    m = cell_metrics(_arm(w, family), _arm(wo, family), bootstrap=200, seed=0)
    # Leave out f1: -1/2 over d, e; leave out f2: 2/3 over a, b, c.
    assert m.gain == pytest.approx(0.2)
    assert (m.loo.unit, m.loo.sign_stable) == ("family", False)
    assert (m.loo.min_gain, m.loo.max_gain) == pytest.approx((-0.5, 2 / 3))
    one = cell_metrics(_arm(w), _arm(wo), bootstrap=200, seed=0)
    # One family: tasks are left out one at a time; leaving out d gives 2/4.
    assert one.loo.unit == "task"
    assert (one.loo.min_gain, one.loo.max_gain) == pytest.approx((0.0, 0.5))
    assert not one.loo.sign_stable
    stable = {t: ["success"] for t in "abcd"}
    m = cell_metrics(_arm(stable), _arm({t: ["failure"] for t in "abcd"}), bootstrap=200, seed=0)
    assert m.loo == LeaveOneOut(unit="task", min_gain=1.0, max_gain=1.0, sign_stable=True)
    single = cell_metrics(_arm({"a": ["success"]}), _arm({"a": ["failure"]}), bootstrap=200, seed=0)
    assert single.loo == LeaveOneOut(unit="task", min_gain=1.0, max_gain=1.0, sign_stable=False)


def test_arm_score_intervals_follow_the_gain_s_method() -> None:
    m = cell_metrics(_arm(WITH), _arm(WITHOUT), bootstrap=1000, seed=0)
    # Three tasks, t-interval over the with-arm task scores (2/3, 1, 0), clipped to [0, 1].
    half = student_t_quantile(0.95, 2) * np.std([2 / 3, 1, 0], ddof=1) / math.sqrt(3)
    assert (m.score_with_ci.lo, m.score_with_ci.hi) == pytest.approx((0.0, min(1.0, 5 / 9 + half)))
    assert m.score_without_ci.lo == 0.0
    rng = np.random.default_rng(14)
    p = rng.uniform(0.3, 0.6, 30)
    big = cell_metrics(_simulated(rng, p + 0.2, 3), _simulated(rng, p, 3), bootstrap=1000, seed=0)
    assert big.interval_method == "percentile_bootstrap"
    for ci, score in (
        (big.score_with_ci, big.score_with),
        (big.score_without_ci, big.score_without),
    ):
        assert 0.0 <= ci.lo < score < ci.hi <= 1.0


def test_threshold_gates_hold_at_their_exact_thresholds() -> None:
    # Baseline 27 of 30 tasks, a score of 0.9 up to rounding: at the ceiling; the same arm with
    # artifacts has a gain of exactly 0, an interval inside +-0.05: obsolete.
    base = {f"t{i}": ["success" if i < 27 else "failure"] for i in range(30)}
    m = cell_metrics(_arm(base), _arm(base), bootstrap=500, seed=0)
    assert m.score_without == pytest.approx(0.9) and m.ceiling
    assert (m.gain_ci.lo, m.gain_ci.hi) == (0.0, 0.0) and m.obsolete
    below = {f"t{i}": ["success" if i < 26 else "failure"] for i in range(30)}
    assert not cell_metrics(_arm(below), _arm(below), bootstrap=500, seed=0).ceiling
