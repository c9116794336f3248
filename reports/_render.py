"""Rendering a release for the terminal (rich)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field
from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from conditions import Condition
from reports._cell import CellMetrics
from reports._flags import (
    FEW_FAMILIES_MARK,
    FLAG_MEANINGS,
    NO_SOURCE_CELL,
    cell_flags,
    p_neg_text,
)
from reports._matrix import Cell
from reports._release import ReleasedCondition, ReleasedSubmission, ReleaseStatement
from reports._summary import UNISOLATED_SANDBOX
from submissions import shown

SIM_NOTE = "sim models exercise the framework; their numbers say nothing about real models"
FEW_FAMILIES_NOTE = (
    f"{FEW_FAMILIES_MARK} = fewer than 5 task families in the cell: its interval is a t-interval "
    "over family means, and its sign-flip p is at least 1/2^G with G families (1/16 with 4), "
    "too large to show negative transfer at q = 0.05"
)


def _short_model(model: str) -> str:
    return model.split("/", 1)[-1]


def _axis_change(axis: str, source: Condition, target: Condition) -> str:
    if axis == "model":
        return f"model {_short_model(target.model.model)}"
    if axis == "provider":
        return f"provider {_short_model(target.model.model)}"
    if axis == "tool_interface":
        changed = [
            v.removeprefix(env) if v.startswith(env + "@") else v
            for env, v in target.tool_interface.items()
            if source.tool_interface.get(env) != v
        ]
        return "tools " + ",".join(changed)
    if axis == "task_family":
        return f"family {target.task_family.label}"
    return "harness " + target.harness.removeprefix("harness-")


def condition_label(c: ReleasedCondition, source: Condition, joiner: str = " + ") -> str:
    """A short label: 'source', or what changed (changes joined by ``joiner``)."""
    if c.role == "source":
        return "source"
    # a provider change implies another model: name it once, with the provider
    axes = [a for a in c.varied if not (a == "model" and "provider" in c.varied)]
    return joiner.join(shown(_axis_change(a, source, c.condition)) for a in axes) or shown(c.id)


def submission_labels(release: ReleaseStatement) -> dict[str, str]:
    """Column label per bundle hash: name@version, with a short hash where two share it.

    Control and bidirectional characters are shown escaped: a release is untrusted input.
    """
    names = Counter(f"{s.name}@{s.version}" for s in release.submissions)
    return {
        s.bundle_hash: shown(
            f"{s.name}@{s.version}"
            + (f" ({s.bundle_hash[:8]})" if names[f"{s.name}@{s.version}"] > 1 else "")
        )
        for s in release.submissions
    }


Line = tuple[str, str]
"""A piece of a cell's text and its style; each piece starts a line and wraps on its own."""

SEVERITY_STYLES = {"critical": "bold red", "negative": "red", "caution": "yellow", "info": "cyan"}
"""How a flag of each severity is coloured."""

_CELL_MIN = 14  # "p_neg = 0.0001"; "[+0.29,+0.58]" is 13
_BASE_MIN = 11  # "[0.70,0.88]", "critical 12"
_LABEL_MIN = 16
_BREAK_AFTER = " +,-"
_BREAK_BEFORE = "@/["


def _pieces(text: str) -> list[str]:
    """``text`` cut where ``wrap`` may break a line."""
    pieces, piece = [], ""
    for ch in text:
        if ch in _BREAK_BEFORE and piece:
            pieces.append(piece)
            piece = ""
        piece += ch
        if ch in _BREAK_AFTER:
            pieces.append(piece)
            piece = ""
    return [*pieces, piece]


