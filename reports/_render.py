"""Rendering a release for the terminal (rich)."""

from __future__ import annotations

from collections import Counter

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from conditions import Condition
from reports._matrix import Cell
from reports._release import ReleasedCondition, ReleasedSubmission, ReleaseStatement
from reports._summary import UNISOLATED_SANDBOX
from submissions import shown

SIM_NOTE = "sim models exercise the framework; their numbers say nothing about real models"
FEW_FAMILIES_MARK = "†"
"""Shown after the gain of a cell that resamples fewer than 5 families."""
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


def _status(cell: Cell) -> Text:
    m = cell.metrics
    parts = []
    if cell.invalid_trials:
        parts.append(
            (f"invalid {cell.invalid_trials}, dropped {cell.dropped_tasks}", "bold yellow")
        )
    if m.with_arm.critical:
        parts.append(("CRITICAL", "bold red"))
    if m.negative_transfer:
        parts.append(("negative transfer", "red"))
    if m.obsolete:
        parts.append(("obsolete", "yellow"))
    elif m.ceiling:
        parts.append(("ceiling", "yellow"))
    if m.floor:
        parts.append(("floor", "yellow"))
    if m.provisional:
        parts.append(("provisional", "dim"))
    if m.few_clusters:
        parts.append((f"{FEW_FAMILIES_MARK} {m.n_clusters} families", "yellow"))
    text = Text()
    for i, (word, style) in enumerate(parts):
        text.append((", " if i else "") + word, style=style)
    return text


def _gain(cell: Cell) -> Text:
    m = cell.metrics
    style = "red" if m.negative_transfer else ("green" if m.gain_ci.lo > 0 else "")
    text = Text(f"{m.gain:+.2f}", style=style)
    if m.few_clusters:
        text.append(f" {FEW_FAMILIES_MARK}", style="yellow")
    text.append(f"\n[{m.gain_ci.lo:+.2f},{m.gain_ci.hi:+.2f}]", style=style)
    return text


def _retention(cell: Cell) -> str:
    r = cell.metrics.retention
    return f"{r.value:.2f} [{r.ci.lo:.2f}, {r.ci.hi:.2f}]" if r else "—"


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


def _difference(cell: Cell) -> Text:
    """Adapted − frozen gain with its interval (green or red where it excludes 0)."""
    a = cell.adaptation
    if a is None:
        return Text("—")
    d = a.difference
    style = ("green" if d.value > 0 else "red") if d.excludes_zero else ""
    return Text(f"Δ {d.value:+.2f} [{d.ci.lo:+.2f},{d.ci.hi:+.2f}]", style=style)


def _adapted_notes(cell: Cell) -> list[tuple[str, str]]:
    """What a matrix cell of the adapted phase adds: the difference, the procedure (or that
    it reuses the frozen trials), the cost, the cost to restore and a leak flag."""
    a = cell.adaptation
    if a is None:
        return []
    d = a.difference
    style = ("green" if d.value > 0 else "red") if d.excludes_zero else ""
    notes = [(f"Δ {d.value:+.2f}", style), (f"frozen {a.frozen_gain:+.2f}", "dim")]
    notes.append(("reused" if a.reused else shown(a.procedure), "dim"))
    notes.append((_cost(cell), "dim"))
    if a.cost_to_restore is not None:
        notes.append((f"{a.cost_to_restore:+.3f}/1k tok", style))
    if a.leak_flagged:
        notes.append(("LEAK", "bold red"))
    return notes


def _critical(cell: Cell) -> Text:
    w, b = cell.metrics.with_arm, cell.metrics.without_arm
    text = Text(f"{w.critical}", style="bold red" if w.critical else "green")
    text.append(f" / {b.critical}", style="red" if b.critical else "")
    return text


def submission_table(
    release: ReleaseStatement, phase: str, submission: ReleasedSubmission
) -> Table:
    """One submission's row per condition."""
    source = release.conditions[0].condition
    labels = {c.id: condition_label(c, source) for c in release.conditions}
    order = {c.id: i for i, c in enumerate(release.conditions)}
    cells = sorted(
        (c for c in release.cells if c.phase == phase and c.bundle_hash == submission.bundle_hash),
        key=lambda c: order.get(c.condition_id, len(order)),
    )
    title = f"{submission_labels(release)[submission.bundle_hash]} — {phase}"
    table = Table(title=Text(title), title_justify="left", expand=False)
    adapted = phase == "adapted"
    columns = [
        ("condition", "left"),
        ("baseline", "right"),
        ("with", "right"),
        ("gain [95% CI]", "right"),
        ("retention", "right"),
        ("critical w / base", "right"),
        ("safe stops", "right"),
        ("pass^k", "right"),
        ("status", "left"),
    ]
    if adapted:
        columns[4:4] = [("frozen gain", "right"), ("adapted − frozen", "right")]
        columns[-1:-1] = [("procedure", "left"), ("cost", "right"), ("restore /1k tok", "right")]
    for name, justify in columns:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for cell in cells:
        m = cell.metrics
        k = len(m.with_arm.pass_hat_k)
        pass_k = f"{m.with_arm.pass_hat_k[-1]:.2f} (k={k})" if k else "—"
        row: list[Text | str] = [
            Text(labels.get(cell.condition_id, shown(cell.condition_id))),
            f"{m.score_without:.2f}",
            f"{m.score_with:.2f}",
            _gain(cell),
            _retention(cell),
            _critical(cell),
            str(m.with_arm.safe_stop),
            pass_k,
            _status(cell),
        ]
        if adapted and (a := cell.adaptation) is not None:
            row[4:4] = [f"{a.frozen_gain:+.2f}", _difference(cell)]
            restore = f"{a.cost_to_restore:+.3f}" if a.cost_to_restore is not None else "—"
            procedure = "reused" if a.reused else shown(a.procedure)
            row[-1:-1] = [procedure + (" LEAK" if a.leak_flagged else ""), _cost(cell), restore]
        table.add_row(*row)
    return table


