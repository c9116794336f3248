"""`vwt run`: the operator's frozen and adapted evaluations, and a submitter's dev run."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.markup import escape
from rich.table import Column, Table
from rich.text import Text

from vwt._common import (
    DEFAULT_HOME,
    FamilyDirs,
    Home,
    RayAddress,
    console,
    trial_progress,
    use_families,
    use_ray_address,
    user_errors,
)
from vwt._json_out import AsJson, emit_json

if TYPE_CHECKING:
    from reports import ArmSummary, Cell
    from runner import Accounting, DevRun, Execution, Progress

# The packages are imported by the commands that use them, not here: `vwt run … --help` needs
# none of them, so these two are spelled out (tests/vwt/test_cli.py checks them against runner).
SandboxKind = Literal["auto", "local", "docker"]
"""runner.SandboxKind's values."""
MAX_ATTEMPTS = 3
"""runner.MAX_ATTEMPTS."""

app = typer.Typer(
    help="Operators: run the frozen and adapted evaluations of a cycle on Ray (resumable). "
    "Submitters: 'dev' runs a bundle against the baseline on the public dev split.\n\n"
    "Model calls, by environment: VWT_MODEL_TIMEOUT_S (60) and VWT_MODEL_ATTEMPTS (3) per "
    "request; limits per worker process: VWT_MAX_CONCURRENCY (requests in flight), "
    "VWT_PROVIDER_CONCURRENCY, VWT_RPM and VWT_TPM (provider=number pairs, e.g. "
    "openai=8,anthropic=4; a bare number for every other provider). A 429/503's Retry-After "
    "is waited (at most 60 s). See docs/model_limits.md.",
    no_args_is_help=True,
)

DEV_HOME = Path(".vwt-dev")

UseCache = Annotated[
    bool,
    typer.Option(
        "--cache",
        help="Answer a model request identical to one already answered in this home (same "
        "model, seed, messages, tools, parameters) from its recorded reply: a run again after a "
        "crash asks the model only what it had not answered. See docs/recording.md.",
    ),
]
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
CommittedTasks = Annotated[
    int | None,
    typer.Option(
        "--tasks", min=1, help="Tasks per split: must equal the committed evaluation size."
    ),
]
CommittedTrials = Annotated[
    int | None,
    typer.Option("--k", min=1, help="Trials per task and arm: must equal the committed k."),
]
MaxAttempts = Annotated[
    int,
    typer.Option(
        "--max-attempts",
        min=1,
        help="Attempts per trial in this run: an invalid trial (infrastructure failure) is "
        "run again until valid or this many attempts; every attempt is kept.",
    ),
]


def _progress(as_json: bool, what: str) -> AbstractContextManager[Progress | None]:
    return nullcontext() if as_json else trial_progress(what)


def _emit(data: dict[str, Any]) -> None:
    emit_json(data)


def _print_calls(execution: Execution, cache: bool) -> None:
    if cache:
        console.print(
            f"model calls: {execution.model_calls} made, {execution.cached_calls} answered "
            "from the cache",
            highlight=False,
        )


def _print_run(execution: Execution, accounting: Accounting, cache: bool = False) -> None:
    retried = f" ({execution.retried} retries)" if execution.retried else ""
    console.print(
        f"{execution.planned} trials planned: {execution.already_stored} already stored, "
        f"{execution.ran} run now{retried}"
    )
    _print_calls(execution, cache)
    for error in execution.failed_batches:
        console.print(f"[red]batch failed:[/] {escape(error)}", highlight=False)
    outcomes = ", ".join(f"{k} {v}" for k, v in sorted(accounting.outcomes.items()))
    console.print(
        f"{accounting.phase}: {accounting.observed} of {accounting.expected} trials recorded "
        f"({accounting.valid} valid, {accounting.invalid} invalid, {accounting.missing} missing, "
        f"{accounting.unexpected} unexpected): {outcomes}",
        highlight=False,
    )


_NEXT = {
    "frozen": "`vwt cycle advance adaptation` when the frozen runs are final",
    "adapted": "`vwt conditions reveal`, then `vwt report build`",
}
_BYPASS = {
    "frozen": "`vwt cycle advance adaptation --home {home} --accept-invalid`",
    "adapted": "`vwt conditions reveal --home {home} --accept-invalid`",
}


