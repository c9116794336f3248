"""The agent loop and the typed-skill runtime guard."""

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from benchmark import (
    TrialEnvironment,
    family,
    served_interface,
)
from benchmark._models import complete
from benchmark._seeds import request_seed
from benchmark.harness import (
    AgentArtifacts,
    AgentRun,
    Recipe,
    TypedSkill,
    _loop,
    harness_version,
    run_agent,
)
from benchmark.support_ops import REFUND_KINDS
from drift import InterfaceVersion, RenameField, ServedInterface
from submissions import reference_dir
from tests.benchmark._helpers import start_backend

FAMILY = family("support_ops")
TASK = FAMILY.tasks("sealed", 1, 4)[0]
SKILL = TypedSkill.model_validate_json(
    (reference_dir("typed-skill") / "refund-ticket.skill.json").read_text()
)


def _run(
    tmp_path: Path, served: ServedInterface, harness: str, artifacts: AgentArtifacts, seed: int = 0
) -> AgentRun:
    async def go() -> AgentRun:
        backend = await start_backend(FAMILY, tmp_path)
        env = TrialEnvironment(FAMILY, TASK, served, backend)
        await env.start()
        try:
            return await run_agent("sim/acme-2", harness_version(harness), env, artifacts, seed)
        finally:
            await env.close()
            await backend.close()

    return asyncio.run(go())


STRICT = SKILL.model_copy(update={"on_interface_change": "stop"})
QUIET_RENAME = InterfaceVersion(
    id="support-ops@1-quiet",
    env="support-ops",
    label="1",
    parent="support-ops@1",
    ops=(RenameField(tool="issue_refund", field="order_id", new_name="order_ref"),),
)


def _refund_args(run: AgentRun) -> dict:
    for m in run.messages:
        for tc in m.get("tool_calls") or []:
            if tc["function"]["name"] == "issue_refund":
                return json.loads(tc["function"]["arguments"])
    raise AssertionError("no refund call")


def test_changing_drift_stops_the_skill_before_any_model_call(tmp_path: Path) -> None:
    served = served_interface("support-ops", "support-ops@2-units")
    for skill in (SKILL, STRICT):
        run = _run(
            tmp_path / skill.on_interface_change,
            served,
            "harness-v1",
            AgentArtifacts(skills=(skill,)),
        )
        assert run.turns == 0 and run.safe_stop and "announces 2" in run.safe_stop


def test_the_classifier_names_the_changing_change(tmp_path: Path) -> None:
    served = served_interface("support-ops", "support-ops@2-units")
    run = _run(tmp_path, served, "harness-v1", AgentArtifacts(skills=(SKILL,)))
    assert run.safe_stop and "unit_changed (changing)" in run.safe_stop


def test_undeclared_drift_is_caught_by_the_schema_digest(tmp_path: Path) -> None:
    served = ServedInterface(FAMILY.base_tools(), QUIET_RENAME)
    run = _run(tmp_path, served, "harness-v1", AgentArtifacts(skills=(STRICT,)))
    assert run.turns == 0 and run.safe_stop and "without a new version" in run.safe_stop


def test_preserving_drift_is_rebound_and_the_run_proceeds(tmp_path: Path) -> None:
    for i, served in enumerate(
        (
            ServedInterface(FAMILY.base_tools(), QUIET_RENAME),
            served_interface("support-ops", "support-ops@2-rename"),
        )
    ):
        run = _run(tmp_path / str(i), served, "harness-v1", AgentArtifacts(skills=(SKILL,)))
        assert run.safe_stop is None and run.notes and "rebound" in run.notes[0]
        renamed = "order_ref" if i == 0 else "order_number"
        assert renamed in run.messages[0]["content"]  # the rebound skill is what the model sees
        assert renamed in _refund_args(run)


