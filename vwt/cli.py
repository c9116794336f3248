"""The ``vwt`` command: one sub-command group per area, each a thin layer over a package."""

from __future__ import annotations

import os

# litellm fetches a price map at import unless told not to; vwt must work offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import typer

from vwt import (
    cmd_conditions,
    cmd_cycle,
    cmd_demo,
    cmd_drift,
    cmd_report,
    cmd_run,
    cmd_sim,
    cmd_submissions,
)

app = typer.Typer(
    name="vwt",
    help=(
        "VerifiedWork Transfer: measure whether an agent system's skills, prompt recipes, "
        "trajectories and configs survive changes of model version, provider, tool interface, "
        "task family and harness.\n\n"
        "Operators: 'cycle' and 'conditions'. Submitters: 'submissions' and 'run'. "
        "Researchers: 'report'. Everyone: 'demo' runs a whole release cycle offline."
    ),
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)
app.add_typer(cmd_cycle.app, name="cycle")
app.add_typer(cmd_conditions.app, name="conditions")
app.add_typer(cmd_drift.app, name="drift")
app.add_typer(cmd_submissions.app, name="submissions")
app.add_typer(cmd_run.app, name="run")
app.add_typer(cmd_report.app, name="report")
app.add_typer(cmd_sim.app, name="sim")
app.command("demo")(cmd_demo.demo)


def main() -> None:
    """Console-script entry point."""
    app()
