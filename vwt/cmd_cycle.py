"""`vwt cycle` commands."""

import typer

app = typer.Typer(help="cycle commands.", no_args_is_help=True)
