"""`vwt submitters`: the accounts that upload to the operator's service (`vwt serve`)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from conditions import Cycle
from service import Accounts, Role
from vwt._common import DEFAULT_HOME, Home, console, err_console, user_errors
from vwt._json_out import AsJson, emit_json

app = typer.Typer(
    help="Operators: add, revoke and list the accounts that use the service (`vwt serve`): "
    "submitters upload bundles, operator accounts read the operator routes.",
    no_args_is_help=True,
)

AccountName = Annotated[
    str,
    typer.Argument(help="Account name: 1-64 lower-case letters, digits, '.', '_' or '-'."),
]


@app.command()
@user_errors
def add(
    name: AccountName,
    home: Home = DEFAULT_HOME,
    operator: Annotated[
        bool,
        typer.Option(
            "--operator",
            help="An operator account (reads every submission and the access log; never "
            "submits) instead of a submitter.",
        ),
    ] = False,
) -> None:
    """Add an account and print its token: on stdout, once; only its SHA-256 is kept."""
    role: Role = "operator" if operator else "submitter"
    token = Accounts(Cycle.open(home).home).add(name, role=role)
    typer.echo(token)
    notes = [
        f"added {role} account {name}; the token above is shown only now and cannot be shown "
        "again (only its SHA-256 is stored); if it is lost, revoke the account and add another",
        "hand it over privately; its holder sets VWT_TOKEN to it, or saves it alone in "
        "~/.config/vwt/token and runs `chmod 600 ~/.config/vwt/token`",
    ]
    if not operator:
        notes.append("then: `vwt submissions submit BUNDLE --to URL` (URL of `vwt serve`)")
    for note in notes:
        err_console.print(note, markup=False, highlight=False, soft_wrap=True)


@app.command()
@user_errors
def revoke(name: AccountName, home: Home = DEFAULT_HOME) -> None:
    """Revoke an account: its token stops working at once; the names it owns stay its own."""
    Accounts(Cycle.open(home).home).revoke(name)
    console.print(
        f"account {name} is revoked: its token no longer works; its submissions and the "
        "names it owns stay its own",
        markup=False,
        highlight=False,
    )


@app.command("list")
@user_errors
def list_(home: Home = DEFAULT_HOME, as_json: AsJson = False) -> None:
    """List the accounts, revoked ones too (never their tokens)."""
    cycle = Cycle.open(home)
    accounts = Accounts(cycle.home).list()
    if as_json:
        rows = [a.model_dump(mode="json") for a in accounts]
        emit_json({"cycle": cycle.id, "accounts": rows}, indent=None)
        return
    table = Table("name", "role", "created (UTC)", "revoked (UTC)")
    for a in accounts:
        table.add_row(a.name, a.role, a.created_at, a.revoked_at or "-")
    console.print(table)
    live = sum(a.revoked_at is None for a in accounts)
    noun = "account" if len(accounts) == 1 else "accounts"
    console.print(f"{len(accounts)} {noun} ({live} live) in cycle {cycle.id}", markup=False)
