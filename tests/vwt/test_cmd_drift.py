"""`vwt drift generate | show | diff | ops` through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vwt.cli import app

BASE = Path(__file__).parents[1] / "drift" / "fixtures" / "base_tools.json"
runner = CliRunner()


def _generate(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "v2.json"
    result = runner.invoke(
        app, ["drift", "generate", "--base", str(BASE), "--out", str(out), *args]
    )
    assert result.exit_code == 0, result.output
    return out


def test_generate_show_and_diff(tmp_path: Path) -> None:
    out = _generate(
        tmp_path, "--op", "unit_change:tool=issue_refund", "--op", "rename_tool", "--seed", "3"
    )
    data = json.loads(out.read_text())
    assert data["version"]["label"] == "2" and len(data["changelog"]) == 2
    assert [c["drift_class"] for c in data["changelog"]] == ["changing", "preserving"]

    shown = runner.invoke(app, ["drift", "show", str(out)])
    assert shown.exit_code == 0 and data["digest"][:16] in shown.output.replace("\n", "")
    as_json = runner.invoke(app, ["drift", "show", str(out), "--json"])
    assert json.loads(as_json.output)["version"] == data["version"]

    diff = runner.invoke(app, ["drift", "diff", str(BASE), str(out), "--json"])
    assert diff.exit_code == 0
    changes = json.loads(diff.output)["changes"]
    assert set(changes[0]) == {"tool", "kind", "class", "path", "reason", "evidence"}
    assert all(c["evidence"] for c in changes)
    assert {"unit_changed", "tool_renamed"} <= {c["kind"] for c in changes}
    table = runner.invoke(app, ["drift", "diff", str(BASE), str(out)], terminal_width=200)
    assert table.exit_code == 0 and "overall changing" in table.output


def test_undeclared_random_drift_keeps_the_label(tmp_path: Path) -> None:
    first = _generate(tmp_path, "--random", "2", "--seed", "4")
    out = tmp_path / "v2b.json"
    result = runner.invoke(
        app,
        [
            "drift",
            "generate",
            "--base",
            str(first),
            "--op",
            "reword",
            "--undeclared",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["version"]["label"] == "2" and data["version"]["id"].startswith("base_tools@2~")


def test_diff_without_drift_exits_zero() -> None:
    result = runner.invoke(app, ["drift", "diff", str(BASE), str(BASE)])
    assert result.exit_code == 0 and "no changes" in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"tools": {"a": 1}}', "expected a JSON array of tool definitions"),
        (
            '[{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": 3}}}}]',
            "not valid JSON Schema",
        ),
        (
            '[{"name": "a", "inputSchema": {"type": "object"}}, {"name": "a", "inputSchema": {}}]',
            "duplicate tool names: a",
        ),
    ],
)
def test_diff_bad_input_names_the_file(tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    result = runner.invoke(app, ["drift", "diff", str(BASE), str(bad)])
    assert result.exit_code == 2
    assert "bad.json" in result.output and message in result.output.replace("\n", " ")


def test_generate_bad_input_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "v.json"
    for args in (["--op", "teleport"], ["--op", "default_flip:tool=nope"], []):
        result = runner.invoke(
            app, ["drift", "generate", "--base", str(BASE), "--out", str(out), *args]
        )
        assert result.exit_code == 2 and "error:" in result.output
    assert not out.exists()


def test_ops_lists_every_kind() -> None:
    result = runner.invoke(app, ["drift", "ops"], terminal_width=200)
    assert result.exit_code == 0
    for kind in ("rename_field", "offset_to_cursor", "id_swap", "timezone"):
        assert kind in result.output
