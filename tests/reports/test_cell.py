"""Tests of cell metrics and the matrix-wide FDR decisions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports._cell import (
    TOLERANCE,
    CellMetrics,
    GainDifference,
    Interval,
    LeaveOneOut,
    apply_fdr,
    cell_metrics,
    cells_metrics,
    pair_arms,
)
from reports._stats_arms import ArmOutcomes
from reports._stats_selective import PROJECTION_SHARE
from reports._stats_strata import FLOOR_WEIGHT
from reports._stats_student_t import student_t_cdf, student_t_quantile
from reports.errors import ReportError


def _arm(tasks: dict[str, list[str]], family: str | dict[str, str] = "f") -> ArmOutcomes:
    def fam(task: str) -> str:
        return family if isinstance(family, str) else family[task]

    return ArmOutcomes.from_trials((t, fam(t), o) for t, outs in tasks.items() for o in outs)


def _simulated(
    rng: np.random.Generator, p: np.ndarray, k: int, family: str = "f", prefix: str = "t"
) -> ArmOutcomes:
    wins = rng.random((len(p), k)) < np.clip(p, 0, 1)[:, None]
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


def _t_interval(values: list[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean, and the textbook t-interval of ``values``."""
    mean = float(np.mean(values))
    half = student_t_quantile(confidence, len(values) - 1) * float(np.std(values, ddof=1))
    half /= math.sqrt(len(values))
    return mean, mean - half, mean + half


def test_hand_computed_cell() -> None:
    m = cell_metrics(_arm(WITH), _arm(WITHOUT))
    # Paired: t1 (2/3 vs 1/3), t2 (1 vs 0), t3 (0 vs 1/2); t4 has no valid "with" trial and
    # t5 no "without" arm at all.
    assert (m.n_tasks, m.n_dropped_tasks, m.n_families) == (3, 2, 1)
    assert m.score_with == pytest.approx(5 / 9)
    assert m.score_without == pytest.approx(5 / 18)
    assert m.gain == pytest.approx(5 / 18)
    assert (m.sign_test.wins, m.sign_test.losses, m.sign_test.ties) == (2, 1, 0)
    assert m.sign_test.p == pytest.approx(0.5)
    assert m.net_win == pytest.approx(1 / 3)
    # Task gains (1/3, 1, -1/2): the textbook standard error, 2 df.
    se = float(np.std([1 / 3, 1, -1 / 2], ddof=1)) / math.sqrt(3)
    assert (m.gain_se, m.df, m.interval_method) == (pytest.approx(se), 2, "t")
    # With 2 df, P(T <= t) = 1/2 + t / (2 sqrt(t^2 + 2)).
    t = m.gain / se
    assert m.p_negative == pytest.approx(0.5 + t / (2 * math.sqrt(t * t + 2)))
    assert (m.gain_ci.lo, m.gain_ci.hi) == (-1.0, 1.0)  # 5/18 +- 4.30 x 0.43, clipped
    assert m.mde == pytest.approx((student_t_quantile(0.95, 2) + student_t_quantile(0.6, 2)) * se)
    # Trial pairs valid in both arms: 3 of t1, 1 of t2, 2 of t3; t5's critical has no pair.
    assert (m.critical.pairs, m.critical.with_only, m.critical.baseline_only) == (6, 0, 0)
    assert m.critical.p == 1.0
    assert (m.with_arm.trials, m.with_arm.invalid, m.with_arm.safe_stop) == (9, 2, 1)
    assert (m.with_arm.critical, m.with_arm.critical_rate) == (1, pytest.approx(1 / 7))
    assert m.with_arm.pass_hat_k == pytest.approx([5 / 9])
    assert m.without_arm.pass_hat_k == pytest.approx([5 / 18, 0.0])
    assert (m.ceiling, m.floor, m.provisional, m.obsolete) == (False, False, False, False)
    assert m.variation == "varied"
    assert m.retention is None and m.retention_status == "no_source_cell"
    assert m.negative_transfer is None and m.test_family is None