def _matrix_cell(cell: Cell | None) -> Text:
    if cell is None:
        return Text("—", style="dim")
    m = cell.metrics
    text = _gain(cell)
    notes: list[tuple[str, str]] = []
    if m.retention:
        notes.append((f"ret {m.retention.value:.2f}", ""))
    if m.with_arm.critical:
        notes.append((f"critical {m.with_arm.critical}", "bold red"))
    if m.with_arm.safe_stop:
        notes.append((f"safe-stop {m.with_arm.safe_stop}", "cyan"))
    if m.negative_transfer:
        notes.append(("NEGATIVE", "bold red"))
    if m.obsolete:
        notes.append(("obsolete", "yellow"))
    if cell.invalid_trials:
        notes.append((f"invalid {cell.invalid_trials}", "bold yellow"))
        notes.append((f"dropped {cell.dropped_tasks}", "bold yellow"))
    notes += _adapted_notes(cell)
    for note, style in notes:  # one per line: columns stay narrow
        text.append("\n" + note, style=style)
    return text


_CELL_WIDTH = 13  # "[+0.29,+0.58]"
_JOIN = "\n+ "  # matrix rows are tall anyway: one changed axis per line keeps columns narrow


def matrix_table(release: ReleaseStatement, phase: str, submissions: list[str]) -> Table:
    """Conditions × ``submissions`` (bundle hashes): target gain with its interval and what
    else matters; columns are named name@version (with a short hash if two share it)."""
    source = release.conditions[0].condition
    table = Table(
        title=f"Transfer matrix ({phase}): target gain [95% CI] over the no-artifact baseline",
        title_justify="left",
        show_lines=True,
    )
    table.add_column("condition", no_wrap=True)
    table.add_column("baseline", justify="right")
    labels = submission_labels(release)
    for bundle in submissions:
        table.add_column(Text(labels[bundle]), justify="left", min_width=_CELL_WIDTH)
    cells = {(c.condition_id, c.bundle_hash): c for c in release.cells if c.phase == phase}
    for cond in release.conditions:
        row = [cells.get((cond.id, s)) for s in submissions]
        present = [c for c in row if c is not None]
        if not present:
            continue
        base = present[0].metrics
        base_text = Text(f"{base.score_without:.2f}")
        if base.without_arm.critical:
            base_text.append(f"\ncritical {base.without_arm.critical}", style="red")
        label = condition_label(cond, source, _JOIN)
        table.add_row(Text(label), base_text, *(_matrix_cell(c) for c in row))
    return table


def submission_groups(release: ReleaseStatement, width: int) -> list[list[str]]:
    """The submissions' bundle hashes split into as few tables as fit ``width`` columns."""
    source = release.conditions[0].condition
    label = max(
        len(line)
        for c in release.conditions
        for line in condition_label(c, source, _JOIN).splitlines()
    )
    fixed = label + 11 + 7  # condition and baseline columns with their borders
    per_table = max(1, (width - fixed) // (_CELL_WIDTH + 3))
    bundles = [s.bundle_hash for s in release.submissions]
    return [bundles[i : i + per_table] for i in range(0, len(bundles), per_table)]


def critical_panel(release: ReleaseStatement) -> Panel | None:
    """One line per condition with critical drift failures: each submission and the baseline."""
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
            for c in cells:
                w = c.metrics.with_arm
                line.append(f"{labels.get(c.bundle_hash, shown(c.submission))} ", style="")
                line.append(f"{w.critical}/{w.trials}", style="bold red" if w.critical else "green")
                line.append(" · ")
            b = cells[0].metrics.without_arm
            line.append(f"baseline {b.critical}/{b.trials}", style="red" if b.critical else "")
            lines.append(line)
    if not lines:
        return None
    return Panel(Group(*lines), title="Critical drift failures (trials)", border_style="red")


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


def legend(release: ReleaseStatement) -> Text:
    """What the matrix's words and marks mean; the few-families mark only where a cell has it."""
    few = any(c.metrics.few_clusters for c in release.cells)
    return Text(
        "gain = success rate with the artifacts minus without, paired per task; ret = "
        "retention (target gain / source gain); critical = silent use of changed semantics "
        "with effect; safe-stop = stopped on a detected interface change; NEGATIVE = gain "
        "reliably below 0 (BH-controlled); invalid / dropped = accepted invalid trials in "
        "the cell's two arms / tasks left out for them"
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
    """Print the summary and the matrix (critical failures first); ``detail`` adds a table per
    submission."""
    phases = sorted({c.phase for c in release.cells}, key=["frozen", "adapted"].index)
    for line in summary_lines(release):
        console.print(line)
    panel = critical_panel(release)
    if panel is not None:
        console.print(panel)
    for phase in phases:
        for group in submission_groups(release, console.width):
            console.print(matrix_table(release, phase, group))
        if detail:
            for s in release.submissions:
                console.print(submission_table(release, phase, s))
    console.print(legend(release))
