"""The matrix: cells from trial records, seeded by what a condition is rather than its label."""

from __future__ import annotations

import pytest

from benchmark import default_cycle_spec_path
from conditions import Condition, CycleSpec
from reports import Cell, Interval, build_matrix
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
        seed=7,
        bootstrap=300,
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
    alone = build_matrix(records, conditions=conditions, source_id=SOURCE.id, seed=7, bootstrap=300)
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
        seed=7,
        bootstrap=300,
    )
    assert len(crowded) == len(alone) + 1

    def undecided(cells: list[Cell]) -> dict[str, dict[str, object]]:
        return {
            c.condition_id: c.metrics.model_dump(exclude={"negative_transfer"})
            for c in cells
            if c.condition_id in conditions
        }

    assert undecided(crowded) == undecided(alone)


def test_cells_with_the_same_clusters_share_their_draws() -> None:
    # With artifacts every trial succeeds, without only the second: a gain of 1/2 on each task.
    records = [
        r.model_copy(update={"outcome": "success" if r.arm == "with" or r.trial else "failure"})
        for r in _records(SOURCE.id, "c-aaaaaaaaaaaaaaaa")
    ]
    (source, target) = sorted(
        build_matrix(
            records,
            conditions={SOURCE.id: SOURCE, "c-aaaaaaaaaaaaaaaa": TARGET},
            source_id=SOURCE.id,
            seed=7,
            bootstrap=300,
        ),
        key=lambda c: c.condition_id != SOURCE.id,
    )
    # Same six task ids in both: retention is a joint bootstrap, gated on the source cell's
    # published interval, and the two cells are identical so every ratio draw is 1.
    assert target.metrics.retention is not None
    assert target.metrics.retention.shared_draws
    assert target.metrics.retention.source_gain_ci == source.metrics.gain_ci
    assert target.metrics.retention.ci == Interval(lo=1.0, hi=1.0)
    assert target.metrics.seed == source.metrics.seed == 7


def test_records_of_an_unknown_condition_are_refused() -> None:
    with pytest.raises(ReportError, match="unknown conditions: c-cccccccccccccccc"):
        build_matrix(
            _records(SOURCE.id, "c-cccccccccccccccc"),
            conditions={SOURCE.id: SOURCE},
            source_id=SOURCE.id,
            seed=7,
            bootstrap=300,
        )