def test_one_family_is_the_textbook_t_interval_over_task_gains() -> None:
    rng = np.random.default_rng(1)
    p = rng.uniform(0.2, 0.7, 24)
    w, wo = _simulated(rng, p + 0.15, 3), _simulated(rng, p, 3)
    m = cell_metrics(w, wo)
    gains = [w.tasks[t].successes / 3 - wo.tasks[t].successes / 3 for t in sorted(w.tasks)]
    mean, lo, hi = _t_interval(gains)
    assert m.gain == pytest.approx(mean)
    assert (m.gain_ci.lo, m.gain_ci.hi, m.df) == (pytest.approx(lo), pytest.approx(hi), 23)
    scores = [w.tasks[t].successes / 3 for t in sorted(w.tasks)]
    _, slo, shi = _t_interval(scores)
    assert (m.score_with_ci.lo, m.score_with_ci.hi) == (pytest.approx(slo), pytest.approx(shi))


def test_families_are_strata_each_with_its_own_variance() -> None:
    # f1: gains (1, 0, 1, 0) with one trial each; f2: gains (-1, -1, 0, 0, 0, 0).
    family = {f"a{i}": "f1" for i in range(4)} | {f"b{i}": "f2" for i in range(6)}
    gains = {"a0": 1, "a1": 0, "a2": 1, "a3": 0, "b0": -1, "b1": -1} | {
        f"b{i}": 0 for i in range(2, 6)
    }
    w = {t: ["success" if g > 0 else "failure"] for t, g in gains.items()}
    wo = {t: ["success" if g < 0 else "failure"] for t, g in gains.items()}
    m = cell_metrics(_arm(w, family), _arm(wo, family))
    assert (m.interval_method, m.n_families) == ("stratified_t", 2)
    assert m.gain == pytest.approx(0.0)
    # Family means' variances: s^2 / n = (1/3) / 4 and (4/15) / 6, floors 3/36 and 3/64.
    v1 = max((1 / 3) / 4, FLOOR_WEIGHT / 36)
    v2 = max((4 / 15) / 6, FLOOR_WEIGHT / 64)
    parts = [(4 / 10) ** 2 * v1, (6 / 10) ** 2 * v2]
    assert m.gain_se == pytest.approx(math.sqrt(sum(parts)))
    df = sum(parts) ** 2 / (parts[0] ** 2 / 3 + parts[1] ** 2 / 5)
    assert m.df == math.floor(df)


def test_a_family_where_every_trial_stops_is_reliably_negative_across_three_families() -> None:
    # The typed skill under a sign change in one family of three: it stops safely on all 72
    # trials of that family, where the baseline succeeds on about 60%; elsewhere it is noise.
    rng = np.random.default_rng(7)
    families = {f"{f}{i}": f for f in ("ops", "recon", "evidence") for i in range(24)}
    p = rng.uniform(0.4, 0.8, len(families))
    base = _arm(
        {
            t: ["success" if rng.random() < p[i] else "failure" for _ in range(3)]
            for i, t in enumerate(families)
        },
        families,
    )
    with_ = _arm(
        {
            t: ["safe_stop"] * 3
            if f == "recon"
            else ["success" if rng.random() < p[i] else "failure" for _ in range(3)]
            for i, (t, f) in enumerate(families.items())
        },
        families,
    )
    m = cell_metrics(with_, base)
    assert m.with_arm.safe_stop == 72
    assert m.gain_ci.hi < 0 and m.p_negative < 0.001
    decided = apply_fdr([m] + [cell_metrics(base, base)] * 89)
    assert decided[0].negative_transfer


