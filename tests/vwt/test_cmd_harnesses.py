"""`vwt harnesses list` and `vwt run dev --harness`: any installed harness, an unknown or
uninstalled one refused with one error and one hint, before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmark.harness import FRAMEWORKS_ENV
from submissions import reference_dir
from tests._frameworks import FRAMEWORK_HARNESSES
from tests.vwt.test_cli import imported_by
from vwt.cli import app

LOOPS = ["harness-v1", "harness-v2", "harness-v3"]


def test_the_list_shows_every_harness_with_its_version_and_origin() -> None:
    result = CliRunner().invoke(app, ["harnesses", "list", "--json"])
    assert result.exit_code == 0, result.output
    found = {h["id"]: h for h in json.loads(result.stdout)["harnesses"]}
    assert sorted(found) == sorted([*LOOPS, *FRAMEWORK_HARNESSES])
    for hid in FRAMEWORK_HARNESSES:
        framework, version = hid.split("@")
        assert (found[hid]["kind"], found[hid]["framework"]) == ("framework", framework)
        assert found[hid]["version"] == version
        assert found[hid]["origin"]["entry_point"].startswith("benchmark.harness:")
    assert [found[h]["kind"] for h in LOOPS] == ["loop"] * 3
    shown = CliRunner().invoke(app, ["harnesses", "list"], env={"COLUMNS": "200"})
    row = next(line for line in shown.output.splitlines() if "pydantic-ai@0.3.7" in line)
    assert "framework" in row and "0.3.7" in row and "vwt " in row


def test_a_framework_not_installed_is_listed_as_such(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FRAMEWORKS_ENV, str(tmp_path))
    result = CliRunner().invoke(app, ["harnesses", "list", "--json"])
    found = {h["id"]: h for h in json.loads(result.stdout)["harnesses"]}
    assert all(not found[h]["ready"] for h in FRAMEWORK_HARNESSES)
    assert all(found[h]["ready"] and found[h]["unavailable"] is None for h in LOOPS)
    shown = CliRunner().invoke(app, ["harnesses", "list"], env={"COLUMNS": "200"})
    assert f"openai-agents@0.2.11: its environment {tmp_path}" in shown.output
    assert "bash scripts/frameworks-setup.sh" in shown.output


def test_an_unknown_harness_is_refused_before_anything_runs(tmp_path: Path) -> None:
    home = tmp_path / "dev"
    args = ["run", "dev", "--home", str(home), "--submission", str(reference_dir("typed-skill"))]
    code, out, heavy = imported_by(*args, "--harness", "harness-v9")
    assert code == 2
    lines = [line for line in out.splitlines() if line.startswith(("error:", "hint:"))]
    assert lines[0] == "error: unknown harness 'harness-v9'"
    assert lines[1].startswith("hint: installed harnesses: harness-v1, harness-v2, harness-v3, ")
    assert not {"litellm", "ray", "runner"} & set(heavy), heavy
    assert not home.exists()


def test_an_uninstalled_framework_is_refused_naming_the_setup_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FRAMEWORKS_ENV, str(tmp_path / "none"))
    home = tmp_path / "dev"
    result = CliRunner().invoke(
        app,
        [
            "run",
            "dev",
            "--home",
            str(home),
            "--submission",
            str(reference_dir("typed-skill")),
            "--harness",
            "pydantic-ai@1.0.18",
        ],
    )
    assert result.exit_code == 2
    assert "error: harness 'pydantic-ai@1.0.18' cannot run here: its environment" in result.output
    assert "hint: install it" in result.output and "frameworks-setup.sh" in result.output
    assert not home.exists()
