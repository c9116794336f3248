"""`vwt demo --full` end to end at a small size: code maintenance in the sandbox, a real MCP
server's two releases and the real agent frameworks beside the default demo's families.

A module of its own: under ``--dist loadscope`` it runs beside the default demo's module, not
after it (the two are the suite's longest)."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reports import SignedRelease
from tests._frameworks import FRAMEWORK_HARNESSES, require_framework
from vwt.cli import app

pytestmark = [pytest.mark.slow, pytest.mark.ray]


def _release(home: Path) -> SignedRelease:
    return SignedRelease.model_validate_json((home / "public" / "release.json").read_text())


@pytest.mark.timeout(
    2400
)  # 15 targets: 4 under framework harnesses, a real server per file_ops trial
def test_the_full_demo_adds_code_maintenance_real_servers_and_frameworks(
    tmp_path: Path, ray_runtime: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for framework in FRAMEWORK_HARNESSES:  # its targets include each framework harness
        require_framework(framework)
    # the gate on 5 tasks per split, not 20: file_ops's answers each start a real server
    monkeypatch.setattr("benchmark._redteam.GATE_TASKS", 5)
    home = tmp_path / "full"
    small = ["--tasks", "2", "--k", "1", "--max-conditions", "15"]
    result = CliRunner().invoke(app, ["demo", "--full", "--home", str(home), *small])
    assert result.exit_code == 0, result.output
    release = _release(home).release
    gated = {f.family: f for f in release.redteam.families}
    assert {"code_maint", "file_ops"} <= set(gated) and gated["file_ops"].passed
    lines = [json.loads(line) for line in (home / "public" / "trials.jsonl").open()]
    for family in ("code_maint", "file_ops"):  # code run in the sandbox; a real MCP server
        shown = [c for c in release.conditions if c.condition.task_family.families == (family,)]
        assert len(shown) == 1 and shown[0].varied == ("task_family",)
        mine = [r for r in lines if r["family"] == family and r["phase"] == "frozen"]
        assert len(mine) == 5 * 2 * 1  # arms × tasks × k
        assert all(r["outcome"] != "invalid" for r in mine)
    # every framework harness is a target of its own, its trials verified as any others
    frameworks = [c for c in release.conditions if c.condition.harness in FRAMEWORK_HARNESSES]
    assert sorted(c.condition.harness for c in frameworks) == sorted(FRAMEWORK_HARNESSES)
    assert all(c.varied == ("harness",) for c in frameworks)
    run = [r for r in lines if r["harness"] in FRAMEWORK_HARNESSES and r["phase"] == "frozen"]
    assert len(run) == 4 * 5 * 2 * 1  # targets × arms × tasks × k
    assert all(r["outcome"] != "invalid" and r["verifier_version"] for r in run), [
        r["invalid"] for r in run
    ]
    assert any(r["outcome"] == "success" for r in run)
    # and a framework trial replays from the release's recorded calls
    picked = [next(r for r in run if r["harness"] == h)["key"] for h in FRAMEWORK_HARNESSES]
    for key in picked:
        replayed = CliRunner().invoke(
            app, ["trials", "replay", key, "--release", str(home / "public"), "--sandbox", "local"]
        )
        assert replayed.exit_code == 0 and "1 replayed, 1 identical" in replayed.output, (
            replayed.output
        )
