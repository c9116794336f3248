"""Task families written as folders from the CLI: `--families DIR` on `vwt families list`,
`vwt run dev` (end to end, on the example family and its real MCP server) and `vwt cycle
plan`; a malformed folder refused with one error line naming the file and the field."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from benchmark import default_cycle_spec_path, mcp_servers_dir
from vwt.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "benchmark" / "families" / "file_ops"
runner = CliRunner()
servers = pytest.mark.skipif(
    shutil.which("node") is None
    or not (mcp_servers_dir() / "filesystem-2025.7.1" / "node_modules").is_dir(),
    reason="node or the pinned filesystem servers are missing: run scripts/mcp-servers-setup.sh",
)


def vwt(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.stdout, result.stderr


def test_list_shows_a_folder_family_and_where_it_was_read_from() -> None:
    code, out, err = vwt("families", "list", "--families", str(EXAMPLE), "--json")
    assert code == 0, err
    fam = {f["id"]: f for f in json.loads(out)["families"]}["file_ops"]
    assert fam["origin"]["folder"] == str(EXAMPLE)
    assert fam["env"] == "files" and fam["tools"] == 12
    assert fam["interface_versions"] == [
        "files@2025.7.1",
        "files@2026.8.31",
        "files@2026.8.31-rename",
    ]
    assert fam["kinds"] == [
        "write_note",
        "rename_file",
        "copy_file",
        "archive_file",
        "find_and_move",
    ]


@pytest.fixture
def malformed(tmp_path: Path) -> Path:
    folder = tmp_path / "bad"
    shutil.copytree(EXAMPLE, folder)
    lines = (folder / "tasks" / "dev.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["reference"] = [{"name": "write_file", "arguments": {"path": "../../x", "content": 1}}]
    first["files"] = {"../outside.txt": "x"}
    (folder / "tasks" / "dev.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]))
    return folder


@pytest.mark.parametrize(
    "command",
    [
        ("families", "list"),
        ("families", "redteam"),
        ("run", "dev", "--submission", "submissions/reference/no-artifacts"),
        ("cycle", "plan"),
    ],
)
def test_a_malformed_folder_is_refused_with_one_error_line_and_a_hint(
    malformed: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    home = tmp_path / "dev-home"
    extra = ("--home", str(home)) if command[0] == "run" else ()
    code, out, err = vwt(*command, *extra, "--families", str(malformed))
    assert code == 2, out + err
    lines = err.strip().splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("error: task family folder")
    assert "tasks/dev.jsonl line 1: files:" in lines[0] and "'../outside.txt'" in lines[0]
    assert lines[1].startswith("hint: ") and "docs/folder-families.md" in lines[1]
    assert not home.exists()  # nothing written


@servers
def test_run_dev_runs_the_example_folder_family_end_to_end(tmp_path: Path) -> None:
    home = tmp_path / "dev"
    code, out, err = vwt(
        "run",
        "dev",
        "--families",
        str(EXAMPLE),
        "--submission",
        "submissions/reference/no-artifacts",
        "--tasks",
        "2",
        "--k",
        "1",
        "--sandbox",
        "local",
        "--home",
        str(home),
        "--json",
    )
    assert code == 0, out + err
    shown = json.loads(out)
    assert shown["accounting"]["invalid"] == 0 and shown["accounting"]["valid"] == 4
    assert shown["with"]["trials"] == shown["without"]["trials"] == 2
    code, listed, _ = vwt("trials", "list", "--home", str(home))
    assert code == 0 and "file_ops/dev/d01" in listed and "file_ops/dev/d02" in listed


def test_run_dev_refuses_a_folder_family_outside_docker_unless_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import runner._sandbox

    monkeypatch.setattr(runner._sandbox, "docker_status", lambda: (False, "no engine here"))
    code, out, err = vwt(
        "run",
        "dev",
        "--families",
        str(EXAMPLE),
        "--submission",
        "submissions/reference/no-artifacts",
        "--tasks",
        "1",
        "--k",
        "1",
        "--home",
        str(tmp_path / "dev"),
    )
    assert code == 2, out + err
    assert "task families written as folders" in err and "need the Docker sandbox" in err
    assert "--sandbox local" in err


def test_cycle_plan_counts_a_folder_family_named_by_families(tmp_path: Path) -> None:
    data = yaml.safe_load(default_cycle_spec_path().read_text())
    data["source"]["tool_interface"]["files"] = "files@2025.7.1"
    data["catalogue"]["tool_interfaces"]["files"] = ["files@2025.7.1", "files@2026.8.31"]
    data["catalogue"]["task_families"].append({"family": "file_ops", "split": "sealed"})
    data["catalogue"]["family_envs"]["file_ops"] = "files"
    data["families"]["held_out"].append("file_ops")
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(data))
    # a fresh process (this one may have loaded the folder for another test)
    alone = subprocess.run(
        [sys.executable, "-m", "vwt", "cycle", "plan", "--spec", str(spec), "--json"],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "VWT_FAMILY_FOLDERS"},
        timeout=300,
    )
    assert alone.returncode == 2 and "unknown task family 'file_ops'" in alone.stderr
    code, out, err = vwt("cycle", "plan", "--spec", str(spec), "--families", str(EXAMPLE), "--json")
    assert code == 0, err
    plan = json.loads(out)
    assert any("file_ops" in json.dumps(c) for c in plan["conditions"])
