"""`vwt cycle`: start a release cycle, show where it is, move it forward."""

from __future__ import annotations

import json
import os
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from benchmark import check_cycle_spec
from conditions import NEXT_STEP, PASSPHRASE_ENV, Cycle, CycleSpec, CycleState
from vwt._common import DEFAULT_HOME, Home, console, user_errors

app = typer.Typer(
    help="Operators: start a release cycle, show its state, move it through its stages.",
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
            help="Cycle spec (YAML or JSON); the embedded default when omitted.",
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
) -> None:
    """Start a release cycle in HOME (state draft) and print the operator key's fingerprint."""
    cycle_spec = CycleSpec.load(spec if spec is not None else default_spec_path())
    check_cycle_spec(cycle_spec)
    cycle = Cycle.init(
        home, cycle_spec, force=force, key_path=key, passphrase=_passphrase(encrypt_key)
    )
    console.print(f"cycle [bold]{cycle.id}[/] initialised in {home} (state {cycle.state})")
    console.print(f"signing key: {cycle.key_path}")
    console.print(f"key fingerprint: [bold]{cycle.fingerprint}[/]  (publish it with the cycle)")
    console.print("next: vwt conditions generate", highlight=False)


@app.command()
@user_errors
def status(home: Home = DEFAULT_HOME) -> None:
    """Show the cycle's state, source condition, schedule, key and transition history."""
    cycle = Cycle.open(home)
    cycle.ledger.verify()
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
        table.add_row(entry.ts, p["from"] or "-", p["to"], p["note"])
    console.print(table)
    console.print(f"ledger: {len(cycle.ledger.entries())} entries, chain intact")
    console.print(f"next: {NEXT_STEP[cycle.state]}", highlight=False)


@app.command()
@user_errors
def advance(
    state: Annotated[CycleState, typer.Argument(help="The state to move to (the next one).")],
    home: Home = DEFAULT_HOME,
    note: Annotated[str, typer.Option("--note", help="Why, recorded in the ledger.")] = "",
) -> None:
    """Move the cycle one step forward (e.g. committed -> open), recorded in the ledger."""
    cycle = Cycle.open(home)
    entry = cycle.transition(state, note)
    console.print(
        f"cycle {cycle.id}: {entry.payload['from']} -> {entry.payload['to']} at {entry.ts}"
    )


@app.command()
def schema() -> None:
    """Print the JSON Schema of the cycle spec."""
    typer.echo(json.dumps(CycleSpec.model_json_schema(), indent=2))
