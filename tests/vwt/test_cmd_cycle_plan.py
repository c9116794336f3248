"""`vwt cycle plan`: the plan as a table and as JSON, its help without litellm, bad pilots
refused with one error line."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from tests.vwt.test_cli import imported_by
from vwt.cli import app
from vwt.cmd_cycle import default_spec_path

runner = CliRunner()
WIDE = {"COLUMNS": "200"}


def test_plan_help_imports_no_heavy_package() -> None:
    code, out, heavy = imported_by("cycle", "plan", "--help")
    assert code == 0 and "Usage: vwt cycle plan" in out and "--pilot" in out
    assert not {"litellm", "ray", "runner", "reports"} & set(heavy), heavy


def test_plan_prints_each_condition_the_totals_and_the_assumptions() -> None:
    result = runner.invoke(app, ["cycle", "plan", "--max-conditions", "9"], env=WIDE)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "source" in out and "support_ops" in out and "MDE c/i" in out
    # 2 arms x 24 tasks x k 3 in the source and 9 targets, one over a set of 3 families
    assert "frozen: 1,728 trials" in out
    assert "assumptions:" in out and "baseline: 0.77" in out
    assert "cost $0.0000" in out


def test_plan_json_follows_the_spec(tmp_path: Path) -> None:
    data = yaml.safe_load(default_spec_path().read_text())
    data["evaluation"]["tasks_per_split"] = 6
    spec = tmp_path / "small.yaml"
    spec.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["cycle", "plan", "--spec", str(spec), "--json"])
    assert result.exit_code == 0, result.output
    plan = json.loads(result.stdout)
    assert plan["tasks_per_split"] == 6 and plan["submissions"] == 1
    assert plan["conditions"][0]["frozen"]["trials"] == 2 * 6 * 3
    assert plan["detects"] is False
    assert plan["conditions"][0]["correlated"]["mde"] > 0.15
    assert "warning" not in result.stdout


def test_a_pilot_without_trials_is_one_error_line(tmp_path: Path) -> None:
    (tmp_path / "pilot").mkdir()
    result = runner.invoke(app, ["cycle", "plan", "--pilot", str(tmp_path / "pilot")])
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert lines[0].startswith("error: pilot") and "has no trials" in lines[0]
    assert lines[1].startswith("hint:")
