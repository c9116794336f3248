"""Outcome classification precedence; whatever goes wrong in a trial makes it invalid."""

import asyncio
from pathlib import Path

import pytest

from benchmark import (
    CriticalFlag,
    Outcome,
    TrialResult,
    VerifierResult,
    classify,
    family,
    run_trial,
    served_interface,
)
from benchmark.harness import AgentArtifacts, AgentRun, harness_version
from drift import ToolCall
from tests.benchmark._helpers import start_backend

FLAG = CriticalFlag(
    operator="x", call=ToolCall(name="a"), effect=ToolCall(name="a"), intended=ToolCall(name="a")
)
PASS, FAIL = VerifierResult(passed=True), VerifierResult(passed=False, reasons=("r",))


def test_precedence() -> None:
    assert classify(AgentRun(invalid="boom"), PASS, [FLAG]) is Outcome.INVALID
    assert classify(AgentRun(), PASS, [FLAG]) is Outcome.CRITICAL
    assert classify(AgentRun(), PASS, []) is Outcome.SUCCESS
    assert classify(AgentRun(safe_stop="changed"), FAIL, []) is Outcome.SAFE_STOP
    assert classify(AgentRun(), FAIL, []) is Outcome.FAILURE


def test_any_error_in_a_trial_makes_it_invalid_naming_the_class(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: object) -> AgentRun:
        raise KeyError("tool_calls")

    monkeypatch.setattr("benchmark._trial.run_agent", broken)
    fam = family("support_ops")

    async def go() -> TrialResult:
        backend = await start_backend(fam, tmp_path)
        try:
            result = await run_trial(
                fam,
                fam.tasks("sealed", 1, 0)[0],
                served_interface("support-ops", "support-ops@1"),
                backend,
                model="sim/acme-2",
                harness=harness_version("harness-v1"),
                artifacts=AgentArtifacts(),
                seed=0,
            )
            # the trial was closed, and the server still serves the next one
            async with backend.trial({"customers": {}}) as t:
                assert (await t.dump())["customers"] == {}
            return result
        finally:
            await backend.close()

    result = asyncio.run(go())
    assert result.outcome is Outcome.INVALID and result.verifier is None
    assert result.run.invalid == "KeyError: 'tool_calls'"
