"""Tests of the terminal rendering: the few-families mark next to the gain, and its legend."""

from __future__ import annotations

from typing import Any

from rich.console import Console, RenderableType

from benchmark import default_cycle_spec_path
from conditions import CycleSpec
from reports import (
    ArmOutcomes,
    Cell,
    ReleasedCondition,
    ReleasedSubmission,
    ReleaseStatement,
    cell_metrics,
)
from reports._render import FEW_FAMILIES_NOTE, legend, matrix_table, submission_table

SOURCE = CycleSpec.load(default_cycle_spec_path()).source


def _cell(n_families: int) -> Cell:
    """A cell of submission ``s<n>@1`` over ``n_families`` families of three tasks."""
    tasks = [(f"f{f}-{t}", f"f{f}") for f in range(n_families) for t in range(3)]
    with_arm = ArmOutcomes.from_trials((t, f, "success") for t, f in tasks)
    without_arm = ArmOutcomes.from_trials(
        (t, f, "failure" if t.endswith("0") else "success") for t, f in tasks
    )
    return Cell(
        phase="frozen",
        condition_id=SOURCE.id,
        submission=f"s{n_families}@1",
        bundle_hash=f"{n_families}" * 64,
        metrics=cell_metrics(with_arm, without_arm, bootstrap=200, seed=0),
        invalid_trials=0,
        dropped_tasks=0,
    )


def _release(*cells: Cell) -> ReleaseStatement:
    """A statement with just what the matrix and its legend read (the rest is left unset):
    the source condition, the cells' submissions and the cells."""
    read: dict[str, Any] = {
        "conditions": (
            ReleasedCondition(id=SOURCE.id, role="source", varied=(), condition=SOURCE),
        ),
        "submissions": tuple(
            ReleasedSubmission(
                name=c.submission[:-2], version="1", bundle_hash=c.bundle_hash, late=False
            )
            for c in cells
        ),
        "cells": cells,
    }
    return ReleaseStatement.model_construct(**read)


def _text(renderable: RenderableType) -> str:
    console = Console(width=200, record=True)
    console.print(renderable)
    return console.export_text()


def test_the_gain_of_a_cell_with_few_families_is_marked_and_explained() -> None:
    few, enough = _cell(4), _cell(5)
    assert (few.metrics.few_clusters, enough.metrics.few_clusters) == (True, False)
    release = _release(few, enough)
    matrix = _text(matrix_table(release, "frozen", [few.bundle_hash, enough.bundle_hash]))
    assert "+0.33 †" in matrix
    assert matrix.count("†") == 1
    detail = _text(submission_table(release, "frozen", release.submissions[0]))
    assert "+0.33 †" in detail and "† 4 families" in detail
    assert "†" not in _text(submission_table(release, "frozen", release.submissions[1]))
    assert FEW_FAMILIES_NOTE in legend(release).plain
    assert FEW_FAMILIES_NOTE.startswith("† = fewer than 5 task families")


def test_no_mark_and_no_legend_line_without_few_families() -> None:
    release = _release(_cell(5), _cell(1))
    matrix = _text(matrix_table(release, "frozen", [c.bundle_hash for c in release.cells]))
    assert "+0.33" in matrix and "†" not in matrix
    assert "†" not in legend(release).plain
