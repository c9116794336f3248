"""`vwt cycle`: start a release cycle, show where it is, move it forward."""

from __future__ import annotations

import json
import os
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from benchmark import check_cycle_spec
from conditions import (
    NEXT_STEP,
    PASSPHRASE_ENV,
    PUBLIC_SEEDS,
    Cycle,
    CycleSpec,
    CycleState,
    fresh_seed,
)
from vwt._common import (
    DEFAULT_HOME,
    FamilyDirs,
    Home,
    console,
    family_folder_paths,
    use_families,
    user_errors,
)
from vwt._json_out import AsJson, emit_json

app = typer.Typer(
    help="Operators: plan a release cycle's size and cost, start it, show its state, move it "
    "through its stages.",
    no_args_is_help=True,
)


def default_spec_path() -> Traversable:
    """The embedded default cycle spec (benchmark/default_cycle.yaml)."""
    return files("benchmark") / "default_cycle.yaml"


def _passphrase(encrypt: bool) -> str | None:
    if not encrypt:
        return None
    return os.environ.get(PASSPHRASE_ENV) or typer.prompt(
        "Passphrase for the new operator key", hide_input=True, confirmation_prompt=True
    )


@app.command()
@user_errors
def init(
    home: Home = DEFAULT_HOME,
    spec: Annotated[
        Path | None,
        typer.Option(
            "--spec",
            help="Cycle spec (YAML or JSON); the embedded default when omitted. Without a "
            "seed in it, a fresh secret one is drawn.",
            dir_okay=False,
        ),
    ] = None,
    key: Annotated[
        Path | None,
        typer.Option(
            "--key",
            help="Operator signing key to use; created there if missing. "
            "Default: a new key in HOME/operator/signing_key.pem.",
            dir_okay=False,
        ),
    ] = None,
    encrypt_key: Annotated[
        bool,
        typer.Option(
            "--encrypt-key",
            help=f"Encrypt a new key with a passphrase (from {PASSPHRASE_ENV}, else prompted).",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Start over in a home that holds a cycle; the old one moves to superseded/.",
        ),
    ] = False,
    families: FamilyDirs = None,
) -> None:
    """Start a release cycle in HOME (state draft) and print the operator key's fingerprint.

    The cycle seed draws the sealed tasks: without --spec, or with a spec that names no seed,
    a fresh secret one is drawn (the embedded default's seed is public: `vwt demo` uses it).
    Task families written as folders (the spec's families.folders, and --families) are
    pinned by the digest of their content, which the commitment carries: a folder changed
    afterwards is refused wherever the cycle uses it."""
    drawn = fresh_seed()
    if spec is None:
        cycle_spec = CycleSpec.load(default_spec_path()).model_copy(update={"seed": drawn})
    else:
        cycle_spec = CycleSpec.load(spec, seed_if_missing=drawn)
    if families:
        use_families(families)  # each folder checked whole, whether the catalogue names it or not
        cycle_spec = cycle_spec.with_family_folders(family_folder_paths(families))
    check_cycle_spec(cycle_spec)
    cycle = Cycle.init(
        home, cycle_spec, force=force, key_path=key, passphrase=_passphrase(encrypt_key)
    )
    console.print(f"cycle [bold]{cycle.id}[/] initialised in {home} (state {cycle.state})")
    if cycle.spec.seed == drawn:
        console.print("seed: a fresh secret one, kept in HOME/operator/cycle.json")
    elif cycle.spec.seed in PUBLIC_SEEDS:
        console.print(
            f"[yellow]warning:[/] seed {cycle.spec.seed} is public (the embedded default's); "
            "`vwt conditions commit` refuses it unless --public-seed"
        )
    console.print(f"signing key: {cycle.key_path}")
    console.print(f"key fingerprint: [bold]{cycle.fingerprint}[/]  (publish it with the cycle)")
    console.print("next: vwt conditions generate", highlight=False)


