"""Rendering a release for the terminal (rich)."""

from __future__ import annotations

import re
from collections import Counter

from rich import box
from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from conditions import Condition
from reports._cell import METHOD_TEXT, CellMetrics, method_text, retention_method_text
from reports._flags import (
    FLAG_MEANINGS,
    cell_flags,
    p_neg_text,
)
from reports._matrix import Cell
from reports._release import ReleasedCondition, ReleasedSubmission, ReleaseStatement
from reports._summary import UNISOLATED_SANDBOX, PhaseCost
from runner import usd_text
from submissions import shown

SIM_NOTE = "sim models exercise the framework; their numbers say nothing about real models"


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


SEVERITY_STYLES = {"critical": "bold red", "negative": "red", "caution": "yellow", "info": "cyan"}
"""How a flag of each severity is coloured."""

SYMBOLS: dict[str, str] = {
    "leak": "L",
    "critical": "C",
    "noise-check-failed": "N",
    "negative-wrong-actions": "▼",
    "negative-safe-stops": "▽",
    "fragile": "~",
    "ceiling": "^",
    "floor": "_",
    "provisional": "?",
    "invalid": "i",
    "no-variation": "0",
    "more-critical": "c",
    "baseline-critical": "b",
    "identical": "=",
    "obsolete": "o",
    "safe-stops": "s",
}
"""The one-character symbol of each flag in the compact matrix (legend under it). Retention's
flags have none: the ret column says it (a value, ``u`` unstable, ``=1`` identical, blank)."""


def _num(x: float, signed: bool = False) -> str:
    """Two decimals, one from 10 on (retention ratios can be large)."""
    return f"{x:{'+' if signed else ''}.{2 if abs(x) < 10 else 1}f}"


def interval_text(lo: float, hi: float, signed: bool = True) -> str:
    """``[lo,hi]`` as the matrix shows an interval, e.g. '[+0.29,+0.58]'."""
    return f"[{_num(lo, signed)},{_num(hi, signed)}]"


def _gain_style(m: CellMetrics) -> str:
    return "red" if m.negative_transfer else ("green" if m.gain_ci.lo > 0 else "")


def _critical_text(m: CellMetrics) -> Text:
    """'w/b' critical trials with and without, '!' where the excess is significant."""
    w, b = m.with_arm.critical, m.without_arm.critical
    if m.critical_excess:
        return Text(f"{w}/{b}!", style="bold red")
    return Text(f"{w}/{b}", style="" if w > b else "dim")


def _retention_text(m: CellMetrics) -> Text:
    r = m.retention
    if r is not None:
        return Text(_num(r.value))
    return Text({"identical_trials": "=1", "unstable": "u"}.get(m.retention_status, ""), "dim")


def _symbols(cell: Cell) -> Text:
    text = Text()
    for f in cell_flags(cell):
        if f.code in SYMBOLS:
            text.append(SYMBOLS[f.code], style=SEVERITY_STYLES[f.severity])
    return text


def _compact_label(cond: ReleasedCondition, source: Condition) -> str:
    """A condition's label for the compact view: a family set may wrap after each '+', and the
    sealed split every target runs goes unsaid (the legend says it)."""
    label = re.sub(r"/sealed\b", "", condition_label(cond, source))
    return re.sub(r"\+(?=\S)", "+ ", label)


def _delta_text(cell: Cell) -> Text:
    """What adapting did: Δ = adapted − frozen gain, or 'reused'."""
    a = cell.adaptation
    if a is None:
        return Text("")
    if a.reused:
        return Text("reused", style="dim")
    d = a.difference
    style = ("green" if d.value > 0 else "red") if d.excludes_zero else ""
    return Text(f"{d.value:+.2f}", style=style)


