"""Outcome classification precedence."""

from benchmark import CriticalFlag, Outcome, VerifierResult, classify
from benchmark.harness import AgentRun
from drift import ToolCall

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
