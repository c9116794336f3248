"""A cycle on a family written as a folder whose tools are a real MCP server from npm: held out,
with the server's second pinned release as a tool-interface target (a module of its own, so it
runs beside the demo's tests)."""

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.ray]


def test_a_cycle_targets_the_two_released_versions_of_a_real_server(
    tmp_path: Path, ray_runtime: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file_ops family (a folder, on @modelcontextprotocol/server-filesystem) held out,
    with its second pinned release as a tool-interface target: drift nobody here generated."""
    monkeypatch.setattr("benchmark._redteam.GATE_TASKS", 5)  # each answer starts a server
    from datetime import UTC, datetime, timedelta

    from benchmark import mcp_servers_dir
    from conditions import CycleSpec
    from vwt._demo import run_demo

    if not (mcp_servers_dir() / "filesystem-2026.8.31" / "node_modules").is_dir():
        pytest.skip("the pinned filesystem servers are missing: run scripts/mcp-servers-setup.sh")
    folder = Path(__file__).resolve().parents[2] / "benchmark" / "families" / "file_ops"
    now = datetime.now(UTC).replace(microsecond=0)
    spec = CycleSpec.model_validate(
        {
            "v": 1,
            "cycle": "files-two-releases",
            "seed": 20261201,
            "opens_at": now.isoformat().replace("+00:00", "Z"),
            "closes_at": (now + timedelta(days=1)).isoformat().replace("+00:00", "Z"),
            "source": {
                "model": {"model": "sim/acme-2", "version": "2"},
                "provider": "acme",
                "tool_interface": {"support-ops": "support-ops@1", "files": "files@2025.7.1"},
                "task_family": {"family": "support_ops", "split": "sealed"},
                "harness": "harness-v1",
            },
            "catalogue": {
                "models": [{"model": "sim/acme-2", "version": "2", "provider": "acme"}],
                "tool_interfaces": {
                    "support-ops": ["support-ops@1"],
                    "files": ["files@2025.7.1", "files@2026.8.31"],
                },
                "task_families": [
                    {"family": "support_ops", "split": "sealed"},
                    {"family": "file_ops", "split": "sealed"},
                ],
                "family_envs": {"support_ops": "support-ops", "file_ops": "files"},
                "harnesses": ["harness-v1"],
            },
            "families": {
                "development": ["support_ops"],
                "held_out": ["file_ops"],
                "folders": [{"path": str(folder), "digest": _digest(folder)}],
            },
            "evaluation": {"tasks_per_split": 2, "k": 1, "fdr_q": 0.05},
            "adaptation": {
                "budget_tokens": 200000,
                "budget_calls": 400,
                "budget_seconds": 600,
                "human_minutes": 0,
            },
        }
    )
    result = run_demo(tmp_path / "home", spec, say=lambda _: None)
    release = result.release.release
    varied = {c.varied: c.condition for c in release.conditions}
    real = varied[("tool_interface", "task_family")]
    assert real.tool_interface["files"] == "files@2026.8.31"  # the second released version
    assert real.task_family.families == ("file_ops",)
    assert varied[("task_family",)].tool_interface["files"] == "files@2025.7.1"
    lines = [json.loads(x) for x in (tmp_path / "home" / "public" / "trials.jsonl").open()]
    files = [r for r in lines if r["family"] == "file_ops"]
    assert files and all(r["outcome"] != "invalid" for r in files)
    assert {r["tool_interfaces"]["files"] for r in files} == {"files@2025.7.1", "files@2026.8.31"}
    assert len({r["schema_digests"]["files"] for r in files}) == 2  # two real tool lists
    commitment = json.loads((tmp_path / "home" / "public" / "commitment.json").read_text())
    assert commitment["commitment"]["families"]["folders"] == [_digest(folder)]


def _digest(folder: Path) -> str:
    from conditions import read_family_folder
    from drift import folder_digest

    return folder_digest(read_family_folder(folder))
