"""Outcome classification precedence; whatever goes wrong in a trial makes it invalid."""

import asyncio
from pathlib import Path

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
from benchmark.harness import (
    HARNESS_V1,
    AgentArtifacts,
    AgentRun,
    Harness,
    HarnessInfo,
    HarnessTrial,
)
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


class Broken(Harness):
    """A harness whose run raises what a bug in it would."""

    id = "broken"

    def info(self) -> HarnessInfo:
        return HarnessInfo(id=self.id, kind="loop", version="0", summary="raises")

    async def run(self, trial: HarnessTrial) -> AgentRun:
        raise KeyError("tool_calls")


def test_any_error_in_a_trial_makes_it_invalid_naming_the_class(tmp_path: Path) -> None:
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
                harness=Broken(),
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


def _trial_losing_the_server(tmp_path: Path, after_the_verdict: bool) -> TrialResult:
    """A sim trial whose server is killed while its end state is read: once the state came
    back (``after_the_verdict``: only closing the trial's sessions meets the dead server), or
    before it did."""
    fam = family("support_ops")

    async def go() -> TrialResult:
        backend = await start_backend(fam, tmp_path)
        read = backend.dump

        async def dump_and_die(trial: str) -> dict[str, object]:
            state = await read(trial) if after_the_verdict else {}
            assert backend._proc is not None
            backend._proc.kill()
            await backend._proc.wait()
            return state if after_the_verdict else await read(trial)

        backend.dump = dump_and_die  # type: ignore[method-assign]
        try:
            return await run_trial(
                fam,
                fam.tasks("sealed", 1, 0)[0],
                served_interface("support-ops", "support-ops@1"),
                backend,
                model="sim/acme-2",
                harness=HARNESS_V1,
                artifacts=AgentArtifacts(),
                seed=0,
            )
        finally:
            await backend.close()

    return asyncio.run(go())


def test_a_server_lost_after_the_verdict_does_not_undo_it(tmp_path: Path) -> None:
    (tmp_path / "after").mkdir()
    verified = _trial_losing_the_server(tmp_path / "after", after_the_verdict=True)
    assert verified.outcome is not Outcome.INVALID and verified.verifier is not None
    assert verified.error is None and verified.run.invalid is None
    (tmp_path / "before").mkdir()
    lost = _trial_losing_the_server(tmp_path / "before", after_the_verdict=False)
    assert lost.outcome is Outcome.INVALID and lost.verifier is None
    assert lost.run.invalid is not None and "exited with status -9" in lost.run.invalid
