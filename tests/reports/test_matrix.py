"""The matrix: cells from trial records, seeded by what a condition is rather than its label."""

from __future__ import annotations

import pytest

from benchmark import default_cycle_spec_path
from conditions import Condition, CycleSpec
from reports import build_matrix
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


def test_a_cell_s_draws_follow_what_the_condition_is() -> None:
    other = Condition.model_validate({**TARGET.model_dump(), "harness": "harness-v2"})
    assert _matrix("c-aaaaaaaaaaaaaaaa")["seed"] != _matrix("c-aaaaaaaaaaaaaaaa", other)["seed"]


def test_records_of_an_unknown_condition_are_refused() -> None:
    with pytest.raises(ReportError, match="unknown conditions: c-cccccccccccccccc"):
        build_matrix(
            _records(SOURCE.id, "c-cccccccccccccccc"),
            conditions={SOURCE.id: SOURCE},
            source_id=SOURCE.id,
            seed=7,
            bootstrap=300,
        )
