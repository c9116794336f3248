"""`vwt trials`: list a release's (or the operator store's) trials, read one with its trace, and
replay trials from their recorded model calls."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from reports import (
    TrialGroup,
    TrialSet,
    condition_label,
    find_trial,
    group_trials,
    home_trials,
    release_trials,
    select_trials,
    trial_reason,
)
from runner import RunnerError, SandboxKind, TrialRecord
from submissions import shown
from vwt._common import DEFAULT_HOME, Home, console, trial_progress, user_errors
from vwt._json_out import AsJson, emit_json

app = typer.Typer(
    help="Researchers: list the trials of a release, read one with its trace (each message, "
    "tool call and result), and replay trials from their recorded model calls. Operators: "
    "the same from the cycle's store (--home). Submitters: the same from a dev run's home "
    "(--home H of `vwt run dev`).",
    no_args_is_help=True,
)

Release = Annotated[
    Path | None,
    typer.Option(
        "--release",
        help="A release.json or the directory holding it (its traces/ beside it); without it, "
        "the trials in the store of --home: a cycle's, or a dev home's (`vwt run dev --home`).",
    ),
]
MAX_SHOWN = 400
"""Characters of a message or tool result shown without --full."""


def _trials(release: Path | None, home: Path) -> TrialSet:
    return release_trials(release) if release is not None else home_trials(home)


def _label(trials: TrialSet, r: TrialRecord) -> str:
    c = trials.conditions.get(r.condition_id)
    return condition_label(c, trials.source) if c is not None else shown(r.condition_id)


def _submission(r: TrialRecord) -> str:
    return shown(r.submission) if r.submission and r.arm == "with" else "baseline"


@app.command("list")
@user_errors
def list_cmd(
    release: Release = None,
    home: Home = DEFAULT_HOME,
    submission: Annotated[
        list[str] | None,
        typer.Option(
            "--submission", metavar="NAME[@VERSION]", help="NAME or NAME@VERSION (repeatable)."
        ),
    ] = None,
    condition: Annotated[
        list[str] | None,
        typer.Option(
            "--condition",
            metavar="ID",
            help="A condition id, a unique prefix of one, or 'source' (repeatable).",
        ),
    ] = None,
    cell: Annotated[
        list[str] | None,
        typer.Option(
            "--cell",
            metavar="SUBMISSION:CONDITION",
            help="SUBMISSION:CONDITION, e.g. typed-skill@1:c-3f2a (repeatable): one cell's "
            "with-arm trials.",
        ),
    ] = None,
    axis: Annotated[
        list[str] | None,
        typer.Option(
            "--axis",
            metavar="AXIS",
            help="Only targets varying this axis: model, provider, tool_interface, task_family, "
            "harness (repeatable).",
        ),
    ] = None,
    phase: Annotated[
        list[str] | None,
        typer.Option("--phase", metavar="PHASE", help="dev, frozen or adapted (repeatable)."),
    ] = None,
    arm: Annotated[
        list[str] | None, typer.Option("--arm", metavar="ARM", help="with or without (repeatable).")
    ] = None,
    outcome: Annotated[
        list[str] | None,
        typer.Option(
            "--outcome",
            metavar="OUTCOME",
            help="success, safe_stop, failure, critical or invalid (repeatable: any of them).",
        ),
    ] = None,
    by_cell: Annotated[
        bool,
        typer.Option(
            "--by-cell",
            help="One line per phase × submission × condition instead: how many trials, their "
            "outcomes, the most common reason and an example key.",
        ),
    ] = False,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the matching records (or groups) as one JSON array."),
    ] = False,
) -> None:
    """One line per trial: key prefix, submission, condition, task, trial, outcome and why
    (critical flags, safe-stop reason or first verifier reason). Filters combine with AND;
    a repeated filter admits any of its values.

    Example, which submissions lost their gain when the tool interface changed, and why:
    `vwt trials list --release R --axis tool_interface --arm with --outcome critical
    --outcome failure --by-cell`, then `vwt trials show KEY --release R`.
    """
    trials = _trials(release, home)
    picked = select_trials(
        trials,
        submissions=submission or (),
        conditions=condition or (),
        cells=cell or (),
        axes=axis or (),
        phases=phase or (),
        arms=arm or (),
        outcomes=outcome or (),
    )
    if by_cell:
        _print_groups(trials, group_trials(picked), as_json)
        return
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in picked], indent=2))
        return
    rows = [
        (
            r.key[:12],
            r.phase,
            _submission(r),
            _label(trials, r),
            shown(r.task_id),
            f"#{r.trial}",
            r.outcome,
            shown(trial_reason(r)),
        )
        for r in picked
    ]
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(7)]
    for row in rows:
        line = "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=False)) + "  " + row[7]
        console.print(line.rstrip(), markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"{len(picked)} of {len(trials.records)} trials of {shown(trials.where)}; "
        "read one with `vwt trials show KEY` (a unique key prefix is enough)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _print_groups(trials: TrialSet, groups: list[TrialGroup], as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps([g.model_dump(mode="json") for g in groups], indent=2))
        return
    rows = []
    for g in groups:
        c = trials.conditions.get(g.condition_id)
        label = condition_label(c, trials.source) if c is not None else shown(g.condition_id)
        outcomes = ", ".join(f"{o} {n}" for o, n in sorted(g.outcomes.items()))
        why = f"{g.reason_trials}× {shown(g.reason)}" if g.reason else "-"
        rows.append(
            (
                g.phase,
                shown(g.submission) if g.submission else "baseline",
                label,
                f"{g.trials} trials ({outcomes})",
                f"e.g. {g.example[:12]}",
                why,
            )
        )
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(5)]
    for row in rows:
        line = "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=False)) + "  " + row[5]
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"{sum(g.trials for g in groups)} of {len(trials.records)} trials of "
        f"{shown(trials.where)} in {len(groups)} groups; read one with `vwt trials show KEY`",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _cut(text: str, full: bool) -> str:
    if full or len(text) <= MAX_SHOWN:
        return text
    return f"{text[:MAX_SHOWN]}… ({len(text) - MAX_SHOWN:,} more characters; --full shows all)"


def _print_block(head: str, text: str) -> None:
    console.print(head, markup=False, highlight=False)
    for line in text.splitlines() or [""]:
        console.print("      " + shown(line), markup=False, highlight=False, soft_wrap=True)


def _print_message(i: int, m: dict[str, Any], full: bool) -> None:
    role = shown(str(m.get("role", "?")))
    content = m.get("content")
    text = content if isinstance(content, str) else "" if content is None else json.dumps(content)
    if role == "tool":
        call = shown(str(m.get("tool_call_id", "")))
        _print_block(f"  [{i}] tool result ({call}):", _cut(text, full))
        return
    if text:
        _print_block(f"  [{i}] {role}:", _cut(text, full))
    for tc in m.get("tool_calls") or []:
        fn = tc.get("function", {}) if isinstance(tc, dict) else {}
        name = shown(str(fn.get("name", "?")))
        args = shown(_cut(str(fn.get("arguments", "")), full))
        call = shown(str(tc.get("id", ""))) if isinstance(tc, dict) else ""
        console.print(
            f"  [{i}] {role} calls {name}({args})  [{call}]",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )


def _print_record(trials: TrialSet, r: TrialRecord) -> None:
    def out(text: str) -> None:
        console.print(text, markup=False, highlight=False, soft_wrap=True)

    bundle = f" (bundle {r.bundle_hash[:12]}…)" if r.bundle_hash else ""
    out(f"trial {r.key}")
    out(f"  {r.phase} phase, arm {r.arm}: {_submission(r)}{bundle}")
    out(f"  condition {shown(r.condition_id)}: {_label(trials, r)}")
    out(
        f"  task {shown(r.task_id)} (family {shown(r.family)}, split {shown(r.split)}), "
        f"trial {r.trial}, seed {r.seed}"
    )
    wire = f" (wire {shown(r.wire)})" if r.wire else ""
    out(f"  model {shown(r.model)} via {shown(r.provider)}{wire}, harness {shown(r.harness)}")
    interfaces = ", ".join(f"{shown(e)}={shown(v)}" for e, v in sorted(r.tool_interfaces.items()))
    out(f"  tool interfaces: {interfaces}; sandbox {shown(r.sandbox)}")
    out(
        f"  outcome {r.outcome}: {r.turns} model calls, {r.tool_calls} tool calls "
        f"({r.tool_errors} failed), attempt {r.attempt}"
    )
    for f in r.critical:
        out(f"  critical flag: {shown(f.operator)}")
        out(f"    sent     {shown(f.call.model_dump_json())}")
        out(f"    caused   {shown(f.effect.model_dump_json())}")
        out(f"    intended {shown(f.intended.model_dump_json())}")
    if r.safe_stop:
        out(f"  safe stop: {shown(r.safe_stop)}")
    if r.invalid:
        out(f"  invalid: {shown(r.invalid)}")
    for why in r.verifier_reasons:
        out(f"  verifier: {shown(why)}")
    if r.calls_sha256:
        out(
            f"  model calls recorded (calls {r.calls_sha256[:16]}…): "
            f"`vwt trials replay {r.key[:12]}` re-runs the trial from them"
        )


@app.command("show")
@user_errors
def show_cmd(
    key: Annotated[str, typer.Argument(help="A trial key, or a unique prefix of one.")],
    release: Release = None,
    home: Home = DEFAULT_HOME,
    full: Annotated[
        bool,
        typer.Option(
            "--full", help=f"Show messages and results whole (else {MAX_SHOWN} characters)."
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help='Print {"record": …, "trace": [messages]}.')
    ] = False,
) -> None:
    """Print one trial: its record (condition, outcome, critical flags, verifier reasons) and
    its trace, each message, tool call (with arguments) and tool result in order. The trace is
    checked against the hash its record pins."""
    trials = _trials(release, home)
    r = find_trial(trials, key)
    trace = trials.trace(r.trace_sha256)
    if as_json:
        typer.echo(json.dumps({"record": r.model_dump(mode="json"), "trace": trace}, indent=2))
        return
    _print_record(trials, r)
    console.print(
        f"trace: {len(trace)} messages (sha256 {r.trace_sha256[:16]}…, verified)",
        markup=False,
        highlight=False,
    )
    for i, m in enumerate(trace, start=1):
        _print_message(i, m, full)


@app.command("replay")
@user_errors
def replay_cmd(
    key: Annotated[
        str | None, typer.Argument(help="A trial key or unique prefix (or --all / --sample).")
    ] = None,
    release: Release = None,
    home: Home = DEFAULT_HOME,
    all_trials: Annotated[
        bool, typer.Option("--all", help="Replay every trial (of --phase, if given).")
    ] = False,
    sample: Annotated[
        int | None,
        typer.Option("--sample", min=1, metavar="N", help="Replay N trials drawn at random."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the --sample draw.")] = 0,
    phase: Annotated[
        list[str] | None,
        typer.Option("--phase", metavar="PHASE", help="frozen or adapted (repeatable)."),
    ] = None,
    sandbox: Annotated[
        SandboxKind,
        typer.Option("--sandbox", help="Where environment backends run: docker if usable."),
    ] = SandboxKind.auto,
    as_json: AsJson = False,
) -> None:
    """Re-run trials with every model call answered from the record: the same task,
    interface, environment, agent loop and tools, no model contacted. A request that differs
    from the recorded one ends the trial as a divergence naming the first differing field;
    otherwise the replay must reach the recorded outcome, tool calls, verifier verdict and
    trace. Prints one line per trial that differs and a summary (N replayed, M identical);
    exits 1 if any differs.

    Example: `vwt trials replay --release R --sample 50`.
    """
    from conditions import Cycle
    from reports import ReleaseSource
    from runner import HomeSource, replay_trials, sample_records

    if (key is not None) + all_trials + (sample is not None) != 1:
        raise RunnerError(
            "say which trials to replay: a KEY, --all or --sample N (one of them)",
            "e.g. `vwt trials replay --release R --sample 50`",
        )
    source = ReleaseSource(release) if release is not None else HomeSource(Cycle.open(home))
    records = source.records()
    if phase:
        records = [r for r in records if r.phase in set(phase)]
    if key is not None:
        trials = _trials(release, home)
        picked = [find_trial(trials, key)]
    elif sample is not None:
        picked = sample_records(records, sample, seed)
    else:
        picked = sorted(records, key=lambda r: r.key)
    with trial_progress("replayed") as progress:
        summary = replay_trials(picked, source, sandbox=sandbox.value, progress=progress)
    if as_json:
        data = {
            "where": summary.where,
            "replayed": summary.replayed,
            "identical": summary.identical,
            "trials": [t.model_dump(mode="json") for t in summary.trials],
        }
        emit_json(data)
    else:
        for t in summary.trials:
            if not t.identical:
                console.print(
                    f"{t.key[:12]}  {t.phase}  {shown(t.task_id)}  recorded {t.recorded}, "
                    f"replayed {t.replayed or '-'}: {shown(t.difference or '')}",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
        console.print(
            f"{summary.replayed} replayed, {summary.identical} identical "
            f"({len(summary.trials)} trials of {shown(summary.where)})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if summary.identical != len(summary.trials):
        raise typer.Exit(1)
