"""`vwt run`: the operator's frozen and adapted evaluations, and a submitter's dev run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer
from rich.markup import escape
from rich.table import Column, Table
from rich.text import Text

from benchmark import default_cycle_spec_path
from conditions import Cycle, CycleSpec
from reports import Cell, build_matrix
from runner import Accounting, DevRun, Execution, SandboxKind, run_dev, run_phase
from vwt._common import DEFAULT_HOME, Home, console, trial_progress, user_errors
from vwt.cmd_submissions import load_bundle

app = typer.Typer(
    help="Operators: run the frozen and adapted evaluations of a cycle on Ray (resumable). "
    "Submitters: 'dev' runs a bundle against the baseline on the public dev split.",
    no_args_is_help=True,
)

DEV_HOME = Path(".vwt-dev")

Sandbox = Annotated[
    SandboxKind,
    typer.Option("--sandbox", help="Where environment backends run: docker if usable, else local."),
]
Tasks = Annotated[
    int | None, typer.Option("--tasks", min=1, help="Tasks per condition (default: the spec's).")
]
Trials = Annotated[
    int | None, typer.Option("--k", min=1, help="Trials per task and arm (default: the spec's).")
]


def _print_run(execution: Execution, accounting: Accounting) -> None:
    console.print(
        f"{execution.planned} trials planned: {execution.already_stored} already stored, "
        f"{execution.ran} run now"
    )
    for error in execution.failed_batches:
        console.print(f"[red]batch failed:[/] {escape(error)}", highlight=False)
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(accounting.outcomes.items()))
    console.print(
        f"{accounting.phase}: {accounting.observed} of {accounting.expected} trials recorded "
        f"({accounting.missing} missing, {accounting.unexpected} unexpected): {outcomes}"
    )


_NEXT = {
    "frozen": "`vwt cycle advance adaptation` when the frozen runs are final",
    "adapted": "`vwt conditions reveal`, then `vwt report build`",
}


def _phase(
    phase: Literal["frozen", "adapted"],
    home: Path,
    sandbox: SandboxKind,
    tasks: int | None,
    k: int | None,
) -> None:
    cycle = Cycle.open(home)
    with trial_progress() as progress:
        execution, accounting = run_phase(
            cycle, phase, sandbox=sandbox.value, tasks_per_split=tasks, k=k, progress=progress
        )
    _print_run(execution, accounting)
    console.print(f"next: {_NEXT[phase]}", highlight=False)


@app.command()
@user_errors
def frozen(
    home: Home = DEFAULT_HOME,
    sandbox: Sandbox = SandboxKind.auto,
    tasks: Tasks = None,
    k: Trials = None,
) -> None:
    """Run every submission as submitted, and the baseline, in the source and every target.

    Needs the cycle in state frozen_run. Stored trials are not repeated: after an
    interruption, run the same command again to resume.
    """
    _phase("frozen", home, sandbox, tasks, k)


@app.command()
@user_errors
def adapted(
    home: Home = DEFAULT_HOME,
    sandbox: Sandbox = SandboxKind.auto,
    tasks: Tasks = None,
    k: Trials = None,
) -> None:
    """Run the adapted phase (cycle in state adapted_run).

    No adaptation procedure exists yet, so there are no adapted bundles: the phase is
    recorded empty in the ledger and nothing runs.
    """
    _phase("adapted", home, sandbox, tasks, k)


def _arm_row(name: str, score: float, cell: Cell, with_arm: bool) -> list[str]:
    arm = cell.metrics.with_arm if with_arm else cell.metrics.without_arm
    k = len(arm.pass_hat_k)
    pass_k = f"{arm.pass_hat_k[-1]:.2f} (k={k})" if k else "-"
    critical = f"[bold red]{arm.critical}[/]" if arm.critical else "0"
    row = [f"{score:.2f}", f"{critical} / {arm.trials}", str(arm.safe_stop), str(arm.invalid)]
    return [name, *row, pass_k]


def _print_dev(run: DevRun, cell: Cell) -> None:
    c, m = run.condition, cell.metrics
    tools = ", ".join(f"{env}={v}" for env, v in sorted(c.tool_interface.items()))
    console.print(
        f"[bold]{escape(run.submission)}[/] vs the no-artifact baseline on {c.id}: "
        + escape(
            f"model {c.model.model} ({c.provider}), tools {tools}, {c.task_family.family}/"
            f"{c.task_family.split}, {c.harness}; {run.tasks_per_split} tasks × k={run.k}"
        ),
        highlight=False,
    )
    arm = Column("arm", no_wrap=True)  # the submission's name is what users look for
    table = Table(arm, "success", "critical / trials", "safe stops", "invalid", "pass^k")
    table.add_row(*_arm_row("baseline", m.score_without, cell, with_arm=False))
    table.add_row(*_arm_row(escape(run.submission), m.score_with, cell, with_arm=True))
    console.print(table)
    ci = m.gain_ci
    style = "red" if m.negative_transfer else ("green" if ci.lo > 0 else "")
    line = Text("gain ")
    line.append(f"{m.gain:+.2f} [{ci.lo:+.2f}, {ci.hi:+.2f}]", style=style)
    line.append(
        f" ({m.confidence:.0%} CI, {m.bootstrap} resamples); sign test {m.sign_test.wins} wins, "
        f"{m.sign_test.losses} losses, {m.sign_test.ties} ties; p(gain < 0) = {m.p_negative:.3g}"
    )
    console.print(line)
    named = [
        ("negative transfer", m.negative_transfer),
        ("ceiling", m.ceiling),
        ("floor", m.floor),
        ("provisional", m.provisional),
    ]
    flags = [name for name, on in named if on]
    if flags:
        console.print(f"flags: {', '.join(flags)}", highlight=False)
    calls = sum(r.usage.calls for r in run.records)
    tokens = sum(r.usage.prompt_tokens + r.usage.completion_tokens for r in run.records)
    console.print(
        f"{run.execution.ran} trials run now, {run.execution.already_stored} reused from "
        f"{run.store}; {calls} model calls, {tokens} tokens in all",
        markup=False,
    )


@app.command()
@user_errors
def dev(
    submission: Annotated[
        Path,
        typer.Option(
            "--submission",
            help="Bundle directory or packed bundle file to run.",
            show_default=False,
        ),
    ],
    spec_path: Annotated[
        Path | None,
        typer.Option(
            "--spec",
            help="Cycle spec whose public source condition to use; the embedded default when "
            "omitted.",
            dir_okay=False,
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            help="Run with this litellm model instead of the source's, e.g. "
            "openai/gpt-4o-mini or sim/acme-3 (real providers need their API key set).",
        ),
    ] = None,
    tasks: Tasks = None,
    k: Trials = None,
    home: Annotated[
        Path,
        typer.Option("--home", help="Where dev trials are stored and reused; no keys needed."),
    ] = DEV_HOME,
    sandbox: Sandbox = SandboxKind.auto,
) -> None:
    """Run a bundle and the no-artifact baseline on the source condition's dev split.

    Prints that one cell: success rates, gain with its interval, critical drift failures,
    safe stops and pass^k. Stored trials are reused, so re-running after editing the bundle
    only runs its own arm.
    """
    bundle = load_bundle(submission)
    spec = CycleSpec.load(spec_path if spec_path is not None else default_cycle_spec_path())
    with trial_progress() as progress:
        run = run_dev(
            bundle,
            spec,
            home,
            model=model,
            tasks_per_split=tasks,
            k=k,
            sandbox=sandbox.value,
            progress=progress,
        )
    (cell,) = build_matrix(
        list(run.records),
        source_id=run.condition.id,
        seed=spec.seed,
        bootstrap=spec.evaluation.bootstrap,
        fdr_q=spec.evaluation.fdr_q,
    )
    _print_dev(run, cell)