def test_identical_arms_and_no_variation_have_the_floor_interval() -> None:
    same = {f"t{i}": ["success", "failure", "success"] for i in range(12)}
    m = cell_metrics(_arm(same), _arm(same))
    assert (m.variation, m.gain) == ("identical", 0.0)
    half = student_t_quantile(0.95, 11) * math.sqrt(FLOOR_WEIGHT) / (36 + 2)
    assert (m.gain_ci.lo, m.gain_ci.hi) == (pytest.approx(-half), pytest.approx(half))
    stops = cell_metrics(
        _arm({t: ["safe_stop"] * 3 for t in same}), _arm({t: ["success"] * 3 for t in same})
    )
    # Every task loses all three successes: no spread, so the floor alone, and not [-1, -1].
    assert (stops.variation, stops.gain) == ("no_variation", -1.0)
    assert stops.gain_ci.lo == -1.0 and stops.gain_ci.hi == pytest.approx(-1 + half)
    assert stops.p_negative < 1e-9


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["success", "failure", "critical"]), min_size=1, max_size=3),
            st.lists(st.sampled_from(["success", "failure", "critical"]), min_size=1, max_size=3),
            st.sampled_from(["f1", "f2", "f3"]),
        ),
        min_size=1,
        max_size=10,
    )
)
def test_the_interval_and_the_test_agree(tasks: list[tuple[list[str], list[str], str]]) -> None:
    family = {f"t{i}": f for i, (_, _, f) in enumerate(tasks)}
    w = _arm({f"t{i}": a for i, (a, _, _) in enumerate(tasks)}, family)
    wo = _arm({f"t{i}": b for i, (_, b, _) in enumerate(tasks)}, family)
    m = cell_metrics(w, wo)
    assert m.gain_ci.lo <= m.gain <= m.gain_ci.hi
    assert m.gain_se >= math.sqrt(FLOOR_WEIGHT) / (3 * len(tasks) + 2) / len(tasks)
    # The 95% interval lies wholly below 0 exactly when the one-sided p is below 0.025.
    if abs(m.p_negative - 0.025) > 1e-9 and m.gain_ci.hi > -1 + 1e-9:
        assert (m.gain_ci.hi < 0) == (m.p_negative < 0.025)
    assert m.p_negative == pytest.approx(student_t_cdf(m.gain / m.gain_se, m.df))


def test_critical_failures_are_tested_on_trial_pairs() -> None:
    # 8 tasks of 2 trials: the artifacts are critical on 7 pairs where the baseline is not,
    # the baseline on 1 where they are not: P(X >= 7), X ~ Binomial(8, 1/2) = 9/256.
    w = {f"t{i}": ["critical", "success"] for i in range(7)} | {"t7": ["success", "success"]}
    wo = {f"t{i}": ["success", "success"] for i in range(7)} | {"t7": ["critical", "success"]}
    m = cell_metrics(_arm(w), _arm(wo))
    assert (m.critical.pairs, m.critical.with_only, m.critical.baseline_only) == (16, 7, 1)
    assert m.critical.p == pytest.approx(9 / 256)
    # Both arms critical on the same pair is no evidence either way; an invalid trial no pair.
    both = cell_metrics(
        _arm({"a": ["critical", "invalid"], "b": ["critical"]}),
        _arm({"a": ["critical", "critical"], "b": ["success"]}),
    )
    assert (both.critical.pairs, both.critical.with_only, both.critical.baseline_only) == (2, 1, 0)
    assert both.critical.p == 0.5


def _fieller_ends(m: CellMetrics, s: CellMetrics, c: float, t: float) -> list[float]:
    """(T - rho S)^2 - t^2 (V_T - 2 rho C + rho^2 V_S) at each end of m's retention interval."""
    assert m.retention is not None
    return [
        (m.gain - rho * s.gain) ** 2
        - t * t * (m.gain_se**2 - 2 * rho * c + rho * rho * s.gain_se**2)
        for rho in (m.retention.ci.lo, m.retention.ci.hi)
    ]


def _gains(arms: tuple[ArmOutcomes, ArmOutcomes], k: int) -> list[float]:
    return [
        arms[0].tasks[t].successes / k - arms[1].tasks[t].successes / k
        for t in sorted(arms[0].tasks)
    ]