def status_facts(cycle: Cycle) -> dict[str, Any]:
    """What `vwt cycle status --json` prints (the ledger is verified by ``Cycle.open``)."""
    checkpoint = cycle.ledger.checkpoint()
    paths = cycle.paths
    return {
        "cycle": cycle.id,
        "home": str(cycle.home),
        "state": cycle.state.value,
        "opens_at": cycle.spec.opens_at,
        "closes_at": cycle.spec.closes_at,
        "source": {"id": cycle.source.id, "condition": cycle.source.model_dump(mode="json")},
        "fingerprint": cycle.fingerprint,
        "targets": len(cycle.targets()) if paths.targets.exists() else None,
        "commitment": str(paths.commitment) if paths.commitment.exists() else None,
        "reveal": str(paths.reveal) if paths.reveal.exists() else None,
        "transitions": [{"seq": e.seq, "ts": e.ts, **e.payload} for e in cycle.history()],
        "ledger": {
            "entries": len(cycle.ledger.entries()),
            "head": cycle.ledger.head(),
            "checkpoint_seq": checkpoint.seq if checkpoint else None,
            "intact": True,
        },
        "next": NEXT_STEP[cycle.state],
    }


def _extras(payload: dict[str, Any]) -> str:
    shown = {k: v for k, v in payload.items() if k not in ("from", "to", "note")}
    return " ".join(f"{k}={json.dumps(v, separators=(',', ':'))}" for k, v in shown.items())


@app.command()
@user_errors
def status(
    home: Home = DEFAULT_HOME,
    as_json: AsJson = False,
) -> None:
    """Show the cycle's state, source condition, schedule, key and transition history."""
    cycle = Cycle.open(home)
    if as_json:
        emit_json(status_facts(cycle), indent=None)
        return
    spec = cycle.spec
    console.print(f"cycle [bold]{cycle.id}[/] in {home}: state [bold]{cycle.state}[/]")
    console.print(f"submissions: {spec.opens_at} to {spec.closes_at}")
    console.print(f"source condition {cycle.source.id}: {cycle.source.model_dump_json()}")
    console.print(f"key fingerprint: {cycle.fingerprint}")
    if cycle.paths.targets.exists():
        console.print(f"target conditions: {len(cycle.targets())} (private until the reveal)")
    if cycle.paths.commitment.exists():
        console.print(f"commitment: {cycle.paths.commitment}")
    if cycle.paths.reveal.exists():
        console.print(f"reveal: {cycle.paths.reveal}")
    table = Table("when (UTC)", "from", "to", "note", title="transitions")
    for entry in cycle.history():
        p = entry.payload
        note = " ".join(x for x in (p["note"], _extras(p)) if x)
        table.add_row(entry.ts, p["from"] or "-", p["to"], escape(note))
    console.print(table)
    console.print(
        f"ledger: {len(cycle.ledger.entries())} entries, chain intact and matching its "
        "last checkpoint"
    )
    console.print(f"next: {NEXT_STEP[cycle.state]}", highlight=False)


@app.command()
@user_errors
def advance(
    state: Annotated[CycleState, typer.Argument(help="The state to move to (the next one).")],
    home: Home = DEFAULT_HOME,
    note: Annotated[str, typer.Option("--note", help="Why, recorded in the ledger.")] = "",
    accept_invalid: Annotated[
        bool,
        typer.Option(
            "--accept-invalid",
            help="To 'adaptation': go on although some frozen trials are invalid (none may be "
            "missing); recorded in the ledger with their count.",
        ),
    ] = False,
    override_window: Annotated[
        bool,
        typer.Option(
            "--override-window",
            help="To 'open': open submissions before the spec's opens_at; recorded in the ledger.",
        ),
    ] = False,
) -> None:
    """Move the cycle one step forward (e.g. committed -> open), recorded in the ledger."""
    cycle = Cycle.open(home)
    entry = cycle.transition(
        state, note, accept_invalid=accept_invalid, override_window=override_window
    )
    extras = _extras(entry.payload)
    console.print(
        f"cycle {cycle.id}: {entry.payload['from']} -> {entry.payload['to']} at {entry.ts}"
        + (f" ({extras})" if extras else ""),
        highlight=False,
        markup=False,
    )


@app.command()
def schema() -> None:
    """Print the JSON Schema of the cycle spec."""
    typer.echo(json.dumps(CycleSpec.model_json_schema(), indent=2))


