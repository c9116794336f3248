"""Fail-closed accounting: planned versus stored trials, valid, invalid and missing, per cell."""

from __future__ import annotations

from benchmark import default_cycle_spec_path
from conditions import CycleSpec
from runner import Batch, CellAccounting, TrialRecord, account, plan_phase
from submissions import reference_bundles
from tests.runner.test_store import make_record

SPEC = CycleSpec.load(default_cycle_spec_path())


def _plan() -> list[Batch]:
    return plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=[(SPEC.source.id, SPEC.source)],
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
    assert (a.expected, a.observed, a.valid, a.invalid, a.missing, a.unexpected) == (
        8,
        8,
        8,
        0,
        0,
        0,
    )
    assert a.complete and a.clean
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


def test_invalid_trials_are_observed_but_not_valid_so_complete_is_not_clean() -> None:
    batches = _plan()
    a = account("frozen", batches, _stored(batches, ["success", "invalid"] * 4))
    assert (a.observed, a.valid, a.invalid, a.missing) == (8, 4, 4, 0)
    assert a.complete and not a.clean
    assert a.outcomes == {"success": 4, "invalid": 4}


def test_cells_count_planned_valid_invalid_and_missing_per_condition_arm_and_bundle() -> None:
    batches = _plan()
    bundle = reference_bundles()[0].hash
    # plan order: the baseline's 4 trials, then the submission's 4
    a = account(
        "frozen",
        batches,
        _stored(batches, ["success", "invalid", "failure", "critical", "invalid", "success"]),
    )
    assert a.cells == (
        CellAccounting(
            condition_id=SPEC.source.id,
            arm="without",
            bundle_hash=None,
            planned=4,
            valid=3,
            invalid=1,
            missing=0,
        ),
        CellAccounting(
            condition_id=SPEC.source.id,
            arm="with",
            bundle_hash=bundle,
            planned=4,
            valid=1,
            invalid=1,
            missing=2,
        ),
    )
    assert (a.valid, a.invalid, a.missing) == (4, 2, 2) and not a.complete
    payload = a.as_json()
    assert payload["complete"] is False and payload["clean"] is False
    assert payload["cells"][1] == {
        "condition_id": SPEC.source.id,
        "arm": "with",
        "bundle_hash": bundle,
        "planned": 4,
        "valid": 1,
        "invalid": 1,
        "missing": 2,
    }


def test_cells_follow_the_labelled_condition_ids() -> None:
    keyed = plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=[("c-0123456789abcdef", SPEC.source)],
        bundles=[],
        tasks_per_split=2,
        k=1,
    )
    a = account("frozen", keyed, [])
    assert [(c.condition_id, c.arm, c.missing) for c in a.cells] == [
        ("c-0123456789abcdef", "without", 2)
    ]