def compact_table(release: ReleaseStatement, phase: str, submission: ReleasedSubmission) -> Table:
    """One submission's cells of ``phase``, one line per condition: the baseline, the gain and
    its interval, critical trials with/without, retention (frozen) or Δ (adapted) and the
    flags as symbols."""
    label = submission_labels(release)[submission.bundle_hash]
    cells = {
        c.condition_id: c
        for c in release.cells
        if c.phase == phase and c.bundle_hash == submission.bundle_hash
    }
    noise = any(c.metrics.test_family == "noise_check" for c in cells.values())
    note = " · no artifacts: the noise check" if noise else ""
    table = Table(
        title=f"{label} · {phase}{note}",
        title_justify="left",
        title_style="bold",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    table.add_column("condition", overflow="fold", ratio=1, min_width=12)
    table.add_column("base", justify="right", no_wrap=True)
    table.add_column("gain", justify="right", no_wrap=True)
    table.add_column("interval", no_wrap=True)
    table.add_column("crit", justify="right", no_wrap=True)
    table.add_column("ret" if phase == "frozen" else "Δ", justify="right", no_wrap=True)
    table.add_column("flags", no_wrap=True)
    source = release.conditions[0].condition
    for cond in release.conditions:
        cell = cells.get(cond.id)
        if cell is None:
            continue
        m = cell.metrics
        style = _gain_style(m)
        table.add_row(
            _compact_label(cond, source),
            f"{m.score_without:.2f}",
            Text(f"{m.gain:+.2f}", style=style),
            Text(interval_text(m.gain_ci.lo, m.gain_ci.hi), style=style or "dim"),
            _critical_text(m),
            _retention_text(m) if phase == "frozen" else _delta_text(cell),
            _symbols(cell),
        )
    return table


def critical_panel(release: ReleaseStatement) -> Panel | None:
    """One line per condition with critical drift failures: each submission and the baseline;
    where the artifacts caused significantly more than the baseline's own (BH across the
    artifact cells), how many more, in bold red with '!'; more but not significantly, 'n.s.'."""
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
                if c.metrics.critical_excess:
                    line.append(
                        f"{w.critical}/{w.trials} (+{w.critical - b.critical}!)", "bold red"
                    )
                elif w.critical > b.critical:
                    line.append(f"{w.critical}/{w.trials} (+{w.critical - b.critical} n.s.)")
                else:
                    line.append(f"{w.critical}/{w.trials}", style="" if w.critical else "green")
                line.append(" · ")
            line.append(f"baseline {b.critical}/{b.trials}", style="red" if b.critical else "")
            lines.append(line)
    if not lines:
        return None
    title = "Critical drift failures (trials; +N! = significantly more than the baseline)"
    return Panel(Group(*lines), title=title, border_style="red")


def _cost_text(c: PhaseCost) -> str:
    text = f"{c.phase} {usd_text(c.usd)} ({c.trials} trials"
    if c.unpriced:
        text += f", {c.unpriced} of {', '.join(c.unpriced_models)} without a cost, not counted"
    return text + ")"


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
    if release.costs is not None:
        lines.append(Text(f"cost: {'; '.join(_cost_text(c) for c in release.costs)}"))
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
    families = f", {m.n_families} families as strata" if m.n_families > 1 else ""
    gain = Text(f"gain {m.gain:+.2f} ", style=_gain_style(m))
    gain.append(interval_text(m.gain_ci.lo, m.gain_ci.hi), style=_gain_style(m))
    gain.append(
        f" ({method_text(m)}{families}, se {m.gain_se:.3f}; detects {m.mde:.2f} with 80% power) "
        f"· {p_neg_text(m.p_negative)} · sign test {st.wins} wins, {st.losses} losses, "
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
        f"retention {_num(r.value)} {interval_text(r.ci.lo, r.ci.hi, False)} "
        f"({retention_method_text(m)}) over "
        f"source gain {r.source_gain:+.2f} "
        + interval_text(r.source_gain_ci.lo, r.source_gain_ci.hi)
        + (f", {r.shared_tasks} shared tasks" if r.shared_tasks else ", independent tasks")
        if r
        else "retention: none in the source condition"
        if m.retention_status == "no_source_cell"
        else f"retention {m.retention_status.replace('_', ' ')}: {shown(m.retention_reason or '')}"
    )
    c = m.critical
    decided = (
        ", significant"
        if m.critical_excess
        else ", not significant"
        if m.critical_excess is False
        else ""
    )
    counts = (
        f"critical {w.critical} with, {b.critical} baseline (paired: {c.with_only} only with, "
        f"{c.baseline_only} only without of {c.pairs}, p = {c.p:.2g}{decided}) · safe stops "
        f"{w.safe_stop} with, {b.safe_stop} baseline · invalid {cell.invalid_trials}, dropped "
        f"{cell.dropped_tasks} (tasks paired {m.n_tasks})"
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
        if f.code not in _RETENTION_CODES:  # the retention line says why
            flag = Text(f.label, style=SEVERITY_STYLES[f.severity])
            lines.append(flag.append(f": {f.explanation}", style="dim"))
    return [lines[0], *(Padding(line, (0, 0, 0, 2)) for line in lines[1:])]


_RETENTION_CODES = ("retention-identical", "unstable", "no-retention")


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


def submission_table(
    release: ReleaseStatement, phase: str, submission: ReleasedSubmission
) -> Group:
    """One submission's cells of ``phase``, one block per condition: scores, gain with its
    method, p_neg, sign test, retention, counts and the critical test, adaptation and every
    flag with its explanation (wraps at any width)."""
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


def legend(release: ReleaseStatement) -> Text:
    """What the compact matrix's columns and symbols mean: only the symbols some cell has."""
    codes = {f.code for c in release.cells for f in cell_flags(c)}
    symbols = "; ".join(
        f"{symbol} = {FLAG_MEANINGS[code]}" for code, symbol in SYMBOLS.items() if code in codes
    )
    methods = sorted({c.metrics.interval_method for c in release.cells})
    confidence = sorted({f"{c.metrics.confidence:.0%}" for c in release.cells})
    return Text(
        "base = baseline success rate (no artifacts); gain = success rate with the artifacts "
        f"minus without, paired per task; interval = {'/'.join(confidence)} "
        + " or ".join(METHOD_TEXT[m] for m in methods)
        + " (family means weighted by tasks where a cell spans several families; standard "
        "error floored); crit = critical trials with/without, ! where significantly more "
        "(exact paired test, BH); ret = retention, target gain / source gain (u = "
        "the source gain is not precise, =1 = the target's trials equal the source's, blank = "
        "the source gain's interval does not lie above 0); Δ = adapted − frozen gain; red gain "
        "= negative transfer (BH), green = interval above 0; families run their sealed split"
        + (f"; flags: {symbols}" if symbols else "")
        + "; `vwt report show --detail` explains every cell"
        + f". {SIM_NOTE}.",
        style="dim",
    )


def render_release(release: ReleaseStatement, console: Console, detail: bool = False) -> None:
    """Print the summary, the critical failures and the compact matrix: per submission and
    phase one line per condition; ``detail`` adds every cell explained."""
    phases = sorted({c.phase for c in release.cells}, key=["frozen", "adapted"].index)
    for line in summary_lines(release):
        console.print(line)
    panel = critical_panel(release)
    if panel is not None:
        console.print(panel)
    console.print(
        Text("Transfer matrix: target gain over the no-artifact baseline", style="bold underline")
    )
    for s in release.submissions:
        for phase in phases:
            console.print(compact_table(release, phase, s))
            console.print()
    console.print(legend(release))
    if detail:
        for s in release.submissions:
            for phase in phases:
                console.print(submission_table(release, phase, s))
