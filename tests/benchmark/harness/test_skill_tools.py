"""The harness's skill tools in real agent runs (sim model through litellm, a real backend):
activation by description, the body loaded, a reference read, a script run through the runner
passed in; reads confined to the skill's folder; no runner, no script tool."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from benchmark import TrialEnvironment, family, served_interface
from benchmark.harness import (
    LOAD_SKILL,
    READ_SKILL_FILE,
    RUN_SKILL_SCRIPT,
    AgentArtifacts,
    AgentRun,
    AgentSkill,
    ScriptRun,
    harness_version,
    run_agent,
)
from benchmark.harness._skill_tools import SkillTools
from benchmark.support_ops import REFUND_KINDS
from tests._skills import reference_skill
from tests.benchmark._helpers import start_backend
from tests.benchmark.sim._experiment import use_model

FAMILY = family("support_ops")
REFUND = next(t for t in FAMILY.tasks("sealed", 12, 4) if t.kind in REFUND_KINDS)
EMAIL = next(t for t in FAMILY.tasks("sealed", 12, 4) if t.kind == "change_email")
REFUNDS = """---
name: refund-helper
description: Refund a support ticket's order with the right reason code. Use for refunds.
---
1. Read `references/codes.md` for the reason codes.
2. Run `scripts/check.py --strict` before the refund.
3. Never run `scripts/other.py`.
"""
EMAILS = """---
name: email-changes
description: Update a customer's account email address when they ask for a change.
---
1. Update the account, then close the ticket.
"""
CODES = (
    "- issue_refund reason: duplicate_charge for double charges, damaged for broken items,"
    " late_delivery for late orders"
)


def _skill(text: str, files: dict[str, str] | None = None) -> AgentSkill:
    return AgentSkill(skill_md=text, files=files or {})


HELPER = _skill(
    REFUNDS,
    {"references/codes.md": CODES, "scripts/check.py": "print('ok')", "scripts/other.py": "1"},
)


class Runner:
    """A ScriptRunner that records what it was asked to run and answers ``stdout``."""

    def __init__(self, stdout: str = "checked", code: int = 0) -> None:
        self.runs: list[tuple[str, str, list[str]]] = []
        self.stdout, self.code = stdout, code

    async def run(self, skill: str, path: str, args: Sequence[str]) -> ScriptRun:
        self.runs.append((skill, path, list(args)))
        return ScriptRun(exit_code=self.code, stdout=self.stdout, stderr="", where="test")


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> str:
    """A sim model that loads skills, follows every format and knows no codes of its own."""
    return "sim/" + use_model(monkeypatch, "skill-user", map_enums=0.0, recover=0.0)


def _run(
    model: str,
    tmp_path: Path,
    artifacts: AgentArtifacts,
    harness: str = "harness-v2",
    task: Any = REFUND,
    runner: Runner | None = None,
    interface: str = "support-ops@1",
) -> AgentRun:
    async def go() -> AgentRun:
        backend = await start_backend(FAMILY, tmp_path)
        served = served_interface("support-ops", interface)
        env = TrialEnvironment(FAMILY, task, served, backend)
        await env.start()
        try:
            return await run_agent(
                model, harness_version(harness), env, artifacts, 0, scripts=runner
            )
        finally:
            await env.close()
            await backend.close()

    return asyncio.run(go())


def _calls(run: AgentRun) -> list[tuple[str, dict[str, Any]]]:
    return [
        (tc["function"]["name"], json.loads(tc["function"]["arguments"]))
        for m in run.messages
        for tc in m.get("tool_calls") or []
    ]


def _offered(artifacts: AgentArtifacts, runner: Runner | None, on_demand: bool) -> list[str]:
    tools = SkillTools(artifacts.recipes, artifacts.skills, lambda c: c, runner, on_demand)
    return [t["function"]["name"] for t in tools.definitions()]


def test_the_skill_tools_are_offered_by_what_the_skills_hold() -> None:
    both = AgentArtifacts(skills=(HELPER, _skill(EMAILS)))
    assert _offered(both, Runner(), True) == [LOAD_SKILL, READ_SKILL_FILE, RUN_SKILL_SCRIPT]
    assert _offered(both, None, True) == [LOAD_SKILL, READ_SKILL_FILE]  # no runner, no scripts
    assert _offered(both, Runner(), False) == [READ_SKILL_FILE, RUN_SKILL_SCRIPT]
    assert _offered(AgentArtifacts(skills=(_skill(EMAILS),)), Runner(), False) == []


def test_activation_body_reference_and_script_appear_in_the_trace(
    model: str, tmp_path: Path
) -> None:
    runner = Runner()
    artifacts = AgentArtifacts(skills=(_skill(EMAILS), HELPER))
    runs = [_run(model, tmp_path, artifacts, runner=runner)]
    calls = _calls(runs[0])
    assert calls[:3] == [
        (LOAD_SKILL, {"name": "refund-helper"}),  # by its description, not the first listed
        (READ_SKILL_FILE, {"skill": "refund-helper", "path": "references/codes.md"}),
        (
            RUN_SKILL_SCRIPT,
            {"skill": "refund-helper", "path": "scripts/check.py", "args": ["--strict"]},
        ),
    ]
    results = [m["content"] for m in runs[0].messages if m["role"] == "tool"]
    assert "1. Read `references/codes.md`" in results[0]  # the body, loaded on activation
    assert CODES in results[1]
    assert "exited 0 in the test sandbox" in results[2] and "checked" in results[2]
    assert runner.runs == [("refund-helper", "scripts/check.py", ["--strict"])]  # not other.py


def test_a_skill_whose_description_does_not_fit_is_not_activated(
    model: str, tmp_path: Path
) -> None:
    artifacts = AgentArtifacts(skills=(HELPER, _skill(EMAILS)))
    run = _run(model, tmp_path, artifacts, task=EMAIL, runner=Runner())
    assert [a for name, a in _calls(run) if name == LOAD_SKILL] == [{"name": "email-changes"}]


def test_in_context_the_body_is_shown_and_its_files_used_without_activation(
    model: str, tmp_path: Path
) -> None:
    runner = Runner()
    artifacts = AgentArtifacts(skills=(HELPER,))
    run = _run(model, tmp_path, artifacts, harness="harness-v1", runner=runner)
    assert '<skill name="refund-helper">' in run.messages[0]["content"]
    assert [n for n, _ in _calls(run)][:2] == [READ_SKILL_FILE, RUN_SKILL_SCRIPT]


def test_what_the_reference_says_changes_what_the_model_does_its_wording_does_not(
    model: str, tmp_path: Path
) -> None:
    wrong = (
        CODES.replace("duplicate_charge for double", "goodwill for double")
        .replace("damaged for broken", "goodwill for broken")
        .replace("late_delivery for late", "goodwill for late")
    )
    reworded = (  # the right codes in other words
        "- The issue_refund reason is duplicate_charge when a customer paid twice, damaged when"
        " an item arrived broken, late_delivery when it came late."
    )
    reasons = {}
    for name, codes in (("right", CODES), ("wrong", wrong), ("reworded", reworded)):
        skill = _skill(REFUNDS, {"references/codes.md": codes, "scripts/check.py": "1"})
        run = _run(model, tmp_path / name, AgentArtifacts(skills=(skill,)), runner=Runner())
        reasons[name] = [a.get("reason") for n, a in _calls(run) if n == "issue_refund"]
    assert reasons["wrong"] == ["goodwill"]
    expected = [c.arguments["reason"] for c in REFUND.reference_calls if c.name == "issue_refund"]
    assert reasons["right"] == reasons["reworded"] == expected != ["goodwill"]


async def _tool(tools: SkillTools, name: str, **args: Any) -> tuple[bool, str]:
    result = await tools.call(name, args)
    return result.is_error, result.content


def test_reads_and_runs_stay_inside_the_skill_folder() -> None:
    runner = Runner()
    tools = SkillTools((), (HELPER,), lambda c: c, runner, True)

    def call(name: str, **args: Any) -> tuple[bool, str]:
        return asyncio.run(_tool(tools, name, **args))

    for path in ("../../etc/passwd", "/etc/passwd", "references/../../x", "a\\b", ""):
        failed, text = call(READ_SKILL_FILE, skill="refund-helper", path=path)
        assert failed and "inside the skill's folder" in text, path
    failed, text = call(READ_SKILL_FILE, skill="refund-helper", path="references/none.md")
    assert failed and "has no file" in text and "references/codes.md" in text
    ok, text = call(READ_SKILL_FILE, skill="refund-helper", path="./references/codes.md")
    assert not ok and CODES in text
    failed, text = call(RUN_SKILL_SCRIPT, skill="refund-helper", path="references/codes.md")
    assert failed and "has no script" in text
    failed, text = call(RUN_SKILL_SCRIPT, skill="refund-helper", path="scripts/check.py", args="x")
    assert failed and "args must be a list" in text
    failed, _ = call(READ_SKILL_FILE, skill="nobody", path="references/codes.md")
    assert failed and runner.runs == []


def test_a_failing_script_is_an_error_result_with_its_output() -> None:
    tools = SkillTools((), (HELPER,), lambda c: c, Runner("boom", code=3), True)
    failed, text = asyncio.run(
        _tool(tools, RUN_SKILL_SCRIPT, skill="refund-helper", path="scripts/check.py")
    )
    assert failed and text.startswith("error: script scripts/check.py") and "exited 3" in text


def test_a_contract_skill_activated_on_demand_stops_on_a_changed_interface(
    model: str, tmp_path: Path
) -> None:
    artifacts = AgentArtifacts(skills=(reference_skill("refund-ticket"),))
    run = _run(model, tmp_path, artifacts, interface="support-ops@2-units")
    assert _calls(run) == [(LOAD_SKILL, {"name": "refund-ticket"})]
    assert run.safe_stop and "announces 2" in run.safe_stop