def _plan_table(plan: Any) -> Table:
    from runner import usd_text

    table = Table(
        title=f"{plan.cycle}: {plan.tasks_per_split} tasks per family, k {plan.k}; "
        "c = correlated arms, i = independent",
        title_justify="left",
    )
    for name in (
        "varied",
        "families",
        "tasks",
        "base",
        "MDE c/i",
        "±95% c/i",
        "tasks ±.05/.10 c; i",
    ):
        table.add_column(name)
    for name in ("trials", "calls", "cost"):
        table.add_column(name, justify="right")
    for r in plan.conditions:
        c, i = r.correlated, r.independent
        phases = [r.frozen] + ([r.adapted] if r.adapted is not None else [])
        usd = None if any(p.usd is None for p in phases) else sum(p.usd for p in phases)
        table.add_row(
            escape(r.condition),
            escape(r.families.split("/")[0]),
            str(r.tasks),
            f"{r.baseline:.2f}",
            f"{c.mde:.2f}/{i.mde:.2f}",
            f"{c.half_width:.2f}/{i.half_width:.2f}",
            f"{c.tasks_for['0.05']}/{c.tasks_for['0.10']}; "
            f"{i.tasks_for['0.05']}/{i.tasks_for['0.10']}",
            str(sum(p.trials for p in phases)),
            f"{sum(p.calls for p in phases):,.0f}",
            usd_text(usd),
        )
    return table


@app.command()
@user_errors
def plan(
    spec: Annotated[
        Path | None,
        typer.Option(
            "--spec",
            help="Cycle spec (YAML or JSON); the embedded default when omitted.",
            dir_okay=False,
        ),
    ] = None,
    pilot: Annotated[
        Path | None,
        typer.Option(
            "--pilot",
            help="A dev home (`vwt run dev --home`) or cycle home whose trials give the "
            "baseline rates and the calls and tokens per trial.",
            file_okay=False,
        ),
    ] = None,
    submissions: Annotated[
        int, typer.Option("--submissions", min=1, help="Submissions to plan for.")
    ] = 1,
    max_conditions: Annotated[
        int | None,
        typer.Option(
            "--max-conditions",
            min=1,
            help="As `vwt conditions generate --max-conditions`: the same count and strata "
            "(pairs drawn with the spec's seed, not the secret one).",
        ),
    ] = None,
    as_json: AsJson = False,
    families: FamilyDirs = None,
) -> None:
    """Before a cycle: what each condition's cells can detect (80% power), the interval to
    expect, the tasks needed for ±0.05 / ±0.10, and the trials, model calls and cost.

    Every figure is given with correlated arms (as the sim's) and independent ones (as real
    providers'). Costs come from litellm's price table; a model it does not price shows
    "unknown". See docs/planning.md.
    """
    from reports import plan_cycle
    from runner import usd_text

    # The seed only draws which pairs a capped plan lists: a spec without one plans as seed 0.
    cycle_spec = CycleSpec.load(
        spec if spec is not None else default_spec_path(), seed_if_missing=0
    )
    if families:
        use_families(families)  # each folder checked whole, whether the catalogue names it or not
        cycle_spec = cycle_spec.with_family_folders(family_folder_paths(families))
    check_cycle_spec(cycle_spec)
    result = plan_cycle(
        cycle_spec, submissions=submissions, pilot=pilot, max_conditions=max_conditions
    )
    if as_json:
        emit_json(result.model_dump(mode="json"))
        return
    console.print(_plan_table(result))
    totals = (("frozen", result.frozen), ("adapted", result.adapted), ("total", result.total))
    for name, est in totals:
        unpriced = f" (no price for {', '.join(est.unpriced)})" if est.unpriced else ""
        console.print(
            f"{name}: {est.trials:,} trials, {est.calls:,.0f} model calls, "
            f"{est.prompt_tokens + est.completion_tokens:,.0f} tokens, cost "
            f"{usd_text(est.usd)}{unpriced}",
            highlight=False,
            markup=False,
        )
    console.print(f"submissions planned for: {result.submissions}", highlight=False)
    if result.pilot:
        console.print(f"pilot: {result.pilot}", highlight=False, markup=False)
    console.print("assumptions:", highlight=False)
    for a in result.assumptions:
        console.print(f"  - {a}", highlight=False, markup=False)
    if not result.detects:
        console.print(
            "warning: some cells cannot detect a gain of 0.15 with correlated arms at this "
            "size; raise evaluation.tasks_per_split or k",
            highlight=False,
        )
