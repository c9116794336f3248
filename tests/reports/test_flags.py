"""Tests of a cell's flags: what they say happened, and how bad it is."""

from __future__ import annotations

from reports import (
    AdaptationCost,
    AdaptedCell,
    ArmOutcomes,
    Cell,
    Flag,
    GainDifference,
    Interval,
    LeaveOneOut,
    apply_fdr,
    cell_flags,
    cell_metrics,
)
from reports._flags import FLAG_MEANINGS, SEVERITIES

N = 12
"""Tasks per constructed cell."""
BASE = ["success"] * 10 + ["failure"] * 2
"""A baseline below the ceiling: losing its 10 successes is decided negative transfer."""


def _cell(
    with_outcomes: list[str],
    without_outcomes: list[str],
    *,
    families: int = 1,
    invalid: int = 0,
    dropped: int = 0,
    source: tuple[list[str], list[str]] | None = None,
) -> Cell:
    """A frozen cell of one trial per task, task i having outcome ``*_outcomes[i]`` in each arm,
    over ``families`` families; negative transfer decided by BH on this cell alone."""

    def arm(outcomes: list[str]) -> ArmOutcomes:
        return ArmOutcomes.from_trials(
            (f"t{i}", f"f{i % families}", o) for i, o in enumerate(outcomes)
        )

    src = (arm(source[0]), arm(source[1])) if source else None
    m = cell_metrics(arm(with_outcomes), arm(without_outcomes), bootstrap=200, seed=0, source=src)
    return Cell(
        phase="frozen",
        condition_id="c1",
        submission="s@1",
        bundle_hash="a" * 64,
        metrics=apply_fdr([m])[0],
        invalid_trials=invalid,
        dropped_tasks=dropped,
    )


def _codes(cell: Cell) -> list[str]:
    return [f.code for f in cell_flags(cell)]


def _flag(cell: Cell, code: str) -> Flag:
    (flag,) = [f for f in cell_flags(cell) if f.code == code]
    return flag


def test_a_loss_made_of_safe_stops_is_not_a_wrong_action() -> None:
    cell = _cell(["safe_stop"] * N, BASE)
    assert cell.metrics.negative_transfer
    assert _codes(cell) == ["negative-safe-stops"]
    flag = _flag(cell, "negative-safe-stops")
    assert (flag.label, flag.severity) == ("negative: stops safely", "caution")
    assert "12 with the artifacts, 0 without" in flag.explanation
    assert "p_neg = 0.005" in flag.explanation


def test_a_loss_made_of_critical_failures_is_wrong_actions_and_critical() -> None:
    cell = _cell(["critical"] * N, BASE)
    assert _codes(cell) == ["critical", "negative-wrong-actions"]
    critical = _flag(cell, "critical")
    assert (critical.label, critical.severity) == ("CRITICAL 12 (base 0)", "critical")
    assert "12 of 12 trials with the artifacts" in critical.explanation
    assert "against 0 of 12 without" in critical.explanation
    wrong = _flag(cell, "negative-wrong-actions")
    assert wrong.severity == "negative"
    assert (
        "caused wrong actions: 12 critical trials with them against 0 without" in wrong.explanation
    )


def test_a_loss_made_of_plain_failures_is_wrong_actions_without_critical() -> None:
    cell = _cell(["failure"] * N, BASE)
    assert _codes(cell) == ["negative-wrong-actions"]
    explanation = _flag(cell, "negative-wrong-actions").explanation
    assert "most of the loss is failed trials, not safe stops (safe stops 0 with" in explanation


def test_a_few_safe_stops_do_not_excuse_a_loss_of_failures() -> None:
    cell = _cell(["safe_stop"] * 2 + ["failure"] * (N - 2), BASE)
    assert _codes(cell) == ["negative-wrong-actions", "safe-stops"]
    assert _flag(cell, "safe-stops").label == "safe stops 2"


def test_the_baselines_own_critical_failures_are_not_labelled_critical() -> None:
    none_with = _cell(["success"] * N, ["critical"] * 3 + ["success"] * (N - 3))
    assert "critical" not in _codes(none_with)
    flag = _flag(none_with, "baseline-critical")
    assert (flag.label, flag.severity) == ("baseline critical 3", "info")
    assert "in 3 of 12 trials; with the artifacts 0 of 12 did" in flag.explanation
    as_many = _cell(["critical"] * 3 + ["success"] * (N - 3), ["critical"] * 3 + ["success"] * 9)
    assert _codes(as_many) == ["baseline-critical"]
    assert _flag(as_many, "baseline-critical").severity == "caution"
    more = _cell(["critical"] * 4 + ["success"] * (N - 4), ["critical"] * 3 + ["success"] * 9)
    assert _flag(more, "critical").label == "CRITICAL 4 (base 3)"
    assert "baseline-critical" not in _codes(more)