def _phase(
    phase: Literal["frozen", "adapted"],
    home: Path,
    sandbox: SandboxKind,
    tasks: int | None,
    k: int | None,
    max_attempts: int,
    as_json: bool,
    cache: bool,
) -> None:
    from benchmark import ModelPolicy
    from conditions import Cycle
    from runner import invalid_trials_error, run_phase

    ModelPolicy.from_env()  # a malformed model setting: one error before anything is written
    cycle = Cycle.open(home)
    with _progress(as_json, f"{phase} trials") as progress:
        execution, accounting = run_phase(
            cycle,
            phase,
            sandbox=sandbox,
            tasks_per_split=tasks,
            k=k,
            max_attempts=max_attempts,
            progress=progress,
            cache=cache,
        )
    if as_json:
        _emit(
            {
                "cycle": cycle.id,
                "phase": phase,
                "execution": execution.model_dump(mode="json"),
                "accounting": accounting.as_json(),
            }
        )
    else:
        _print_run(execution, accounting, cache)
    if accounting.invalid:
        raise invalid_trials_error(accounting, execution, _BYPASS[phase].format(home=home))
    if not as_json:
        console.print(f"next: {_NEXT[phase]}", highlight=False)


@app.command()
@user_errors
def frozen(
    home: Home = DEFAULT_HOME,
    sandbox: Sandbox = "auto",
    tasks: CommittedTasks = None,
    k: CommittedTrials = None,
    max_attempts: MaxAttempts = MAX_ATTEMPTS,
    cache: UseCache = False,
    as_json: AsJson = False,
    ray_address: RayAddress = None,
) -> None:
    """Run every submission and the baseline in the source and every target.

    Needs the cycle in state frozen_run; runs at the committed evaluation size.
    Trials with a valid record are not repeated: after an interruption, or
    while trials are still invalid (exit 2, naming the first reason), run the
    same command again. --json prints one object: cycle, phase, execution and
    accounting (per-cell counts, complete, clean).
    """
    use_ray_address(ray_address)
    _phase("frozen", home, sandbox, tasks, k, max_attempts, as_json, cache)


@app.command()
@user_errors
def adapted(
    home: Home = DEFAULT_HOME,
    sandbox: Sandbox = "auto",
    tasks: CommittedTasks = None,
    k: CommittedTrials = None,
    max_attempts: MaxAttempts = MAX_ATTEMPTS,
    cache: UseCache = False,
    as_json: AsJson = False,
    ray_address: RayAddress = None,
) -> None:
    """Run the adapted bundles (cycle in state adapted_run, after `vwt adapt`).

    Each adapted bundle that changed runs in the target it was adapted to, on
    the frozen run's tasks and seeds. The baseline is not run again: adapted
    cells pair with the frozen baseline's trials. An adaptation that changed
    nothing runs nothing: its cell reuses the frozen trials. Resumable as
    `run frozen`; --json as for `run frozen`.
    """
    use_ray_address(ray_address)
    _phase("adapted", home, sandbox, tasks, k, max_attempts, as_json, cache)


def _arm_row(name: str, score: float, cell: Cell, with_arm: bool) -> list[str]:
    arm = cell.metrics.with_arm if with_arm else cell.metrics.without_arm
    k = len(arm.pass_hat_k)
    pass_k = f"{arm.pass_hat_k[-1]:.2f} (k={k})" if k else "-"
    critical = f"[bold red]{arm.critical}[/]" if arm.critical else "0"
    row = [f"{score:.2f}", f"{critical} / {arm.trials}", str(arm.safe_stop), str(arm.invalid)]
    return [name, *row, pass_k]


