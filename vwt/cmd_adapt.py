"""`vwt adapt`: the operator's adaptation step, and a human adaptation's kit and import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, ParamSpec, TypeVar

import typer
from rich.markup import escape
from rich.table import Table

from adapt import PairOutcome, adapt_cycle, export_pair_kit, import_pair
from conditions import Cycle
from runner import SandboxKind
from service import ServiceClient, extract_kit
from vwt._common import (
    DEFAULT_HOME,
    Home,
    console,
    user_errors,
)
from vwt._json_out import AsJson, emit_json
from vwt.cmd_submissions import To, refuse_with_to

P = ParamSpec("P")
R = TypeVar("R")

app = typer.Typer(
    help="Operators: adapt every submission to every target (cycle in state adaptation), "
    "metered and logged; or hand a kit to a person and import what they adapted.",
)

Submission = Annotated[
    str,
    typer.Option(
        "--submission", help="The submission's name (or name@version; with --to: name@version)."
    ),
]
TargetId = Annotated[str, typer.Option("--target", help="The target's id (vwt conditions list).")]


def _line(o: PairOutcome) -> str:
    c = o.cost
    cost = f"{c['calls']} calls, {c['tokens']:,} tokens, {c['milliseconds'] / 1000:.1f} s"
    if c["human_minutes"]:
        cost += f", {c['human_minutes']} human min"
    changed = f"{len(o.changed)} artifact(s) changed" if o.changed else "unchanged"
    if o.leak:
        flag = " [bold red]LEAK[/]" if o.leak["flagged"] else ""
        leak = f"leak {o.leak['adapted_max_permille'] / 1000:.2f}{flag}"
    else:  # the service keeps the verdict from submitters until the release
        leak = "leak verdict in the release"
    done = " (recorded before)" if o.skipped else ""
    return (
        f"{escape(o.submission)} → {o.target}: {escape(o.procedure)}, {changed} "
        f"({o.adapted[:12]}…), {cost}, {leak}{done}"
    )


@app.callback(invoke_without_command=True)
@user_errors
def adapt(
    ctx: typer.Context,
    home: Home = DEFAULT_HOME,
    sandbox: Annotated[
        SandboxKind,
        typer.Option(
            "--sandbox",
            help="Where submitters' code runs (their commands, the sample's trials): "
            "Docker; auto is refused without it; local (unisolated) only when named, "
            "and recorded in the ledger.",
        ),
    ] = SandboxKind.auto,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            min=1,
            help="Pairs adapted at once (default: two per core), recorded in a fixed order: "
            "the ledger is the same for any number, unless a pair nears the budget's wall "
            "seconds (then use 1).",
            show_default=False,
        ),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Adapt every submission to every committed target (cycle in state adaptation).

    Each pair: the target's adaptation sample in a kit (every read logged), a
    metered gateway with the cycle's budget, the procedures the bundle declares
    (default: by artifact kind), the sealed-read check and the leak gate, then
    one ledger entry. Several pairs run at once (--jobs). Resumable: recorded
    pairs are skipped, and Ctrl-C stops the pairs in flight. --json prints one
    object per pair: cost, procedure, adapted hash, changed artifacts, leak.
    """
    if ctx.invoked_subcommand is not None:
        return
    cycle = Cycle.open(home)

    def say(o: PairOutcome) -> None:
        if not as_json:
            console.print(_line(o), highlight=False)

    outcomes = adapt_cycle(cycle, sandbox=sandbox.value, jobs=jobs, on_pair=say)
    if as_json:
        pairs = [o.model_dump(mode="json") for o in outcomes]
        emit_json({"cycle": cycle.id, "pairs": pairs})
    else:
        console.print(
            f"{len(outcomes)} adaptations recorded; next: `vwt cycle advance adapted_run`, "
            "then `vwt run adapted`",
            highlight=False,
        )


@app.command()
@user_errors
def kit(
    ctx: typer.Context,
    submission: Submission,
    target: TargetId,
    out: Annotated[Path, typer.Option("--out", help="A new directory for the kit.")],
    home: Home = DEFAULT_HOME,
    to: To = None,
) -> None:
    """Export the kit for adapting one submission to one target by hand.

    The kit holds the target's served tools, its adaptation sample (never a
    sealed task), the budget and the frozen bundle; every file handed out is
    logged, and the log is kept for the import. With --to URL: download your
    own kit from the operator's service (adaptation phase) and unpack it to
    --out, every entry checked first (no links, no paths outside --out).
    """
    if to is not None:
        refuse_with_to(ctx, "home")
        names = extract_kit(ServiceClient(to).kit(submission, target), out)
        console.print(
            f"kit of {len(names)} files written to {escape(str(out))}; see its README.md",
            highlight=False,
        )
        return
    path = export_pair_kit(Cycle.open(home), submission, target, out)
    console.print(f"kit written to {escape(str(path))}; see its README.md", highlight=False)


@app.command("import")
@user_errors
def import_(
    ctx: typer.Context,
    submission: Submission,
    target: TargetId,
    source: Annotated[
        Path, typer.Option("--from", help="The adapted bundle (a directory or a packed file).")
    ],
    minutes: Annotated[
        int, typer.Option("--minutes", min=0, help="Human minutes the adaptation took.")
    ],
    home: Home = DEFAULT_HOME,
    as_json: AsJson = False,
    to: To = None,
) -> None:
    """Record a bundle adapted by hand, with the minutes it took (within the budget).

    The kit must have been exported (`vwt adapt kit`): its access log is
    recorded with the adaptation. With --to URL: upload it to the operator's
    service (your own submission, adaptation phase; checked here first).
    """
    if to is not None:
        refuse_with_to(ctx, "home")
        outcome = ServiceClient(to).upload_adapted(submission, target, source, minutes)
    else:
        outcome = import_pair(Cycle.open(home), submission, target, source, minutes)
    if as_json:
        emit_json(outcome.model_dump(mode="json"))
    else:
        console.print(_line(outcome), highlight=False)


@app.command()
@user_errors
def pairs(
    to: Annotated[
        str,
        typer.Option(
            "--to",
            help="The operator's service (URL, e.g. http://127.0.0.1:8470). Token: $VWT_TOKEN, "
            "else ~/.config/vwt/token (mode 0600).",
            show_default=False,
        ),
    ],
    as_json: AsJson = False,
) -> None:
    """List your (submission, target) pairs to adapt by hand, from the operator's service.

    Only in the adaptation phase, and only your own submissions; targets are
    named by their keyed ids (what a target is stays hidden until the reveal).
    --json prints {"pairs": [{"submission", "target", "adapted"}]}.
    """
    rows = ServiceClient(to).adaptation_pairs()
    if as_json:
        emit_json({"pairs": rows})
        return
    table = Table("submission", "target", "adapted")
    for r in rows:
        table.add_row(escape(str(r["submission"])), escape(str(r["target"])), str(r["adapted"]))
    console.print(table)
    todo = sum(1 for r in rows if not r["adapted"])
    console.print(
        f"{len(rows)} pairs, {todo} not adapted yet; next: `vwt adapt kit --to URL --submission "
        "S --target T --out DIR`",
        markup=False,
    )
