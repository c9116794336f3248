"""`vwt conditions` commands."""

import typer

app = typer.Typer(help="conditions commands.", no_args_is_help=True)
