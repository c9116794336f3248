"""Rendering a release for the terminal (rich)."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from conditions import Condition
from reports._matrix import Cell
from reports._release import ReleasedCondition, ReleaseStatement

SIM_NOTE = "sim models exercise the framework; their numbers say nothing about real models"


def _axis_change(axis: str, source: Condition, target: Condition) -> str:
    if axis == "model":
        return f"model {source.model.model}→{target.model.model}"
    if axis == "provider":
        return f"provider {source.provider}→{target.provider}"
    if axis == "tool_interface":
        changed = [
            f"{target.tool_interface[e]}"
            for e in target.tool_interface
            if source.tool_interface.get(e) != target.tool_interface[e]
        ]
        return "tools →" + ",".join(changed)
    if axis == "task_family":
        t = target.task_family
        return f"family →{t.family}/{t.split}"
    return f"harness {source.harness}→{target.harness}"


def condition_label(c: ReleasedCondition, source: Condition) -> str:
    """A short label: 'source', or what changed."""
    if c.role == "source":
        return "source"
    # model and provider change together when the provider does; name the provider change once
    axes = [a for a in c.varied if not (a == "model" and "provider" in c.varied)]
    return "; ".join(_axis_change(a, source, c.condition) for a in axes) or c.id


def _status(cell: Cell) -> Text:
    m = cell.metrics
    parts = []
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
    text = Text()
    for i, (word, style) in enumerate(parts):
        text.append((", " if i else "") + word, style=style)
    return text


def _gain(cell: Cell) -> Text:
    m = cell.metrics
    style = "red" if m.negative_transfer else ("green" if m.gain_ci.lo > 0 else "")
    return Text(f"{m.gain:+.2f} [{m.gain_ci.lo:+.2f}, {m.gain_ci.hi:+.2f}]", style=style)


def _retention(cell: Cell) -> str:
    r = cell.metrics.retention
    return f"{r.value:.2f} [{r.ci.lo:.2f}, {r.ci.hi:.2f}]" if r else "—"


def _critical(cell: Cell) -> Text:
    w, b = cell.metrics.with_arm, cell.metrics.without_arm
    text = Text(f"{w.critical}", style="bold red" if w.critical else "green")
    text.append(f" / {b.critical}", style="red" if b.critical else "")
    return text


def submission_table(release: ReleaseStatement, phase: str, submission: str) -> Table:
    """One submission's row per condition."""
    source = release.conditions[0].condition
    labels = {c.id: condition_label(c, source) for c in release.conditions}
    order = {c.id: i for i, c in enumerate(release.conditions)}
    cells = sorted(
        (c for c in release.cells if c.phase == phase and c.submission == submission),
        key=lambda c: order.get(c.condition_id, len(order)),
    )
    table = Table(title=f"{submission} — {phase}", title_justify="left", expand=False)
    for name, justify in [
        ("condition", "left"),
        ("baseline", "right"),
        ("with", "right"),
        ("gain [95% CI]", "right"),
        ("retention", "right"),
        ("critical w / base", "right"),
        ("safe stops", "right"),
        ("pass^k", "right"),
        ("status", "left"),
    ]:
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for cell in cells:
        m = cell.metrics
        k = len(m.with_arm.pass_hat_k)
        pass_k = f"{m.with_arm.pass_hat_k[-1]:.2f} (k={k})" if k else "—"
        table.add_row(
            labels.get(cell.condition_id, cell.condition_id),
            f"{m.score_without:.2f}",
            f"{m.score_with:.2f}",
            _gain(cell),
            _retention(cell),
            _critical(cell),
            str(m.with_arm.safe_stop),
            pass_k,
            _status(cell),
        )
    return table


def render_release(release: ReleaseStatement, console: Console) -> None:
    """Print the matrix: one table per submission and phase, critical failures first."""
    phases = sorted({c.phase for c in release.cells}, key=["frozen", "adapted"].index)
    source = release.conditions[0].condition
    labels = {c.id: condition_label(c, source) for c in release.conditions}
    crit = [
        c for c in release.cells if c.metrics.with_arm.critical or c.metrics.without_arm.critical
    ]
    if crit:
        lines = [
            Text.assemble(
                (f"{c.submission}", "bold"),
                f" in {labels.get(c.condition_id, c.condition_id)} ({c.phase}): ",
                (f"{c.metrics.with_arm.critical}", "bold red"),
                f" of {c.metrics.with_arm.trials} trials with artifacts, "
                f"{c.metrics.without_arm.critical} of {c.metrics.without_arm.trials} baseline",
            )
            for c in crit
        ]
        console.print(Panel(Group(*lines), title="Critical drift failures", border_style="red"))
    for phase in phases:
        for s in release.submissions:
            console.print(submission_table(release, phase, f"{s.name}@{s.version}"))
    console.print(
        Text(f"Gain = success with artifacts − baseline, paired per task. {SIM_NOTE}.", style="dim")
    )