def test_invalid_and_dropped_counts_are_flagged_when_not_zero() -> None:
    assert _codes(_cell(BASE, BASE)) == []
    flag = _flag(_cell(["success"] * N, ["failure"] * N, invalid=3, dropped=1), "invalid")
    assert (flag.label, flag.severity) == ("invalid 3, dropped 1", "caution")
    assert flag.explanation.startswith("3 trials of the two arms failed for infrastructure")


def test_few_families_provisional_floor_and_ceiling() -> None:
    few = _cell(["success"] * N, ["failure"] * N, families=4)
    assert _flag(few, "few-families").label == "† 4 families"
    assert "1/2^4" in _flag(few, "few-families").explanation
    assert _codes(_cell(["success"] * N, ["failure"] * N, families=5)) == []
    assert _codes(_cell(["success"] * 2, ["failure"] * 2)) == ["provisional"]
    assert _codes(_cell(["failure"] * N, ["failure"] * N)) == ["floor"]
    assert _codes(_cell(["success"] * N, ["success"] * N)) == ["obsolete"]
    assert _codes(_cell(["success"] * N, ["success"] * (N - 1) + ["failure"])) == ["ceiling"]


def test_retention_not_reported_says_why_but_not_in_a_source_cell() -> None:
    weak_source = (["success"] * 6 + ["failure"] * 6, ["failure"] * 6 + ["success"] * 6)
    cell = _cell(["success"] * 6 + ["failure"] * 6, ["failure"] * N, source=weak_source)
    flag = _flag(cell, "no-retention")
    assert (flag.label, flag.severity) == ("retention n/a", "info")
    assert "not above 0" in flag.explanation
    strong_source = (["success"] * N, ["failure"] * N)
    assert _codes(_cell(["success"] * N, ["failure"] * N, source=strong_source)) == []


def test_a_leak_flagged_adaptation_is_critical_and_first() -> None:
    frozen = _cell(["safe_stop"] * N, BASE)
    adaptation = AdaptedCell(
        adapted_hash="b" * 64,
        procedure="rebind-skills",
        reused=False,
        frozen_gain=-1.0,
        difference=GainDifference(
            value=0.0, ci=Interval(lo=0.0, hi=0.0), interval_method="cluster_t", n_tasks=N
        ),
        cost=AdaptationCost(calls=1, tokens=10, milliseconds=1, human_minutes=0),
        cost_to_restore=None,
        leak_flagged=True,
    )
    cell = frozen.model_copy(update={"phase": "adapted", "adaptation": adaptation})
    assert _codes(cell) == ["leak", "negative-safe-stops"]
    assert _flag(cell, "leak").severity == "critical"


def test_flags_come_worst_first_with_one_sentence_each() -> None:
    cell = _cell(["critical"] * 6 + ["safe_stop"] * 6, BASE, families=4, invalid=2, dropped=1)
    flags = cell_flags(cell)
    ranks = [SEVERITIES.index(f.severity) for f in flags]
    assert ranks == sorted(ranks) and len(flags) >= 4
    for f in flags:
        assert f.explanation.endswith(".") and f.explanation.count(". ") == 0, f.explanation


def test_a_decided_gain_resting_on_one_cluster_is_fragile() -> None:
    cell = _cell(["success"] * N, ["failure"] * N)
    assert cell.metrics.gain_ci.lo > 0 and cell.metrics.loo.sign_stable
    assert "fragile" not in _codes(cell)
    loo = LeaveOneOut(unit="family", min_gain=-0.02, max_gain=0.4, sign_stable=False)
    fragile = cell.model_copy(update={"metrics": cell.metrics.model_copy(update={"loo": loo})})
    flag = _flag(fragile, "fragile")
    assert (flag.label, flag.severity) == ("fragile", "caution")
    assert "between -0.02 and +0.40" in flag.explanation
    undecided = _cell(["success"] * 6 + ["failure"] * 6, ["failure"] * 5 + ["success"] * 7)
    assert undecided.metrics.gain_ci.lo < 0 < undecided.metrics.gain_ci.hi
    metrics = undecided.metrics.model_copy(update={"loo": loo})
    assert "fragile" not in _codes(undecided.model_copy(update={"metrics": metrics}))


def test_every_flag_code_has_a_general_meaning() -> None:
    cells = [
        _cell(["critical"] * 6 + ["safe_stop"] * 6, BASE, families=4, invalid=2, dropped=1),
        _cell(["safe_stop"] * N, BASE),
        _cell(["success"] * N, ["success"] * N),
        _cell(["failure"] * N, ["failure"] * N),
        _cell(["success"] * 2, ["failure"] * 2),
    ]
    codes = {f.code for c in cells for f in cell_flags(c)}
    assert len(codes) >= 8 and codes <= FLAG_MEANINGS.keys()
