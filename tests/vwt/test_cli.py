"""The root command: sub-commands imported only when used, so help and a mistyped model string
are answered without importing the packages (bench/cli_startup.py measures how fast)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import runner
from submissions import reference_dir
from vwt import cmd_run
from vwt.cli import COMMANDS, app, load_command

HEAVY = ("litellm", "ray", "pandas", "numpy", "benchmark", "runner", "reports", "service")
"""What a help page need not import (the first four take seconds or most of one)."""

REPORT = f"""
import atexit, json, sys
atexit.register(lambda: print("imported:", json.dumps([m for m in {HEAVY!r} if m in sys.modules]),
                              file=sys.__stderr__))
from vwt.cli import main
sys.argv = ["vwt", *sys.argv[1:]]
main()
"""


def imported_by(*args: str) -> tuple[int, str, list[str]]:
    """(exit code, stdout, the HEAVY modules imported) of ``vwt *args`` in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "COLUMNS": "100"}
    done = subprocess.run(
        [sys.executable, "-c", REPORT, *args], capture_output=True, text=True, env=env, timeout=300
    )
    line = next(x for x in done.stderr.splitlines() if x.startswith("imported: "))
    return done.returncode, done.stdout + done.stderr, json.loads(line.removeprefix("imported: "))


def test_help_pages_import_no_package() -> None:
    code, out, heavy = imported_by("--help")
    assert code == 0 and "Usage: vwt" in out and "families" in out and heavy == []
    code, out, heavy = imported_by("run", "dev", "--help")
    assert code == 0 and "Usage: vwt run dev" in out and "--sandbox" in out and heavy == []


def test_a_mistyped_model_is_refused_without_litellm_ray_or_the_runner(tmp_path: Path) -> None:
    submission = str(reference_dir("typed-skill"))
    for model, says in [
        ("acme/acme-2", "unknown provider 'acme'"),
        ("gpt-4o-mini", "did you mean openai/gpt-4o-mini?"),
        ("openai/gpt-4o-mini", "needs the credential OPENAI_API_KEY"),
    ]:
        args = ("run", "dev", "--home", str(tmp_path / "dev"), "--submission", submission)
        code, out, heavy = imported_by(*args, "--model", model)
        assert code == 2 and f"error: model '{model}'" in out and says in out
        assert not {"litellm", "ray", "runner"} & set(heavy), heavy
    assert not (tmp_path / "dev").exists()


def _paragraph(text: str) -> str:
    return " ".join(text.split("\n\n")[0].split())


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_listed_summary_is_its_commands_own(name: str) -> None:
    command = load_command(name)
    assert command.name == name
    assert _paragraph(COMMANDS[name][2]) == _paragraph(command.help or "")


def test_the_root_help_lists_every_command_without_loading_it() -> None:
    listed = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "250"})
    assert listed.exit_code == 0
    rows = [line.split()[1] for line in listed.output.splitlines() if line.startswith("│ ")]
    assert [r for r in rows if r in COMMANDS] == list(COMMANDS)


def test_a_mistyped_command_gets_a_suggestion() -> None:
    result = CliRunner().invoke(app, ["famlies"])
    assert result.exit_code == 2 and "Did you mean 'families'?" in result.output


def test_the_run_options_spelled_out_are_the_runners() -> None:
    assert set(cmd_run.SandboxKind.__args__) == {k.value for k in runner.SandboxKind}
    assert cmd_run.MAX_ATTEMPTS == runner.MAX_ATTEMPTS
