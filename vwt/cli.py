"""The ``vwt`` command: one sub-command group per area, each a thin layer over a package."""

from __future__ import annotations

import os

# litellm fetches a price map at import unless told not to; vwt must work offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from typing import Any

import typer
from typer.core import TyperGroup

from vwt import (
    cmd_adapt,
    cmd_conditions,
    cmd_cycle,
    cmd_demo,
    cmd_devkit,
    cmd_drift,
    cmd_families,
    cmd_report,
    cmd_run,
    cmd_serve,
    cmd_sim,
    cmd_submissions,
    cmd_submitters,
    cmd_trials,
)
from vwt._common import (
    EXIT_USER_ERROR,
    SYSTEM_ERRORS,
    USER_ERRORS,
    exit_on_system_error,
    print_user_error,
    system_error,
)


class _Vwt(TyperGroup):
    """The root group: input refused before a command runs is a one-line error too.

    A value an option cannot take (a directory where a file is expected) and OS errors of
    the arguments themselves (a NUL byte, an over-long path) are raised while parsing, before
    the command's own ``user_errors`` handling; they exit 2 with ``error:`` and ``hint:``, as
    do user errors of a command that lacks that handling.
    """

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.BadParameter as e:
            message, hint = e.format_message(), None
            if "embedded null byte" in message:  # a path option's conversion saw a NUL
                known = system_error(ValueError("embedded null byte"))
                assert known is not None
                message, hint = message.removesuffix(e.message) + known[0], known[1]
            where = e.ctx.command_path if e.ctx is not None else ctx.command_path
            print_user_error(message, hint or f"see `{where} --help`")
            raise typer.Exit(EXIT_USER_ERROR) from None
        except USER_ERRORS as e:  # a command without its own `user_errors`
            print_user_error(str(e), getattr(e, "hint", None))
            raise typer.Exit(EXIT_USER_ERROR) from None
        except SYSTEM_ERRORS as e:
            exit_on_system_error(e)
            raise


app = typer.Typer(
    name="vwt",
    cls=_Vwt,
    help=(
        "VerifiedWork Transfer: measure whether an agent system's skills, prompt recipes, "
        "trajectories and configs survive changes of model version, provider, tool interface, "
        "task family and harness.\n\n"
        "Operators: 'cycle', 'conditions', 'adapt', 'submitters' and 'serve'. Submitters: "
        "'dev-kit', 'submissions' and 'run'. Researchers: 'report' and 'trials'. Everyone: "
        "'demo' runs a whole release cycle offline."
    ),
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
)
app.add_typer(cmd_cycle.app, name="cycle")
app.add_typer(cmd_conditions.app, name="conditions")
app.add_typer(cmd_drift.app, name="drift")
app.add_typer(cmd_families.app, name="families")
app.add_typer(cmd_submissions.app, name="submissions")
app.add_typer(cmd_submitters.app, name="submitters")
app.add_typer(cmd_devkit.app, name="dev-kit")
app.add_typer(cmd_adapt.app, name="adapt")
app.add_typer(cmd_run.app, name="run")
app.add_typer(cmd_report.app, name="report")
app.add_typer(cmd_trials.app, name="trials")
app.add_typer(cmd_sim.app, name="sim")
app.command("demo")(cmd_demo.demo)
app.command("serve")(cmd_serve.serve)


def main() -> None:
    """Console-script entry point."""
    app()