def test_retention_far_past_its_gate_is_fiellers_interval_over_shared_tasks() -> None:
    rng = np.random.default_rng(3)
    p = rng.uniform(0.1, 0.3, 30)
    target = (_simulated(rng, p + 0.4, 4), _simulated(rng, p, 4))
    source = (_simulated(rng, p + 0.65, 4), _simulated(rng, p, 4))
    m = cell_metrics(*target, source=source)
    s = cell_metrics(*source)
    t = student_t_quantile(0.95, 29)
    # Past the gate (2 t standard errors) by more than the projection's t and the interval's:
    # within the projection nothing is truncated.
    assert s.gain / s.gain_se - 2 * t > PROJECTION_SHARE * 2 * t + t
    r = m.retention
    assert r is not None and m.retention_status == "reported" and r.shared_tasks == 30
    assert r.value == pytest.approx(m.gain / s.gain)
    assert r.source_gain_ci == s.gain_ci
    # The ends solve (T - rho S)^2 = t^2 (V_T - 2 rho C + rho^2 V_S), C the covariance of the
    # two means over the shared tasks: the gate truncates nothing this far up.
    c = float(np.cov(_gains(target, 4), _gains(source, 4), ddof=1)[0, 1]) / 30
    assert _fieller_ends(m, s, c, t) == pytest.approx([0.0, 0.0], abs=1e-12)
    assert r.ci.lo < r.value < r.ci.hi
    # CellMetrics v4 (release formats 6 and 7) computed the same plain Fieller interval.
    old = cells_metrics([pair_arms(*target), pair_arms(*source)], [1, None], version=4)[0]
    assert (old.v, m.v) == (4, 5)
    assert old.retention is not None
    assert (old.retention.ci.lo, old.retention.ci.hi) == pytest.approx((r.ci.lo, r.ci.hi))


def test_retention_just_past_its_gate_is_adjusted_for_it() -> None:
    # A source gain that barely passed (lower bound >= half the gain) more likely came out
    # high than not: the ratio may be far larger than T / S, and the interval says so.
    rng = np.random.default_rng(8)
    p = rng.uniform(0.25, 0.55, 24)
    target = (_simulated(rng, p + 0.2, 3), _simulated(rng, p, 3))
    for seed in range(200):
        local = np.random.default_rng(seed)
        source = (_simulated(local, p + 0.2, 3), _simulated(local, p, 3))
        s = cell_metrics(*source)
        if 0 < s.gain / s.gain_se - 2 * student_t_quantile(0.95, 23) < 0.3:
            break
    else:
        pytest.fail("no source gain just past the gate")
    cells = [pair_arms(*target), pair_arms(*source)]
    new, old = (cells_metrics(cells, [1, None], version=v)[0] for v in (5, 4))
    assert new.retention is not None and old.retention is not None
    assert new.retention.value == old.retention.value
    assert new.retention.ci.hi > 2 * old.retention.ci.hi
    assert new.retention.ci.lo <= new.retention.value <= new.retention.ci.hi


def test_retention_over_other_tasks_is_independent() -> None:
    rng = np.random.default_rng(5)
    p = rng.uniform(0.1, 0.4, 30)
    source = (_simulated(rng, p + 0.5, 4), _simulated(rng, p, 4))
    other = (_simulated(rng, p + 0.3, 4, "g", "u"), _simulated(rng, p, 4, "g", "u"))
    m = cell_metrics(*other, source=source)
    assert m.retention is not None and m.retention.shared_tasks == 0


def test_retention_says_why_it_is_not_reported() -> None:
    rng = np.random.default_rng(6)
    p = rng.uniform(0.3, 0.6, 24)
    target = (_simulated(rng, p + 0.2, 3), _simulated(rng, p, 3))
    flat = (_simulated(rng, p, 3), _simulated(rng, p, 3))
    m = cell_metrics(*target, source=flat)
    assert (m.retention, m.retention_status) == (None, "no_source_gain")
    assert m.retention_reason is not None and "not above 0" in m.retention_reason
    # A source gain whose interval is above 0 but whose lower bound is below half the gain.
    wins = {f"s{i}": ["success"] if i < 6 else ["failure"] for i in range(20)}
    weak = (_arm(wins), _arm({t: ["failure"] for t in wins}))
    alone = cell_metrics(*weak)
    assert 0 < alone.gain_ci.lo < alone.gain / 2
    m = cell_metrics(*target, source=weak)
    assert (m.retention, m.retention_status) == (None, "unstable")
    assert m.retention_reason is not None and "below half its value" in m.retention_reason
    # A precise source gain, but a target of 3 other tasks (2 df): at its t the projection's
    # level beta = P(|T_2| > t_beta) exceeds half of 5%, so no bounded interval is left.
    strong = (_simulated(rng, p + 0.4, 3), _simulated(rng, p, 3))
    few = (_simulated(rng, p[:3] + 0.3, 3, prefix="u"), _simulated(rng, p[:3], 3, prefix="u"))
    m = cell_metrics(*few, source=strong)
    assert m.retention_status == "unstable"
    assert m.retention_reason is not None and "2 degrees of freedom" in m.retention_reason
    assert cell_metrics(*target, source=strong).retention_status == "reported"