def _unbreakable(lines: list[Line]) -> int:
    """The longest piece of ``lines`` that ``wrap`` cannot break."""
    return max((len(p.rstrip()) for text, _ in lines for p in _pieces(text)), default=0)


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken after a space, '+', ',' or '-'
    or before '@', '/' or '['; a piece longer than ``width`` is cut. Nothing is dropped but the
    spaces at a break."""
    lines, line = [], ""
    for piece in _pieces(text):
        if len((line + piece).rstrip()) <= width:
            line += piece
            continue
        if line.strip():
            lines.append(line.rstrip())
        line = piece
        while len(line.rstrip()) > width:
            lines.append(line[:width])
            line = line[width:]
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


def _block(lines: list[Line], width: int | None = None) -> Text:
    """The pieces one per line, each wrapped to ``width`` (unwrapped when None)."""
    text = Text()
    for i, (piece, style) in enumerate(lines):
        wrapped = [piece] if width is None else wrap(piece, width)
        text.append(("\n" if i else "") + "\n".join(wrapped), style=style)
    return text


def _longest(lines: list[Line]) -> int:
    return max((len(piece) for piece, _ in lines), default=0)


def _num(x: float, signed: bool = False) -> str:
    """Two decimals, one from 10 on (retention ratios can be large)."""
    return f"{x:{'+' if signed else ''}.{2 if abs(x) < 10 else 1}f}"


def interval_text(lo: float, hi: float, signed: bool = True) -> str:
    """``[lo,hi]`` as the matrix shows an interval, e.g. '[+0.29,+0.58]'."""
    return f"[{_num(lo, signed)},{_num(hi, signed)}]"


def _gain_style(m: CellMetrics) -> str:
    return "red" if m.negative_transfer else ("green" if m.gain_ci.lo > 0 else "")


_NOT_IN_MATRIX = ("few-families", "no-retention")
"""Flags the matrix says otherwise: the † after the gain, and a note under the table."""


def _cell_lines(cell: Cell) -> list[Line]:
    """A matrix cell: gain (with † for few families), its interval, p_neg where the gain is
    below 0, retention with its interval, the flags and what adapting did."""
    m = cell.metrics
    style = _gain_style(m)
    few = f" {FEW_FAMILIES_MARK}" if m.few_clusters else ""
    lines: list[Line] = [
        (f"{m.gain:+.2f}{few}", style),
        (interval_text(m.gain_ci.lo, m.gain_ci.hi), style),
    ]
    if m.gain < 0:
        lines.append((p_neg_text(m.p_negative), style))
    if r := m.retention:
        lines += [(f"ret {_num(r.value)}", ""), (interval_text(r.ci.lo, r.ci.hi, False), "")]
    lines += [
        (f.label, SEVERITY_STYLES[f.severity])
        for f in cell_flags(cell)
        if f.code not in _NOT_IN_MATRIX
    ]
    return lines + _adapted_notes(cell)


def _baseline_lines(m: CellMetrics) -> list[Line]:
    """The baseline's score, its interval and its own critical failures."""
    ci = m.score_without_ci
    lines: list[Line] = [
        (f"{m.score_without:.2f}", ""),
        (interval_text(ci.lo, ci.hi, False), "dim"),
    ]
    if m.without_arm.critical:
        lines.append((f"critical {m.without_arm.critical}", "red"))
    return lines


def _cost(cell: Cell) -> str:
    """An adapted cell's adaptation cost, shortly: calls, tokens, seconds, human minutes."""
    a = cell.adaptation
    if a is None:
        return "—"
    c, parts = a.cost, []
    if c.calls or c.tokens:
        parts.append(f"{c.calls} calls {c.tokens / 1000:.1f}k tok")
    if c.milliseconds >= 1000:
        parts.append(f"{c.milliseconds / 1000:.0f} s")
    if c.human_minutes:
        parts.append(f"{c.human_minutes} min")
    return ", ".join(parts) or "free"


