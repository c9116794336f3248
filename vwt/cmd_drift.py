"""`vwt drift` commands."""

import typer

app = typer.Typer(help="drift commands.", no_args_is_help=True)