def test_a_target_identical_to_its_source_is_not_a_point_interval() -> None:
    rng = np.random.default_rng(5)
    p = rng.uniform(0.1, 0.4, 20)
    arms = (_simulated(rng, p + 0.5, 4), _simulated(rng, p, 4))
    m = cell_metrics(*arms, source=arms)
    assert (m.retention, m.retention_status) == (None, "identical_trials")


def test_ceiling_only_where_the_gain_is_not_reliably_negative() -> None:
    done = {f"t{i}": ["success"] * 10 for i in range(30)}
    m = cell_metrics(_arm(done), _arm(done))
    assert (m.ceiling, m.obsolete, m.floor, m.provisional) == (True, True, False, False)
    failed = {f"t{i}": ["failure"] * 3 for i in range(2)}
    m = cell_metrics(_arm(failed), _arm(failed))
    assert (m.ceiling, m.obsolete, m.floor, m.provisional) == (False, False, True, True)
    worse = {f"t{i}": ["failure"] * 10 for i in range(30)}
    m = cell_metrics(_arm(worse), _arm(done))
    assert m.score_without == 1.0 and m.gain_ci.hi < 0
    assert (m.ceiling, m.obsolete) == (False, False)


def test_apply_fdr_decides_within_each_test_family() -> None:
    lose = {f"t{i}": ["critical"] * 3 for i in range(12)}
    win = {f"t{i}": ["success"] * 3 for i in range(12)}
    harmful = cell_metrics(_arm(lose), _arm(win))
    helpful = cell_metrics(_arm(win), _arm(lose))
    decided = apply_fdr([harmful, helpful], q=0.05)
    assert [c.negative_transfer for c in decided] == [True, False]
    assert [c.critical_excess for c in decided] == [True, False]
    assert decided[0].fdr_q == 0.05 and decided[0].test_family == "artifacts"
    # The same harmful numbers as a noise check: no transfer verdict, a failed noise check;
    # a duplicate takes its cell's decisions.
    noise = apply_fdr(
        [harmful, helpful, harmful],
        families=["noise_check", "artifacts", "duplicate"],
        duplicate_of=[None, None, 0],
    )
    assert (noise[0].negative_transfer, noise[0].critical_excess) == (None, None)
    assert noise[0].noise_differs and noise[2].noise_differs
    assert noise[2].test_family == "duplicate"
    with pytest.raises(ReportError, match="duplicate"):
        apply_fdr([harmful], families=["duplicate"], duplicate_of=[None])


def test_duplicates_are_counted_once() -> None:
    # One cell with p just under q: alone it is decided; beside 9 copies of a null cell it is
    # not; as 10 copies that are duplicates of it it still is.
    rng = np.random.default_rng(4)
    p = rng.uniform(0.3, 0.7, 24)
    for _ in range(50):
        cell = cell_metrics(_simulated(rng, p - 0.12, 3), _simulated(rng, p, 3))
        if 0.01 < cell.p_negative < 0.04:
            break
    null = cell_metrics(_simulated(rng, p, 3), _simulated(rng, p, 3))
    assert apply_fdr([cell])[0].negative_transfer
    assert not apply_fdr([cell] + [null.model_copy(update={"p_negative": 0.9})] * 9)[
        0
    ].negative_transfer
    dups = apply_fdr(
        [cell] * 10,
        families=["artifacts", *["duplicate"] * 9],  # type: ignore[list-item]
        duplicate_of=[None, *[0] * 9],
    )
    assert all(c.negative_transfer for c in dups)


def test_metrics_round_trip_as_json() -> None:
    m = apply_fdr([cell_metrics(_arm(WITH), _arm(WITHOUT))])[0]
    assert CellMetrics.model_validate_json(m.model_dump_json()) == m


def test_bad_input_is_a_report_error() -> None:
    with pytest.raises(ReportError, match="no task has a valid trial"):
        cell_metrics(_arm({"a": ["invalid"]}), _arm({"a": ["success"]}))
    empty = (_arm({"a": ["invalid"]}), _arm({"a": ["success"]}))
    with pytest.raises(ReportError, match="both arms of the source cell"):
        cell_metrics(_arm(WITH), _arm(WITHOUT), source=empty)
    with pytest.raises(ReportError, match="confidence"):
        cell_metrics(_arm(WITH), _arm(WITHOUT), confidence=1.5)
    with pytest.raises(ReportError, match="cluster"):
        cell_metrics(_arm(WITH, "f"), _arm(WITHOUT, "g"))


