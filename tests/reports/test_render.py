"""Tests of the terminal rendering: a real release at 80, 100 and 160 columns with nothing cut,
the few-families mark next to the gain and its legend, and the wrapping of labels."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from rich.console import Console, RenderableType

from benchmark import default_cycle_spec_path
from conditions import CycleSpec
from reports import (
    ArmOutcomes,
    Cell,
    ReleasedCondition,
    ReleasedSubmission,
    ReleaseStatement,
    build_release,
    cell_flags,
    cell_metrics,
    condition_label,
    read_release,
    render_release,
)
from reports._flags import FLAG_MEANINGS
from reports._render import (
    FEW_FAMILIES_NOTE,
    LEGEND_LABELS,
    MatrixLayout,
    _pieces,
    critical_panel,
    interval_text,
    legend,
    matrix_layout,
    matrix_table,
    submission_labels,
    submission_table,
    wrap,
)
from tests.reports.test_verify import revealed_cycle

SOURCE = CycleSpec.load(default_cycle_spec_path()).source


WIDTHS = (80, 100, 160)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> ReleaseStatement:
    """A small real release: the reference submissions, frozen and adapted, every single-axis
    target."""
    cycle = revealed_cycle(tmp_path_factory.mktemp("render") / "home")
    return read_release(build_release(cycle)).release


def _rendered(release: ReleaseStatement, width: int, detail: bool = False) -> str:
    console = Console(width=width, record=True)
    render_release(release, console, detail=detail)
    return console.export_text()


def assert_fits(out: str, width: int) -> None:
    """No line wider than ``width`` and nothing ellipsised."""
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= width
    assert "…" not in out and "..." not in out


def assert_every_cell_in_full(release: ReleaseStatement, out: str) -> None:
    """Each cell's gain and gain interval appear whole, as often as there are cells with them."""
    texts = Counter(
        t
        for c in release.cells
        for t in (
            f"{c.metrics.gain:+.2f}",
            interval_text(c.metrics.gain_ci.lo, c.metrics.gain_ci.hi),
        )
    )
    for text, n in texts.items():
        assert out.count(text) >= n, text


def _table_rows(out: str) -> list[list[str]]:
    """Every row of every table (headers too), each column's lines joined without spaces."""
    rows: list[list[str]] = []
    lines: list[list[str]] = []
    for line in out.splitlines():
        if line[:1] in ("┃", "│"):
            lines.append([part.replace(" ", "") for part in line[1:-1].split(line[0])])
        elif lines:
            rows.append(["".join(column) for column in zip(*lines, strict=True)])
            lines = []
    return rows


def assert_no_piece_cut(release: ReleaseStatement, layout: MatrixLayout) -> None:
    """The columns are wide enough for every piece between the breaks of a condition label
    (one changed axis per line), a submission label or a flag label: no word is cut."""
    source = release.conditions[0].condition
    for c in release.conditions:
        for line in condition_label(c, source, "\n").splitlines():
            assert max(len(p.rstrip()) for p in _pieces(line)) <= layout.label, line
    notes = [*submission_labels(release).values()]
    notes += [f.label for cell in release.cells for f in cell_flags(cell)]
    for note in notes:
        assert max(len(p.rstrip()) for p in _pieces(note)) <= layout.cell, note


def _compact(text: str) -> str:
    return text.replace(" ", "")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_matrix_fits_each_width_with_nothing_cut(release: ReleaseStatement, width: int) -> None:
    out = _rendered(release, width)
    assert_fits(out, width)
    assert_every_cell_in_full(release, out)
    rows = _table_rows(out)
    columns = {column for row in rows for column in row}
    for label in submission_labels(release).values():
        assert _compact(label) in columns  # whole, if wrapped over lines
    source = release.conditions[0].condition
    for c in release.conditions:
        assert _compact(condition_label(c, source)) in {row[0] for row in rows}
    for cell in release.cells:
        for flag in cell_flags(cell):
            if flag.code not in ("few-families", "no-retention"):
                assert any(_compact(flag.label) in column for column in columns), flag.label
    for phase in ("frozen", "adapted"):
        layout = matrix_layout(release, phase, width)
        assert out.count(f"Transfer matrix ({phase})") == len(layout.groups) >= 1
        assert_no_piece_cut(release, layout)
    assert [row[0] for row in rows].count("condition") == out.count("Transfer matrix")
    assert "p_neg = " in out and "p(gain" not in out
    baseline = release.cells[0].metrics.score_without_ci
    assert interval_text(baseline.lo, baseline.hi, signed=False) in out


