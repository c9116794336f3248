"""Tests of the terminal rendering: a real release's compact matrix at 80, 100 and 160 columns
(one line per cell, symbols with a legend, nothing cut), the detail, and the critical panel."""

from __future__ import annotations

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
    apply_fdr,
    build_release,
    cell_flags,
    cell_metrics,
    read_release,
    render_release,
)
from reports._flags import FLAG_MEANINGS
from reports._render import (
    SYMBOLS,
    compact_table,
    critical_panel,
    interval_text,
    legend,
    submission_labels,
    submission_table,
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


def _row_lines(out: str, release: ReleaseStatement) -> dict[str, list[str]]:
    """Lines of the compact tables by the table's title (submission · phase)."""
    titles: dict[str, list[str]] = {
        f"{label} · {phase}": []
        for label in submission_labels(release).values()
        for phase in ("frozen", "adapted")
    }
    current: list[str] | None = None
    for line in out.splitlines():
        title = next((t for t in titles if line.startswith(t)), None)
        if title is not None:
            current = titles[title]
        elif current is not None and not line.strip():
            current = None
        elif current is not None:
            current.append(line)
    return titles


@pytest.mark.parametrize("width", WIDTHS)
def test_the_compact_matrix_has_one_line_per_cell_at_each_width(
    release: ReleaseStatement, width: int
) -> None:
    out = _rendered(release, width)
    assert_fits(out, width)
    rows = _row_lines(out, release)
    conditions = len(release.conditions)
    for s in release.submissions:
        label = submission_labels(release)[s.bundle_hash]
        for phase in ("frozen", "adapted"):
            cells = [
                c for c in release.cells if c.phase == phase and c.bundle_hash == s.bundle_hash
            ]
            lines = rows[f"{label} · {phase}"]
            # a header, its rule and one line per cell (a family set's label may wrap)
            assert len(cells) + 2 <= len(lines) <= len(cells) + 6, (label, phase, lines)
            for c in cells:
                m = c.metrics
                text = f"{m.gain:+.2f} {interval_text(m.gain_ci.lo, m.gain_ci.hi)}"
                assert any(text in " ".join(line.split()) for line in lines), text
    if width == 80:
        # about one screen per submission: both phases with their titles and headers
        for label in submission_labels(release).values():
            both = rows[f"{label} · frozen"] + rows[f"{label} · adapted"]
            assert len(both) + 2 <= 2 * conditions + 14
    assert "interval = 95% t over tasks" in out


def test_every_flag_shown_is_a_symbol_the_legend_explains(release: ReleaseStatement) -> None:
    out = _rendered(release, 100)
    text = legend(release).plain
    shown = {f.code for c in release.cells for f in cell_flags(c)} & SYMBOLS.keys()
    assert shown, "the small release has no flag at all"
    for code in shown:
        assert f"{SYMBOLS[code]} = {FLAG_MEANINGS[code]}" in " ".join(text.split())
    for code in SYMBOLS.keys() - shown:
        assert FLAG_MEANINGS[code] not in text
    assert "--detail" in out
    # retention's flags have no symbol: the ret column says it
    assert not {"unstable", "no-retention", "retention-identical"} & SYMBOLS.keys()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_detail_fits_each_width_with_nothing_cut(release: ReleaseStatement, width: int) -> None:
    out = _rendered(release, width, detail=True)
    assert_fits(out, width)
    for s in release.submissions:
        assert f"{submission_labels(release)[s.bundle_hash]} — frozen" in out
    flat = " ".join(out.split())
    for c in release.cells:
        m = c.metrics
        assert f"gain {m.gain:+.2f} {interval_text(m.gain_ci.lo, m.gain_ci.hi)}" in flat
        if m.retention is not None:
            r = m.retention
            assert interval_text(r.ci.lo, r.ci.hi, signed=False) in flat
    assert "t over tasks" in flat and "detects" in flat


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
        metrics=apply_fdr([cell_metrics(with_arm, without_arm)])[0],
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


def test_a_cell_over_several_families_names_its_stratified_method() -> None:
    release = _release(_cell(3), _cell(1))
    table = _text(compact_table(release, "frozen", release.submissions[0]))
    assert "+0.33" in table
    detail = " ".join(_text(submission_table(release, "frozen", release.submissions[0])).split())
    assert "t over tasks within families" in detail and "3 families as strata" in detail
    one = " ".join(_text(submission_table(release, "frozen", release.submissions[1])).split())
    assert "95% t over tasks, 2 df" in one and "strata" not in one
    assert "familys" not in detail + one


def _critical_cell(name: str, critical: int, baseline_critical: int) -> Cell:
    """A source cell of six tasks, ``critical`` of them critical with the artifacts and
    ``baseline_critical`` without; its tests decided on it alone."""
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
        metrics=apply_fdr([cell_metrics(with_arm, without_arm)])[0],
        invalid_trials=0,
        dropped_tasks=0,
    )


def test_the_critical_panel_lists_every_cell_with_criticals_marking_the_significant() -> None:
    release = _release(
        _critical_cell("recipe", 6, 0), _critical_cell("none", 0, 0), _critical_cell("more", 3, 0)
    )
    panel = critical_panel(release)
    assert panel is not None
    text = _text(panel)
    assert "recipe@1 6/6 (+6!)" in text and "none@1 0/6 ·" in text and "baseline 0/6" in text
    assert "more@1 3/6 (+3 n.s.)" in text
    table = _text(compact_table(release, "frozen", release.submissions[0]))
    assert "6/0!" in table and SYMBOLS["critical"] in table
    other = _text(compact_table(release, "frozen", release.submissions[2]))
    assert "3/0" in other and "3/0!" not in other
    assert critical_panel(_release(_critical_cell("safe", 0, 0))) is None
