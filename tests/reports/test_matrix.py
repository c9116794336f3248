"""The matrix: cells from trial records, by what a condition is rather than its label, and the
test families its decisions are made in."""

from __future__ import annotations

import pytest

from benchmark import default_cycle_spec_path
from conditions import Condition, CycleSpec
from reports import Cell, build_matrix
from reports.errors import ReportError
from runner import TrialRecord
from tests.runner.test_store import make_record

SOURCE = CycleSpec.load(default_cycle_spec_path()).source
TARGET = Condition.model_validate(
    {**SOURCE.model_dump(), "model": {"model": "sim/acme-3", "version": "3"}}
)


def _records(source_id: str, target_id: str) -> list[TrialRecord]:
    """Six tasks × 2 trials per arm in both conditions, with mixed outcomes."""
    out = []
    for cid in (source_id, target_id):
        for task in range(6):
            for trial in range(2):
                for arm, bundle in (("without", None), ("with", "b" * 64)):
                    wins = task % 3 != 0 if arm == "with" else task % 2 == 0
                    out.append(
                        make_record(
                            condition_id=cid,
                            arm=arm,
                            bundle_hash=bundle,
                            submission="s@1" if bundle else None,
                            task_id=f"support_ops/sealed/{task}",
                            task_index=task,
                            trial=trial,
                            outcome="success" if wins or trial else "failure",
                        )
                    )
    return out


def _matrix(target_id: str, target: Condition = TARGET) -> dict[str, object]:
    cells = build_matrix(
        _records(SOURCE.id, target_id),
        conditions={SOURCE.id: SOURCE, target_id: target},
        source_id=SOURCE.id,
    )
    (cell,) = [c for c in cells if c.condition_id == target_id]
    return cell.metrics.model_dump()


def test_a_cell_does_not_depend_on_the_condition_s_keyed_id() -> None:
    # Two cycles commit the same condition under different keyed ids: same trials, same cell.
    assert _matrix("c-aaaaaaaaaaaaaaaa") == _matrix("c-bbbbbbbbbbbbbbbb")


def test_a_cell_does_not_depend_on_the_other_cells() -> None:
    # A third condition with another submission and other outcomes shares the cells' clusters
    # (and so their draws) but must not move any number of the first two conditions' cells.
    other = Condition.model_validate({**TARGET.model_dump(), "harness": "harness-v2"})
    conditions = {SOURCE.id: SOURCE, "c-aaaaaaaaaaaaaaaa": TARGET}
    records = _records(SOURCE.id, "c-aaaaaaaaaaaaaaaa")
    alone = build_matrix(records, conditions=conditions, source_id=SOURCE.id)
    more = [
        r.model_copy(update={"condition_id": "c-bbbbbbbbbbbbbbbb", "outcome": o})
        for r, o in zip(
            (r for r in records if r.condition_id != SOURCE.id),
            ["failure", "success", "success"] * len(records),
            strict=False,
        )
    ]
    crowded = build_matrix(
        records + more,
        conditions={**conditions, "c-bbbbbbbbbbbbbbbb": other},
        source_id=SOURCE.id,
    )
    assert len(crowded) == len(alone) + 1

    def undecided(cells: list[Cell]) -> dict[str, dict[str, object]]:
        return {
            c.condition_id: c.metrics.model_dump(exclude={"negative_transfer"})
            for c in cells
            if c.condition_id in conditions
        }

    assert undecided(crowded) == undecided(alone)


def test_a_target_identical_to_its_source_reports_it_rather_than_a_point_retention() -> None:
    # With artifacts every trial succeeds, without only the second: a gain of 1/2 on each task,
    # the same in the source and the target.
    records = [
        r.model_copy(update={"outcome": "success" if r.arm == "with" or r.trial else "failure"})
        for r in _records(SOURCE.id, "c-aaaaaaaaaaaaaaaa")
    ]
    (source, target) = sorted(
        build_matrix(
            records,
            conditions={SOURCE.id: SOURCE, "c-aaaaaaaaaaaaaaaa": TARGET},
            source_id=SOURCE.id,
        ),
        key=lambda c: c.condition_id != SOURCE.id,
    )
    assert source.metrics.retention_status == "no_source_cell"
    assert (target.metrics.retention, target.metrics.retention_status) == (
        None,
        "identical_trials",
    )


def _with_others(records: list[TrialRecord]) -> list[TrialRecord]:
    """``records`` plus a no-artifacts submission that copies the baseline's outcomes."""
    copies = [
        r.model_copy(update={"arm": "with", "bundle_hash": "n" * 64, "submission": "none@1"})
        for r in records
        if r.arm == "without"
    ]
    return records + copies


def test_noise_checks_are_decided_apart_from_the_artifact_cells() -> None:
    records = _with_others(_records(SOURCE.id, "c-aaaaaaaaaaaaaaaa"))
    conditions = {SOURCE.id: SOURCE, "c-aaaaaaaaaaaaaaaa": TARGET}
    cells = build_matrix(
        records, conditions=conditions, source_id=SOURCE.id, noise_checks={"n" * 64}
    )
    families = {(c.condition_id, c.submission): c.metrics.test_family for c in cells}
    assert set(families.values()) == {"artifacts", "noise_check"}
    for c in cells:
        m = c.metrics
        if m.test_family == "noise_check":
            assert (m.negative_transfer, m.critical_excess, m.noise_differs) == (
                None,
                None,
                False,
            )
            assert m.variation == "identical"
        else:
            assert m.negative_transfer is not None and m.noise_differs is None
    # The same cells without the noise checks named: the copies are artifact cells.
    plain = build_matrix(records, conditions=conditions, source_id=SOURCE.id)
    assert {c.metrics.test_family for c in plain} == {"artifacts"}


def test_records_of_an_unknown_condition_are_refused() -> None:
    with pytest.raises(ReportError, match="unknown conditions: c-cccccccccccccccc"):
        build_matrix(
            _records(SOURCE.id, "c-cccccccccccccccc"),
            conditions={SOURCE.id: SOURCE},
            source_id=SOURCE.id,
        )