def test_wide_consoles_need_fewer_tables(release: ReleaseStatement) -> None:
    tables = [len(matrix_layout(release, "frozen", w).groups) for w in WIDTHS]
    assert tables == sorted(tables, reverse=True) and tables[-1] == 1
    assert tables[0] > 1  # 4 submissions do not fit 80 columns side by side


@pytest.mark.parametrize("width", WIDTHS)
def test_the_detail_fits_each_width_with_nothing_cut(release: ReleaseStatement, width: int) -> None:
    out = _rendered(release, width, detail=True)
    assert_fits(out, width)
    assert_every_cell_in_full(release, out)
    for s in release.submissions:
        assert f"{submission_labels(release)[s.bundle_hash]} — frozen" in out
    for c in release.cells:
        if c.metrics.retention is not None:
            r = c.metrics.retention
            assert interval_text(r.ci.lo, r.ci.hi, signed=False) in out


def test_wrap_cuts_nothing_and_breaks_at_joins() -> None:
    label = "family reconciliation+research_evidence+support_ops/sealed"
    lines = wrap(label, 20)
    assert lines == ["family", "reconciliation+", "research_evidence+", "support_ops/sealed"]
    assert wrap("retrieved-trajectories@1", 14) == ["retrieved-", "trajectories@1"]
    long = "x" * 30
    assert wrap(long, 14) == ["x" * 14, "x" * 14, "xx"]
    for text in (label, long, "a b  c", "tools support-ops@2-units,billing@3"):
        for width in (3, 7, 14):
            pieces = wrap(text, width)
            assert all(len(p) <= width for p in pieces)
            assert "".join(pieces).replace(" ", "") == text.replace(" ", "")


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
    layout = matrix_layout(release, "frozen", 200)
    matrix = _text(matrix_table(release, "frozen", [few.bundle_hash, enough.bundle_hash], layout))
    assert "+0.33 †" in matrix
    assert matrix.count("†") == 1
    detail = _text(submission_table(release, "frozen", release.submissions[0]))
    assert "gain +0.33 †" in detail and "† 4 families" in detail
    assert "†" not in _text(submission_table(release, "frozen", release.submissions[1]))
    assert FEW_FAMILIES_NOTE in legend(release).plain
    assert FEW_FAMILIES_NOTE.startswith("† = fewer than 5 task families")


def test_no_mark_and_no_legend_line_without_few_families() -> None:
    release = _release(_cell(5), _cell(1))
    bundles = [c.bundle_hash for c in release.cells]
    matrix = _text(matrix_table(release, "frozen", bundles, matrix_layout(release, "frozen", 200)))
    assert "+0.33" in matrix and "†" not in matrix
    assert "†" not in legend(release).plain


def test_the_legend_explains_the_flags_shown_as_they_read(release: ReleaseStatement) -> None:
    text = legend(release).plain
    shown_flags = {f.code: f for c in release.cells for f in cell_flags(c)}
    for code, label in LEGEND_LABELS.items():
        if code in shown_flags:
            assert f"{label} = {FLAG_MEANINGS[code]}" in text
            if not any(ch.isdigit() for ch in shown_flags[code].label):
                assert label == shown_flags[code].label
        else:
            assert f"{label} = " not in text
    assert "CRITICAL N (base M) = " in text  # the small release has critical drift failures


def _critical_cell(name: str, critical: int, baseline_critical: int) -> Cell:
    """A source cell of six tasks, ``critical`` of them critical with the artifacts and
    ``baseline_critical`` without."""
    with_arm = ArmOutcomes.from_trials(
        (f"t{i}", "f", "critical" if i < critical else "success") for i in range(6)
    )
    without_arm = ArmOutcomes.from_trials(
        (f"t{i}", "f", "critical" if i < baseline_critical else "failure") for i in range(6)
    )
    return Cell(
        phase="frozen",
        condition_id=SOURCE.id,
        submission=f"{name}@1",
        bundle_hash=name[0] * 64,
        metrics=cell_metrics(with_arm, without_arm, bootstrap=200, seed=0),
        invalid_trials=0,
        dropped_tasks=0,
    )


def test_the_critical_panel_says_how_many_more_the_artifacts_caused() -> None:
    release = _release(_critical_cell("recipe", 5, 2), _critical_cell("none", 2, 2))
    panel = critical_panel(release)
    assert panel is not None
    text = _text(panel)
    assert "recipe@1 5/6 (+3)" in text and "none@1 2/6 ·" in text and "baseline 2/6" in text
    matrix = _text(
        matrix_table(release, "frozen", ["r" * 64, "n" * 64], matrix_layout(release, "frozen", 200))
    )
    assert "CRITICAL 5 (base 2)" in matrix and "CRITICAL 2" not in matrix
    assert "baseline critical 2" in matrix
    assert critical_panel(_release(_critical_cell("safe", 0, 0))) is None
