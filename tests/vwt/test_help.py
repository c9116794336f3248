"""Every group and command of `vwt` has working --help, and every parameter says what it is."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
import typer
from typer.testing import CliRunner

from vwt.cli import app

runner = CliRunner()


def _subcommands(command: Any) -> dict[str, Any]:
    # Typer's groups list and resolve their sub-commands (the root loads each on demand); its
    # click is vendored, so no isinstance check against click's classes.
    if not hasattr(command, "list_commands"):
        return {}
    return {name: command.get_command(None, name) for name in command.list_commands(None)}


def _walk(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    found = [(path, command)]
    for name, sub in sorted(_subcommands(command).items()):
        found += _walk(sub, (*path, name))
    return found


ROOT = typer.main.get_command(app)
COMMANDS = _walk(ROOT)


def test_the_walk_finds_every_group() -> None:
    groups = {p[0] for p, c in COMMANDS if len(p) == 1 and _subcommands(c)}
    assert {"cycle", "conditions", "drift", "submissions", "run", "report"} <= groups
    leaves = {" ".join(p) for p, c in COMMANDS if not _subcommands(c)}
    assert {"submissions pack", "run dev", "report verify", "demo"} <= leaves


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p) or "vwt")
def test_help_exits_zero(path: tuple[str, ...]) -> None:
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


def _missing_help(commands: list[tuple[tuple[str, ...], Any]]) -> list[str]:
    missing = []
    for path, command in commands:
        name = " ".join(("vwt", *path))
        if not (command.help or command.short_help or "").strip():
            missing.append(name)
        for param in command.params:
            if not (getattr(param, "help", None) or "").strip():
                missing.append(f"{name} {param.name}")
    return missing


def test_every_command_and_parameter_has_help() -> None:
    missing = _missing_help(COMMANDS)
    assert not missing, "no help text: " + ", ".join(missing)


def test_the_check_catches_missing_help() -> None:
    bad = typer.Typer(help="An app with gaps.")

    @bad.command()
    def quiet(count: int = typer.Option(1), name: str = typer.Argument(...)) -> None:
        pass

    @bad.command()
    def loud(
        count: Annotated[int, typer.Option(help="How many.")] = 1,
    ) -> None:
        """Documented."""

    found = _missing_help(_walk(typer.main.get_command(bad)))
    assert sorted(found) == ["vwt quiet", "vwt quiet count", "vwt quiet name"]
