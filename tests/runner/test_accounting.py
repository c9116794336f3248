"""Fail-closed accounting: planned versus stored trials."""

from __future__ import annotations

from benchmark import default_cycle_spec_path
from conditions import CycleSpec
from runner import Batch, TrialRecord, account, plan_phase
from submissions import reference_bundles
from tests.runner.test_store import make_record

SPEC = CycleSpec.load(default_cycle_spec_path())


def _plan() -> list[Batch]:
    return plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=[SPEC.source],
        bundles=reference_bundles()[:1],
        tasks_per_split=2,
        k=2,
    )


def _stored(batches: list[Batch], outcomes: list[str]) -> list[TrialRecord]:
    keys = [t.key for b in batches for t in b.trials]
    return [make_record(key=k, outcome=o) for k, o in zip(keys, outcomes, strict=False)]


def test_complete_when_every_planned_trial_is_stored() -> None:
    batches = _plan()
    records = _stored(batches, ["success", "failure", "critical", "success"] * 2)
    a = account("frozen", batches, records)
    assert (a.expected, a.observed, a.missing, a.unexpected) == (8, 8, 0, 0)
    assert a.complete
    assert a.outcomes == {"success": 4, "failure": 2, "critical": 2}


def test_missing_trials_make_it_incomplete() -> None:
    batches = _plan()
    a = account("frozen", batches, _stored(batches, ["success"] * 5))
    assert (a.observed, a.missing, a.unexpected) == (5, 3, 0)
    assert not a.complete and a.outcomes == {"success": 5}


def test_unexpected_trials_make_it_incomplete_and_are_not_counted() -> None:
    batches = _plan()
    records = [*_stored(batches, ["success"] * 8), make_record(trial=99, outcome="critical")]
    a = account("frozen", batches, records)
    assert (a.observed, a.missing, a.unexpected) == (8, 0, 1)
    assert not a.complete and a.outcomes == {"success": 8}


def test_other_phases_are_ignored() -> None:
    batches = _plan()
    other = make_record(phase="adapted", trial=5)
    a = account("frozen", batches, [*_stored(batches, ["failure"] * 8), other])
    assert a.complete and a.outcomes == {"failure": 8}
    assert account("adapted", batches, [other]).unexpected == 1


def test_nothing_stored() -> None:
    a = account("frozen", _plan(), [])
    assert (a.expected, a.observed, a.missing) == (8, 0, 8) and a.outcomes == {}
