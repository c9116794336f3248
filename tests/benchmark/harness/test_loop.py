"""The agent loop and the typed-skill runtime guard."""

import asyncio
import sys
from pathlib import Path

from benchmark import (
    BackendProcess,
    TrialEnvironment,
    backend_argv,
    backend_files,
    family,
    served_interface,
)
from benchmark.harness import AgentArtifacts, AgentRun, TypedSkill, harness_version, run_agent
from drift import InterfaceVersion, RenameField, ServedInterface
from submissions import reference_dir

FAMILY = family("support_ops")
TASK = FAMILY.tasks("sealed", 1, 4)[0]
SKILL = TypedSkill.model_validate_json(
    (reference_dir("typed-skill") / "refund-ticket.skill.json").read_text()
)


def _run(
    tmp_path: Path, served: ServedInterface, harness: str, artifacts: AgentArtifacts, seed: int = 0
) -> AgentRun:
    async def go() -> AgentRun:
        for target, host in backend_files(FAMILY).items():
            (tmp_path / target).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / target).write_bytes(host.read_bytes())
        proc = await asyncio.create_subprocess_exec(
            *backend_argv([sys.executable, "-I", "-S"]),
            cwd=tmp_path,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        backend = BackendProcess(proc)
        env = TrialEnvironment(FAMILY, TASK, served, backend, "t")
        await env.start()
        try:
            return await run_agent("sim/acme-2", harness_version(harness), env, artifacts, seed)
        finally:
            await backend.close()

    return asyncio.run(go())


def test_declared_drift_stops_the_skill_before_any_model_call(tmp_path: Path) -> None:
    served = served_interface("support-ops", "support-ops@2-units")
    run = _run(tmp_path, served, "harness-v1", AgentArtifacts(skills=(SKILL,)))
    assert run.turns == 0 and run.safe_stop and "announces 2" in run.safe_stop


def test_undeclared_drift_is_caught_by_the_schema_digest(tmp_path: Path) -> None:
    quiet = InterfaceVersion(
        id="support-ops@1-quiet",
        env="support-ops",
        label="1",
        parent="support-ops@1",
        ops=(RenameField(tool="issue_refund", field="order_id", new_name="order_ref"),),
    )
    served = ServedInterface(FAMILY.base_tools(), quiet)
    run = _run(tmp_path, served, "harness-v1", AgentArtifacts(skills=(SKILL,)))
    assert run.turns == 0 and run.safe_stop and "without a new version" in run.safe_stop


def test_matching_skill_is_in_the_context_and_the_run_completes(tmp_path: Path) -> None:
    served = served_interface("support-ops", "support-ops@1")
    run = _run(tmp_path, served, "harness-v1", AgentArtifacts(skills=(SKILL,)))
    assert run.safe_stop is None and run.turns >= 2
    assert "<typed-skill" in run.messages[0]["content"]
    assert run.messages[-1]["role"] == "assistant" and run.final


def test_harness_v2_offers_skills_through_a_tool(tmp_path: Path) -> None:
    served = served_interface("support-ops", "support-ops@1")
    runs = [
        _run(tmp_path / str(s), served, "harness-v2", AgentArtifacts(skills=(SKILL,)), seed=s)
        for s in range(8)
    ]
    for run in runs:
        assert "<typed-skill" not in run.messages[0]["content"]
        assert "load_skill" in run.messages[0]["content"]
    loaded = [
        any(
            tc["function"]["name"] == "load_skill"
            for m in r.messages
            for tc in m.get("tool_calls") or []
        )
        for r in runs
    ]
    assert any(loaded) and not all(loaded)  # some activations fail, as the model decides