def _print_dev(run: DevRun, cell: Cell, cache: bool) -> None:
    from reports import method_text

    c, m = run.condition, cell.metrics
    tools = ", ".join(f"{env}={v}" for env, v in sorted(c.tool_interface.items()))
    console.print(
        f"[bold]{escape(run.submission)}[/] vs the no-artifact baseline on {c.id}: "
        + escape(
            f"model {c.model.model} ({c.provider}), tools {tools}, {c.task_family.label}, "
            f"{c.harness}; {run.tasks_per_split} tasks × k={run.k}"
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
        f" ({method_text(m)}); sign test {m.sign_test.wins} wins, {m.sign_test.losses} losses, "
        f"{m.sign_test.ties} ties; p_neg = {m.p_negative:.3g}; detects {m.mde:.2f} with 80% power"
    )
    console.print(line)
    named = [
        ("negative transfer", m.negative_transfer),
        ("more critical failures (exact paired test)", m.critical_excess),
        ("identical trials", m.variation == "identical"),
        ("no variation", m.variation == "no_variation"),
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
    _print_calls(run.execution, cache)


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
    harness: Annotated[
        str | None,
        typer.Option(
            "--harness",
            help="Run under this harness instead of the source's: any installed one, e.g. "
            "harness-v3 or openai-agents@0.8.4 (`vwt harnesses list`).",
        ),
    ] = None,
    tasks: Tasks = None,
    k: Trials = None,
    home: Annotated[
        Path,
        typer.Option("--home", help="Where dev trials are stored and reused; no keys needed."),
    ] = DEV_HOME,
    sandbox: Sandbox = "auto",
    max_attempts: MaxAttempts = MAX_ATTEMPTS,
    cache: UseCache = False,
    as_json: AsJson = False,
    ray_address: RayAddress = None,
    families: FamilyDirs = None,
    family_id: Annotated[
        str | None,
        typer.Option(
            "--family",
            help="Run on this family's dev split instead of the source's (its environment at "
            "the source's interface version, else its base); default with --families naming "
            "one family: that family.",
        ),
    ] = None,
) -> None:
    """Run a bundle and the no-artifact baseline on the source's dev split.

    Prints that one cell: success rates, gain with its interval, critical drift
    failures, safe stops and pass^k. Trials with a valid record are reused:
    re-running after editing the bundle runs only its own arm, re-running after
    a failure (say the model server was down) runs only the invalid trials.
    Exits 2, naming the first reason, while trials are still invalid. --json
    prints one object: submission, bundle_hash, condition_id, model, tasks, k,
    store, with and without (score, trials, valid, invalid, critical,
    safe_stop, pass_hat_k), gain, interval (lo, hi), confidence, p_negative,
    execution and accounting.

    --families DIR loads task families written as folders (docs/folder-families.md); their
    server and verifier commands run only in the Docker sandbox (--sandbox local runs them
    unisolated, as asked).
    """
    from benchmark import BenchmarkError, ModelPolicy, check_model, default_cycle_spec_path
    from conditions import CycleSpec

    use_ray_address(ray_address)
    ModelPolicy.from_env()  # a malformed model setting: one error before anything is written
    spec = CycleSpec.load(spec_path if spec_path is not None else default_cycle_spec_path())
    if model is not None:  # a mistyped model is answered before the runner is even imported
        check_model(model, spec.endpoints.get(model))
    if harness is not None:
        from benchmark.harness import usable_harness

        usable_harness(harness)
    loaded = use_families(families)
    if family_id is None and len(loaded) > 1:
        raise BenchmarkError(
            f"--families loaded {len(loaded)} families ({', '.join(loaded)})",
            "pick the one to run with --family ID",
        )
    family_id = family_id or (loaded[0] if loaded else None)

    from reports import ReportError, build_matrix
    from runner import invalid_trials_error, run_dev
    from vwt.cmd_submissions import load_bundle

    bundle = load_bundle(submission)
    with _progress(as_json, "dev trials") as progress:
        run = run_dev(
            bundle,
            spec,
            home,
            model=model,
            harness=harness,
            tasks_per_split=tasks,
            k=k,
            sandbox=sandbox,
            max_attempts=max_attempts,
            progress=progress,
            cache=cache,
            family_id=family_id,
        )
    try:
        (cell,) = build_matrix(
            list(run.records),
            conditions={run.condition.id: run.condition},
            source_id=run.condition.id,
            fdr_q=spec.evaluation.fdr_q,
        )
    except ReportError:
        if run.accounting.invalid:  # nothing to compare: the invalid trials are the news
            raise invalid_trials_error(run.accounting, run.execution) from None
        raise
    if as_json:
        _emit(_dev_json(run, cell))
    else:
        _print_dev(run, cell, cache)
    if run.accounting.invalid:
        raise invalid_trials_error(run.accounting, run.execution)


def _arm_json(score: float, arm: ArmSummary) -> dict[str, Any]:
    return {
        "score": score,
        "trials": arm.trials,
        "valid": arm.trials - arm.invalid,
        "invalid": arm.invalid,
        "critical": arm.critical,
        "safe_stop": arm.safe_stop,
        "pass_hat_k": arm.pass_hat_k,
    }


def _dev_json(run: DevRun, cell: Cell) -> dict[str, Any]:
    from reports import method_text

    m = cell.metrics
    return {
        "submission": run.submission,
        "bundle_hash": run.bundle_hash,
        "condition_id": run.condition.id,
        "model": run.condition.model.model,
        "tasks": run.tasks_per_split,
        "k": run.k,
        "store": str(run.store),
        "with": _arm_json(m.score_with, m.with_arm),
        "without": _arm_json(m.score_without, m.without_arm),
        "gain": m.gain,
        "interval": [m.gain_ci.lo, m.gain_ci.hi],
        "confidence": m.confidence,
        "interval_method": m.interval_method,
        "interval_method_text": method_text(m),
        "gain_se": m.gain_se,
        "mde": m.mde,
        "p_negative": m.p_negative,
        "execution": run.execution.model_dump(mode="json"),
        "accounting": run.accounting.as_json(),
    }
