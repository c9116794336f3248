"""The ``vwt`` command: one sub-command group per area, each a thin layer over a package."""

from __future__ import annotations

import os

# litellm fetches a price map at import unless told not to; vwt must work offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

import importlib
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from vwt._common import (
    EXIT_USER_ERROR,
    SYSTEM_ERRORS,
    exit_on_system_error,
    is_user_error,
    print_user_error,
    system_error,
)

COMMANDS: dict[str, tuple[str, str, str]] = {
    "demo": (
        "vwt.cmd_demo",
        "demo",
        "Run a whole release cycle offline on the embedded default and print the matrix.",
    ),
    "serve": (
        "vwt.cmd_serve",
        "serve",
        "Serve the cycle over HTTP: the public record to all, uploads to submitters' tokens.",
    ),
    "cycle": (
        "vwt.cmd_cycle",
        "app",
        "Operators: plan a release cycle's size and cost, start it, show its state, move it "
        "through its stages.",
    ),
    "conditions": (
        "vwt.cmd_conditions",
        "app",
        "Operators: generate, list, commit to and reveal target conditions. Anyone: verify a "
        "published commitment and reveal.",
    ),
    "drift": (
        "vwt.cmd_drift",
        "app",
        "Tool-interface drift: generate labelled versions, show them, classify real changes.",
    ),
    "families": (
        "vwt.cmd_families",
        "app",
        "The task families: list them, or run the verifier red-team gate (the reference "
        "solution passes, planted wrong answers fail).",
    ),
    "harnesses": (
        "vwt.cmd_harnesses",
        "app",
        "The harnesses a condition's harness axis can name: vwt's own agent loops and real "
        "agent frameworks at pinned releases. List them with their versions and origin.",
    ),
    "submissions": (
        "vwt.cmd_submissions",
        "app",
        "Submitters: start, pack, validate and submit bundles, and check receipts. Operators: "
        "accept submissions into the open cycle and list them.",
    ),
    "submitters": (
        "vwt.cmd_submitters",
        "app",
        "Operators: add, revoke and list the accounts that use the service (`vwt serve`): "
        "submitters upload bundles, operator accounts read the operator routes.",
    ),
    "dev-kit": (
        "vwt.cmd_devkit",
        "app",
        "Submitters: pull the cycle's dev kit (the public source condition, its dev tasks and "
        "tool definitions) from the operator's service, to develop locally.",
    ),
    "adapt": (
        "vwt.cmd_adapt",
        "app",
        "Operators: adapt every submission to every target (cycle in state adaptation), "
        "metered and logged; or hand a kit to a person and import what they adapted.",
    ),
    "run": (
        "vwt.cmd_run",
        "app",
        "Operators: run the frozen and adapted evaluations of a cycle on Ray (resumable). "
        "Submitters: 'dev' runs a bundle against the baseline on the public dev split.",
    ),
    "report": (
        "vwt.cmd_report",
        "app",
        "Operators: build and sign the release. Researchers: show a release and verify it "
        "from its published files alone.",
    ),
    "trials": (
        "vwt.cmd_trials",
        "app",
        "Researchers: list the trials of a release, read one with its trace (each message, "
        "tool call and result), and replay trials from their recorded model calls. Operators: "
        "the same from the cycle's store (--home). Submitters: the same from a dev run's home "
        "(--home H of `vwt run dev`).",
    ),
    "sim": (
        "vwt.cmd_sim",
        "app",
        "The simulated models: list them, or serve them over loopback HTTP in the OpenAI, "
        "Anthropic and Gemini APIs with fault injection. Sim numbers say nothing about real "
        "models.",
    ),
}
"""Sub-command → (module, its Typer app or command function, the summary ``vwt --help``
shows). A module is imported only when its command runs or shows its own help, so the CLI
starts without importing every package; tests/vwt/test_cli.py checks each summary is the
first paragraph of its command's own help."""

_LOADED: dict[str, Any] = {}


def load_command(name: str) -> Any:
    """The click command of sub-command ``name`` (imports its module)."""
    if name not in _LOADED:
        module, attribute, _ = COMMANDS[name]
        found = getattr(importlib.import_module(module), attribute)
        if isinstance(found, typer.Typer):
            command: Any = typer.main.get_group(found)
        else:
            single = typer.Typer(add_completion=False)
            single.command(name)(found)
            command = typer.main.get_command(single)
        command.name = name
        _LOADED[name] = command
    return _LOADED[name]


def _listed(name: str) -> TyperCommand:
    """What ``vwt --help`` lists for ``name``: its summary, nothing imported."""
    return TyperCommand(name=name, help=COMMANDS[name][2])


class _Vwt(TyperGroup):
    """The root group: its sub-commands load on first use (``COMMANDS``), and input refused
    before a command runs is a one-line error too.

    A value an option cannot take (a directory where a file is expected) and OS errors of
    the arguments themselves (a NUL byte, an over-long path) are raised while parsing, before
    the command's own ``user_errors`` handling; they exit 2 with ``error:`` and ``hint:``, as
    do user errors of a command that lacks that handling.
    """

    listing = False
    """True while the group's own help is formatted: commands are listed from ``COMMANDS``."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands.update({name: _listed(name) for name in COMMANDS})  # for typos' hints

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in COMMANDS and not self.listing:
            return load_command(cmd_name)
        return self.commands.get(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False

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
        except Exception as e:
            if is_user_error(e):  # a command without its own `user_errors`
                print_user_error(str(e), getattr(e, "hint", None))
                raise typer.Exit(EXIT_USER_ERROR) from None
            if isinstance(e, SYSTEM_ERRORS):
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


@app.callback()
def _root() -> None:
    # a callback makes the root a group, whose commands `_Vwt` lists: none is added to `app`
    pass


def main() -> None:
    """Console-script entry point."""
    app()