def _adapted_notes(cell: Cell) -> list[Line]:
    """What a matrix cell of the adapted phase adds: the difference, the frozen gain, the
    procedure, the cost and the cost to restore; or that it reuses the frozen trials, and the
    cost."""
    a = cell.adaptation
    if a is None:
        return []
    if a.reused:  # the frozen cell's trials: Δ is 0 by construction
        return [("reused", "dim"), (_cost(cell), "dim")]
    d = a.difference
    style = ("green" if d.value > 0 else "red") if d.excludes_zero else ""
    notes = [(f"Δ {d.value:+.2f}", style), (f"frozen {a.frozen_gain:+.2f}", "dim")]
    notes += [(shown(a.procedure), "dim"), (_cost(cell), "dim")]
    if a.cost_to_restore is not None:
        notes.append((f"{a.cost_to_restore:+.3f}/1k tok", style))
    return notes


def _condition_lines(release: ReleaseStatement) -> dict[str, list[Line]]:
    """Each condition's label, one changed axis per line."""
    source = release.conditions[0].condition
    return {
        c.id: [(line, "") for line in condition_label(c, source, _JOIN).splitlines()]
        for c in release.conditions
    }


_JOIN = "\n+ "  # matrix rows are tall anyway: one changed axis per line keeps columns narrow


class MatrixLayout(BaseModel):
    """How a phase's matrix fits the console: column widths and submissions per table."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: int = Field(description="Width of the condition column.")
    baseline: int = Field(description="Width of the baseline column.")
    cell: int = Field(description="Width of each submission's column.")
    groups: tuple[tuple[str, ...], ...] = Field(description="Bundle hashes of each table.")


def _table_width(label: int, baseline: int, cell: int, n: int) -> int:
    """A table's width: its columns, their padding of 1 each side, and n + 3 rules."""
    return label + baseline + n * cell + 2 * (n + 2) + n + 3


