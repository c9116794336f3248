"""`vwt families list | redteam` through the CLI."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from benchmark import FAMILIES, Task, VerifierResult
from benchmark.support_ops import KINDS, SupportOps
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.stdout, result.stderr


def _passes_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    def verify(self: SupportOps, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        return VerifierResult(passed=True)

    monkeypatch.setattr(SupportOps, "verify", verify)


def test_list_shows_kinds_splits_tools_and_interface_versions() -> None:
    code, out, _ = vwt("families", "list", "--json")
    assert code == 0
    families = {f["id"]: f for f in json.loads(out)["families"]}
    assert set(families) == {"support_ops", "reconciliation", "research_evidence", "code_maint"}
    fam = families["support_ops"]
    assert (fam["id"], fam["env"], fam["tools"]) == ("support_ops", "support-ops", 8)
    assert fam["kinds"] == list(KINDS)
    assert fam["splits"] == [
        {"name": "dev", "evaluated": True},
        {"name": "sealed", "evaluated": True},
        {"name": "adapt", "evaluated": True},
        {"name": "examples", "evaluated": False},
    ]
    assert "support-ops@1" in fam["interface_versions"]
    code, out, _ = vwt("families", "list")
    assert code == 0 and "examples (examples, never evaluated)" in out
    assert "support-ops@2-units" in out


def test_redteam_passes_and_reports_what_it_checked() -> None:
    code, out, _ = vwt("families", "redteam", "--tasks", "2", "--family", "support_ops")
    row = next(line for line in out.splitlines() if "support_ops" in line)
    assert code == 0 and "passed" in row and " 6 " in row  # 2 tasks × 3 evaluated splits
    code, out, _ = vwt("families", "redteam", "--tasks", "2", "--family", "support_ops", "--json")
    report = json.loads(out)
    assert code == 0 and report["passed"] and report["families"][0]["tasks"] == 6


def test_redteam_exits_1_naming_family_task_and_planted_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _passes_everything(monkeypatch)
    code, out, err = vwt("families", "redteam", "--tasks", "1", "--family", "support_ops")
    assert code == 1
    assert "FAIL support_ops task support_ops/dev/0000-" in out
    assert "(--json lists every one)" in out
    assert err.startswith("error: the red-team gate fails for support_ops: support_ops task ")
    assert "planted answer 'wrong amount' passes the verifier" in err
    code, out, _ = vwt("families", "redteam", "--tasks", "1", "--family", "support_ops", "--json")
    report = json.loads(out)
    assert code == 1 and not report["passed"]
    assert len(report["families"][0]["failures"]) == report["families"][0]["planted"]


def test_an_unknown_family_is_a_user_error() -> None:
    code, _, err = vwt("families", "redteam", "--family", "nope")
    assert code == 2 and "unknown task family 'nope'" in err


@pytest.mark.slow
# Every family at its default size, file_ops on two npm server releases in Docker: 150 s on 2
# idle cores alone, 375-400 s in an idle CI, past 900 s in a CI with two CPU hogs beside it.
@pytest.mark.timeout(2400)
def test_redteam_passes_for_every_built_in_family_at_its_default_size() -> None:
    code, out, _ = vwt("families", "redteam", "--json")
    report = json.loads(out)
    assert code == 0 and report["passed"]
    checked = sorted(f["family"] for f in report["families"])
    assert set(checked) >= {"code_maint", "reconciliation", "research_evidence", "support_ops"}
    assert checked == sorted(FAMILIES)  # every family in play, folder ones included