def test_matching_skill_is_in_the_context_and_the_run_completes(tmp_path: Path) -> None:
    served = served_interface("support-ops", "support-ops@1")
    run = _run(tmp_path, served, "harness-v1", AgentArtifacts(skills=(SKILL,)))
    assert run.safe_stop is None and run.turns >= 2
    assert "<typed-skill" in run.messages[0]["content"]
    assert run.messages[-1]["role"] == "assistant" and run.final


def test_harness_v2_offers_skills_through_a_tool(tmp_path: Path) -> None:
    served = served_interface("support-ops", "support-ops@1")
    runs = [
        _run(
            tmp_path / str(s),
            served,
            "harness-v2",
            AgentArtifacts(skills=(SKILL,)),
            seed=request_seed(s, "baseline"),
        )
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


class _Spy:
    """Wraps the model gateway: records every call's tools and policy; replies from
    ``script`` (one reply per call) when given, else from the real model."""

    def __init__(self, script: list[dict] | None = None) -> None:
        self.tools: list[list[str]] = []
        self.attempts: list[int] = []
        self.script = script

    async def __call__(self, model: str, messages: list, tools: list, **kw: Any) -> dict:
        self.tools.append([t["function"]["name"] for t in tools])
        self.attempts.append(kw["policy"].attempts)
        if self.script is None:
            return await complete(model, messages, tools, **kw)
        return self.script[min(len(self.tools), len(self.script)) - 1]


def _spied(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    harness: str,
    artifacts: AgentArtifacts,
    spy: _Spy,
) -> AgentRun:
    monkeypatch.setattr(_loop, "complete", spy)
    return _run(tmp_path, served_interface("support-ops", "support-ops@1"), harness, artifacts)


def _call(name: str, args: dict) -> dict:
    function = {"name": name, "arguments": json.dumps(args)}
    call = {"id": "c0", "type": "function", "function": function}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


PLAYBOOK = AgentArtifacts(
    recipes=(Recipe(name="playbook", text="Check the balance with adjust_balance first."),)
)


def test_harness_v3_exposes_the_relevant_tools_and_those_an_artifact_names(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert TASK.kind in REFUND_KINDS
    spies = {h: _Spy() for h in ("harness-v1", "harness-v3", "recipe")}
    for h, spy in spies.items():
        harness, artifacts = (h, AgentArtifacts()) if h != "recipe" else ("harness-v3", PLAYBOOK)
        _spied(monkeypatch, tmp_path / h, harness, artifacts, spy)
    every, relevant, named = (spies[h].tools[0] for h in spies)
    assert set(every) == {t.name for t in FAMILY.base_tools().tools}
    assert {"issue_refund", "close_ticket"} <= set(relevant) and len(relevant) < len(every)
    assert "adjust_balance" not in relevant
    assert set(named) == {*relevant, "adjust_balance"}
    assert spies["harness-v1"].attempts[0] == 3 and spies["harness-v3"].attempts[0] == 2


def test_harness_v3_puts_artifacts_in_the_user_turn_after_the_instruction(tmp_path: Path) -> None:
    served = served_interface("support-ops", "support-ops@1")
    run = _run(tmp_path, served, "harness-v3", PLAYBOOK)
    system, user = run.messages[0]["content"], run.messages[1]["content"]
    assert system == harness_version("harness-v3").preamble
    assert user.startswith(TASK.instruction + '\n\n<recipe name="playbook">')
    v1 = _run(tmp_path / "v1", served, "harness-v1", PLAYBOOK)
    assert "<recipe" in v1.messages[0]["content"] and v1.messages[1]["content"] == TASK.instruction


def test_harness_v3_refuses_a_tool_it_did_not_offer_and_stops_after_8_turns(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    customer = next(iter(TASK.initial_state["customers"]))
    hidden = _call("set_discount", {"customer_id": customer, "rate": 0.5})
    spy = _Spy([hidden])
    run = _spied(monkeypatch, tmp_path, "harness-v3", AgentArtifacts(), spy)
    assert "set_discount" not in spy.tools[0]
    assert run.turns == 8 and run.hit_turn_limit and run.tool_errors == 8
    assert run.messages[3]["content"] == "error: no tool named 'set_discount'"