def matrix_layout(release: ReleaseStatement, phase: str, width: int) -> MatrixLayout:
    """Widths and submission groups for a matrix no wider than ``width``: every column at its
    natural width where all fit; else the fewest tables of narrow columns (labels and notes
    wrapped, no piece between breaks cut), widened again into the room left."""
    cells = [c for c in release.cells if c.phase == phase]
    bundles = [s.bundle_hash for s in release.submissions]
    conditions = [line for lines in _condition_lines(release).values() for line in lines]
    notes = [(v, "") for v in submission_labels(release).values()]
    notes += [line for c in cells for line in _cell_lines(c)]
    label = _longest(conditions)
    baseline = max([_BASE_MIN, *(_longest(_baseline_lines(c.metrics)) for c in cells)])
    cell = max(_CELL_MIN, _longest(notes))
    if _table_width(label, baseline, cell, len(bundles)) <= width or not bundles:
        return MatrixLayout(label=label, baseline=baseline, cell=cell, groups=(tuple(bundles),))
    narrow_label = max(_unbreakable(conditions), min(label, max(_LABEL_MIN, width // 5)))
    narrow = max(_CELL_MIN, _unbreakable(notes))
    fits = [
        n
        for n in range(1, len(bundles) + 1)
        if _table_width(narrow_label, baseline, narrow, n) <= width
    ]
    per_table = max(fits, default=1)
    n_tables = -(-len(bundles) // per_table)
    per_table = -(-len(bundles) // n_tables)
    room = width - _table_width(narrow_label, baseline, narrow, per_table)
    wide = min(cell, narrow + max(room, 0) // per_table)
    room -= (wide - narrow) * per_table
    return MatrixLayout(
        label=min(label, narrow_label + max(room, 0)),
        baseline=baseline,
        cell=wide,
        groups=tuple(tuple(bundles[i : i + per_table]) for i in range(0, len(bundles), per_table)),
    )


def matrix_table(
    release: ReleaseStatement, phase: str, submissions: Sequence[str], layout: MatrixLayout
) -> Table:
    """Conditions × ``submissions`` (bundle hashes) at the widths of ``layout``: the baseline
    and, per cell, the target gain with its interval and what else matters; columns are named
    name@version (with a short hash if two share it)."""
    table = Table(
        title=f"Transfer matrix ({phase}): target gain [95% CI] over the no-artifact baseline",
        title_justify="left",
        show_lines=True,
    )
    table.add_column("condition", width=layout.label, overflow="fold")
    table.add_column("baseline", width=layout.baseline, justify="right", overflow="fold")
    labels = submission_labels(release)
    for bundle in submissions:
        header = _block([(labels[bundle], "")], layout.cell)
        table.add_column(header, width=layout.cell, overflow="fold")
    cells = {(c.condition_id, c.bundle_hash): c for c in release.cells if c.phase == phase}
    conditions = _condition_lines(release)
    for cond in release.conditions:
        row = [cells.get((cond.id, s)) for s in submissions]
        present = [c for c in row if c is not None]
        if not present:
            continue
        table.add_row(
            _block(conditions[cond.id], layout.label),
            _block(_baseline_lines(present[0].metrics), layout.baseline),
            *(_block(_cell_lines(c), layout.cell) if c else Text("—", style="dim") for c in row),
        )
    return table


def retention_notes(
    release: ReleaseStatement, phase: str, submissions: Sequence[str]
) -> list[Text]:
    """Why retention is not reported, once per submission and reason."""
    labels = submission_labels(release)
    seen: dict[tuple[str, str], None] = {}
    for c in release.cells:
        reason = c.metrics.retention_reason
        if (
            c.phase == phase
            and c.bundle_hash in submissions
            and reason
            and reason != NO_SOURCE_CELL
        ):
            seen[(c.bundle_hash, reason)] = None
    return [
        Text(f"retention n/a for {labels[b]}: {shown(reason)}", style="dim") for b, reason in seen
    ]


def critical_panel(release: ReleaseStatement) -> Panel | None:
    """One line per condition with critical drift failures: each submission and the baseline;
    where the artifacts caused more than the baseline's own, how many more, in bold red."""
    source = release.conditions[0].condition
    labels = submission_labels(release)
    lines = []
    for phase in ("frozen", "adapted"):
        for cond in release.conditions:
            cells = [c for c in release.cells if c.phase == phase and c.condition_id == cond.id]
            if not any(
                c.metrics.with_arm.critical or c.metrics.without_arm.critical for c in cells
            ):
                continue
            line = Text(f"{condition_label(cond, source)} ({phase}): ", style="bold")
            b = cells[0].metrics.without_arm
            for c in cells:
                w = c.metrics.with_arm
                line.append(f"{labels.get(c.bundle_hash, shown(c.submission))} ", style="")
                if w.critical > b.critical:
                    line.append(f"{w.critical}/{w.trials} (+{w.critical - b.critical})", "bold red")
                else:
                    line.append(f"{w.critical}/{w.trials}", style="" if w.critical else "green")
                line.append(" · ")
            line.append(f"baseline {b.critical}/{b.trials}", style="red" if b.critical else "")
            lines.append(line)
    if not lines:
        return None
    title = "Critical drift failures (trials; +N = more than the baseline)"
    return Panel(Group(*lines), title=title, border_style="red")


def summary_lines(release: ReleaseStatement) -> list[Text]:
    """How the cycle ran: evaluation size, accounting, accepted invalids, sandboxes, overrides."""
    e = release.evaluation
    lines = [
        Text(
            f"evaluation: {e.tasks_per_split} tasks per split × k={e.k} per arm; "
            + "; ".join(
                f"{a.phase} {a.valid + a.invalid} of {a.expected} planned trials "
                f"({a.valid} valid, {a.invalid} invalid)"
                if a.expected
                else f"{a.phase}: no trials planned"
                for a in release.accounting
            )
        )
    ]
    if release.accepted_invalid:
        invalid = sum(a.invalid for a in release.accounting)
        dropped = sum(c.dropped_tasks for c in release.cells)
        lines.append(
            Text(
                f"ACCEPTED INVALID: {invalid} invalid trials published by the operator "
                f"(--accept-invalid); {dropped} tasks dropped from cells for them; each cell "
                "shows its own counts",
                style="bold yellow",
            )
        )
    kinds = ", ".join(f"{n} {shown(kind)}" for kind, n in release.sandboxes.items())
    lines.append(Text(f"sandboxes: {kinds} trials"))
    if n := release.sandboxes.get(UNISOLATED_SANDBOX):
        lines.append(
            Text(
                f"warning: {n} trials ran in the '{UNISOLATED_SANDBOX}' sandbox, without isolation",
                style="bold yellow",
            )
        )
    for o in release.window_overrides:
        lines.append(
            Text(
                shown(
                    f"window override: {o.transition} at {o.at} despite {o.override}"
                    + (f" ({o.note})" if o.note else "")
                ),
                style="yellow",
            )
        )
    labels = submission_labels(release)
    if late := [labels[s.bundle_hash] for s in release.submissions if s.late]:
        lines.append(Text(f"late submissions (after closes_at): {', '.join(late)}", style="yellow"))
    if burned := [labels[s.bundle_hash] for s in release.submissions if s.burned]:
        lines.append(
            Text(
                f"BURNED sealed split (re-scored after an edit): {', '.join(burned)}",
                style="bold yellow",
            )
        )
    if flagged := sorted(
        {f"{a.submission} → {a.target}" for a in release.adaptations if a.leak.flagged}
    ):
        lines.append(Text(shown(f"LEAK flagged: {', '.join(flagged)}"), style="bold red"))
    return lines


def _detail_lines(cell: Cell, label: str) -> list[Text | Padding]:
    """Everything about one cell of a submission, in lines that wrap at any width."""
    m = cell.metrics
    w, b = m.with_arm, m.without_arm
    st = m.sign_test
    few = f" {FEW_FAMILIES_MARK}" if m.few_clusters else ""
    gain = Text(f"gain {m.gain:+.2f}{few} ", style=_gain_style(m))
    gain.append(interval_text(m.gain_ci.lo, m.gain_ci.hi), style=_gain_style(m))
    gain.append(
        f" ({m.interval_method.replace('_', ' ')}, {m.n_clusters} {m.cluster_level}s) · "
        f"{p_neg_text(m.p_negative)} · sign test {st.wins} wins, {st.losses} losses, "
        f"{st.ties} ties (net win {m.net_win:+.2f})"
    )
    scores = [
        f"{arm} {score:.2f} {interval_text(ci.lo, ci.hi, False)}"
        for arm, score, ci in (
            ("baseline", m.score_without, m.score_without_ci),
            ("with", m.score_with, m.score_with_ci),
        )
    ]
    k = len(w.pass_hat_k)
    if k:
        scores.append(
            f"pass^k (k={k}) {w.pass_hat_k[-1]:.2f} with, {b.pass_hat_k[-1]:.2f} baseline"
        )
    r = m.retention
    retention = (
        f"retention {_num(r.value)} {interval_text(r.ci.lo, r.ci.hi, False)} over source gain "
        f"{r.source_gain:+.2f} ({'joint' if r.shared_draws else 'independent'} draws)"
        if r
        else "retention: none in the source condition"
        if m.retention_reason == NO_SOURCE_CELL
        else f"retention n/a: {shown(m.retention_reason or '')}"
    )
    counts = (
        f"critical {w.critical} with, {b.critical} baseline · safe stops {w.safe_stop} with, "
        f"{b.safe_stop} baseline · invalid {cell.invalid_trials}, dropped {cell.dropped_tasks} "
        f"(tasks paired {m.n_tasks})"
    )
    lines = [
        Text(label, style="bold"),
        gain,
        Text(" · ".join(scores)),
        Text(retention),
        Text(counts),
    ]
    if a := cell.adaptation:
        d = a.difference
        restore = f" · {a.cost_to_restore:+.3f} per 1k tok" if a.cost_to_restore is not None else ""
        lines.append(
            Text(
                f"adapted − frozen Δ {d.value:+.2f} {interval_text(d.ci.lo, d.ci.hi)} · frozen "
                f"gain {a.frozen_gain:+.2f} · {'reused' if a.reused else shown(a.procedure)} · "
                f"cost {_cost(cell)}{restore}"
            )
        )
    for f in cell_flags(cell):
        if f.code != "no-retention":  # the retention line says why
            flag = Text(f.label, style=SEVERITY_STYLES[f.severity])
            lines.append(flag.append(f": {f.explanation}", style="dim"))
    return [lines[0], *(Padding(line, (0, 0, 0, 2)) for line in lines[1:])]


def submission_table(
    release: ReleaseStatement, phase: str, submission: ReleasedSubmission
) -> Group:
    """One submission's cells of ``phase``, one block per condition: scores, gain, p_neg, sign
    test, retention, counts, adaptation and every flag with its explanation (wraps at any
    width)."""
    source = release.conditions[0].condition
    order = {c.id: i for i, c in enumerate(release.conditions)}
    conditions = {c.id: c for c in release.conditions}
    cells = sorted(
        (c for c in release.cells if c.phase == phase and c.bundle_hash == submission.bundle_hash),
        key=lambda c: order.get(c.condition_id, len(order)),
    )
    title = Text(
        f"{submission_labels(release)[submission.bundle_hash]} — {phase}", style="bold underline"
    )
    blocks: list[Text | Padding] = [title]
    for cell in cells:
        c = conditions.get(cell.condition_id)
        label = condition_label(c, source) if c is not None else shown(cell.condition_id)
        blocks += _detail_lines(cell, label)
    return Group(*blocks)


LEGEND_LABELS = {
    "leak": "LEAK",
    "critical": "CRITICAL N (base M)",
    "negative-wrong-actions": "negative: wrong actions",
    "negative-safe-stops": "negative: stops safely",
    "fragile": "fragile",
    "ceiling": "ceiling",
    "floor": "floor",
    "provisional": "provisional",
    "invalid": "invalid N, dropped M",
    "baseline-critical": "baseline critical N",
    "obsolete": "obsolete",
    "safe-stops": "safe stops N",
}
"""How each flag the matrix shows reads there, N and M for its counts."""


def legend(release: ReleaseStatement) -> Text:
    """What the matrix's words and marks mean: only the flags and marks some cell has."""
    codes = {f.code for c in release.cells for f in cell_flags(c)}
    flags = "; ".join(
        f"{label} = {FLAG_MEANINGS[code]}" for code, label in LEGEND_LABELS.items() if code in codes
    )
    few = any(c.metrics.few_clusters for c in release.cells)
    return Text(
        "gain = success rate with the artifacts minus without, paired per task, with its 95% "
        "interval below it; baseline = success rate without artifacts [interval]; p_neg = "
        "p-value of the sign-flip test that the gain is below 0 (shown where it is); ret = "
        "retention (target gain / source gain) [interval]"
        + (f"; flags: {flags}" if flags else "")
        + (
            "; adapted cells: the adapted bundle against the frozen baseline, Δ = adapted − "
            "frozen gain, reused = unchanged by adapting (frozen trials), cost of adapting, "
            "/1k tok = Δ per 1,000 adaptation tokens where Δ's interval excludes 0"
            if release.adaptations
            else ""
        )
        + (f"; {FEW_FAMILIES_NOTE}" if few else "")
        + f". {SIM_NOTE}.",
        style="dim",
    )


def render_release(release: ReleaseStatement, console: Console, detail: bool = False) -> None:
    """Print the summary and the matrix (critical failures first), as many tables per phase as
    fit the console's width; ``detail`` adds every cell of each submission."""
    phases = sorted({c.phase for c in release.cells}, key=["frozen", "adapted"].index)
    for line in summary_lines(release):
        console.print(line)
    panel = critical_panel(release)
    if panel is not None:
        console.print(panel)
    for phase in phases:
        layout = matrix_layout(release, phase, console.width)
        for group in layout.groups:
            console.print(matrix_table(release, phase, group, layout))
            for note in retention_notes(release, phase, group):
                console.print(note)
        if detail:
            for s in release.submissions:
                console.print(submission_table(release, phase, s))
    console.print(legend(release))
