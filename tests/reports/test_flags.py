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
from reports._cell import TestFamily
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
    family: TestFamily = "artifacts",
) -> Cell:
    """A frozen cell of one trial per task, task i having outcome ``*_outcomes[i]`` in each arm,
    over ``families`` families; its tests decided by BH on this cell alone (in ``family``)."""

    def arm(outcomes: list[str]) -> ArmOutcomes:
        return ArmOutcomes.from_trials(
            (f"t{i}", f"f{i % families}", o) for i, o in enumerate(outcomes)
        )

    src = (arm(source[0]), arm(source[1])) if source else None
    m = cell_metrics(arm(with_outcomes), arm(without_outcomes), source=src)
    return Cell(
        phase="frozen",
        condition_id="c1",
        submission="s@1",
        bundle_hash="a" * 64,
        metrics=apply_fdr([m], families=[family])[0],
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
    assert "p_neg = 1.6e-05" in flag.explanation


def test_a_loss_made_of_critical_failures_is_wrong_actions_and_critical() -> None:
    cell = _cell(["critical"] * N, BASE)
    assert _codes(cell) == ["critical", "negative-wrong-actions"]
    critical = _flag(cell, "critical")
    assert (critical.label, critical.severity) == ("CRITICAL 12 (base 0)", "critical")
    assert "12 of 12 trials with the artifacts" in critical.explanation
    assert "against 0 of 12 without" in critical.explanation
    assert "12 were critical only with the artifacts and 0 only without" in critical.explanation
    assert "p = 0.00024" in critical.explanation
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
    assert _codes(as_many) == ["baseline-critical", "identical"]
    assert _flag(as_many, "baseline-critical").severity == "caution"
    # One more critical trial than the baseline is not evidence: counted, not CRITICAL.
    more = _cell(["critical"] * 4 + ["success"] * (N - 4), ["critical"] * 3 + ["success"] * 9)
    assert "critical" not in _codes(more) and "baseline-critical" not in _codes(more)
    flag = _flag(more, "more-critical")
    assert (flag.label, flag.severity) == ("critical 4 (base 3) n.s.", "caution")
    assert "p = 0.5, not significant by Benjamini-Hochberg" in flag.explanation


def test_invalid_and_dropped_counts_are_flagged_when_not_zero() -> None:
    assert _codes(_cell(BASE, BASE)) == ["identical"]
    assert _codes(_cell(BASE, BASE[::-1])) == []
    flag = _flag(_cell(["success"] * N, ["failure"] * N, invalid=3, dropped=1), "invalid")
    assert (flag.label, flag.severity) == ("invalid 3, dropped 1", "caution")
    assert flag.explanation.startswith("3 trials of the two arms failed for infrastructure")


def test_provisional_floor_ceiling_and_degenerate_trials() -> None:
    assert _codes(_cell(["success"] * N, ["failure"] * N, families=4)) == ["no-variation"]
    assert _codes(_cell(["success"] * 2, ["failure"] * 2)) == ["provisional", "no-variation"]
    assert _codes(_cell(["failure"] * N, ["failure"] * N)) == ["floor", "identical"]
    # Identical trials at the ceiling: with 12 trials the floor keeps the interval wider than
    # +-0.05, so the cell says so instead of a bare [0, 0].
    assert _codes(_cell(["success"] * N, ["success"] * N)) == ["ceiling", "identical"]
    identical = _flag(_cell(["success"] * N, ["success"] * N), "identical")
    assert "the interval ±0.27 is the floor of its standard error" in identical.explanation
    assert _codes(_cell(["success"] * N, ["success"] * (N - 1) + ["failure"])) == ["ceiling"]


def test_no_ceiling_on_a_reliably_negative_gain() -> None:
    cell = _cell(["failure"] * N, ["success"] * N)
    assert cell.metrics.score_without == 1.0 and cell.metrics.gain_ci.hi < 0
    assert "ceiling" not in _codes(cell)
    assert _codes(cell)[0] == "negative-wrong-actions"


def test_a_noise_check_gets_no_transfer_verdict_but_its_own_flag() -> None:
    cell = _cell(["failure"] * N, BASE, family="noise_check")
    assert cell.metrics.negative_transfer is None and cell.metrics.noise_differs
    assert _codes(cell) == ["noise-check-failed", "no-variation"] or _codes(cell)[0] == (
        "noise-check-failed"
    )
    assert _flag(cell, "noise-check-failed").severity == "negative"
    quiet = _cell(BASE, BASE, family="noise_check")
    assert quiet.metrics.noise_differs is False and _codes(quiet) == ["identical"]


def test_retention_not_reported_says_why_but_not_in_a_source_cell() -> None:
    weak_source = (["success"] * 6 + ["failure"] * 6, ["failure"] * 6 + ["success"] * 6)
    cell = _cell(["success"] * 6 + ["failure"] * 6, ["failure"] * N, source=weak_source)
    flag = _flag(cell, "no-retention")
    assert (flag.label, flag.severity) == ("retention n/a", "info")
    assert "not above 0" in flag.explanation
    imprecise = (["success"] * 4 + ["failure"] * 8, ["failure"] * N)
    cell = _cell(["success"] * 6 + ["failure"] * 6, ["failure"] * N, source=imprecise)
    assert _flag(cell, "unstable").label == "retention unstable"
    strong_source = (["success"] * 11 + ["failure"], ["failure"] * N)
    assert (
        _codes(_cell(["success"] * 9 + ["failure"] * 3, ["failure"] * N, source=strong_source))
        == []
    )
    same = _cell(["success"] * 11 + ["failure"], ["failure"] * N, source=strong_source)
    assert _flag(same, "retention-identical").label == "ret = 1 (identical)"


def test_a_leak_flagged_adaptation_is_critical_and_first() -> None:
    frozen = _cell(["safe_stop"] * N, BASE)
    adaptation = AdaptedCell(
        adapted_hash="b" * 64,
        procedure="rebind-skills",
        reused=False,
        frozen_gain=-1.0,
        difference=GainDifference(
            value=0.0, ci=Interval(lo=-0.1, hi=0.1), interval_method="t", n_tasks=N
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
    loo = LeaveOneOut(min_gain=-0.02, max_gain=0.4, sign_stable=False)
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
        _cell(["critical"] * 4 + ["success"] * 8, ["critical"] * 3 + ["success"] * 9),
        _cell(["failure"] * N, BASE, family="noise_check"),
    ]
    codes = {f.code for c in cells for f in cell_flags(c)}
    assert len(codes) >= 10 and codes <= FLAG_MEANINGS.keys()