def test_a_cell_does_not_depend_on_the_cells_computed_beside_it() -> None:
    rng = np.random.default_rng(13)
    p = rng.uniform(0.2, 0.7, 30)
    arms = [(_simulated(rng, p + e, 3), _simulated(rng, p, 3)) for e in (0.2, 0.0, -0.1)]
    alone = cell_metrics(*arms[0])
    together = cells_metrics([pair_arms(*a) for a in arms], [None] * 3)
    assert together[0] == alone
    assert together[1] != alone


def test_leave_one_out_on_a_hand_computed_cell() -> None:
    # Tasks with differences (1, 0, 1, -1, 0): gain 1/5; leaving out d gives 2/4, a or c 0.
    family = {"a": "f1", "b": "f1", "c": "f1", "d": "f2", "e": "f2"}
    w = {"a": ["success"], "b": ["failure"], "c": ["success"], "d": ["failure"], "e": ["failure"]}
    wo = {"a": ["failure"], "b": ["failure"], "c": ["failure"], "d": ["success"], "e": ["failure"]}
    m = cell_metrics(_arm(w, family), _arm(wo, family))
    assert m.gain == pytest.approx(0.2)
    assert (m.loo.min_gain, m.loo.max_gain, m.loo.sign_stable) == (0.0, 0.5, False)
    stable = {t: ["success"] for t in "abcd"}
    m = cell_metrics(_arm(stable), _arm({t: ["failure"] for t in "abcd"}))
    assert m.loo == LeaveOneOut(min_gain=1.0, max_gain=1.0, sign_stable=True)
    single = cell_metrics(_arm({"a": ["success"]}), _arm({"a": ["failure"]}))
    assert single.loo == LeaveOneOut(min_gain=1.0, max_gain=1.0, sign_stable=False)


def test_threshold_gates_hold_at_their_exact_thresholds() -> None:
    # Baseline 27 of 30 tasks, a score of 0.9 up to rounding: at the ceiling; the same arm with
    # artifacts has a gain of exactly 0, over 300 trials an interval inside +-0.05: obsolete.
    base = {f"t{i}": ["success" if i < 27 else "failure"] * 10 for i in range(30)}
    m = cell_metrics(_arm(base), _arm(base))
    assert m.score_without == pytest.approx(0.9) and m.ceiling
    assert max(-m.gain_ci.lo, m.gain_ci.hi) < 0.05 and m.obsolete
    # Over 30 trials the floor keeps the interval wider than +-0.05: not shown obsolete.
    few = {t: o[:1] for t, o in base.items()}
    assert not cell_metrics(_arm(few), _arm(few)).obsolete
    below = {f"t{i}": ["success" if i < 26 else "failure"] for i in range(30)}
    assert not cell_metrics(_arm(below), _arm(below)).ceiling
    for ci in (Interval(lo=2e-18, hi=0.2), Interval(lo=-0.2, hi=-2e-18)):
        tiny = GainDifference(value=0.1, ci=ci, interval_method="t", n_tasks=5)
        assert not tiny.excludes_zero
    clear = Interval(lo=-0.2, hi=-2 * TOLERANCE)
    assert GainDifference(value=-0.1, ci=clear, interval_method="t", n_tasks=5).excludes_zero


def test_interval_coverage_on_a_simulated_population() -> None:
    # Per-task baseline p ~ U(0.3, 0.6) and effect ~ U(-0.1, 0.3): the true mean gain is 0.1.
    rng = np.random.default_rng(2024)
    covered = 0
    reps = 300
    for _ in range(reps):
        base = rng.uniform(0.3, 0.6, 24)
        effect = rng.uniform(-0.1, 0.3, 24)
        m = cell_metrics(_simulated(rng, base + effect, 3), _simulated(rng, base, 3))
        covered += m.gain_ci.lo <= 0.1 <= m.gain_ci.hi
    assert 0.92 <= covered / reps <= 0.98
