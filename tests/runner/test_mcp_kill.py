"""A family's MCP server killed in the middle of a trial: that trial ends 'invalid' naming the
server's exit, its batch goes on, and the runner runs it again (every attempt kept)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from benchmark import TrialEnvironment, default_cycle_spec_path
from conditions import CycleSpec
from drift import ToolCall
from runner import EXECUTOR_ENV, TrialStore, execute, plan_phase

SPEC = CycleSpec.load(default_cycle_spec_path())


def test_a_server_killed_mid_trial_makes_it_invalid_and_it_is_retried(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # forked workers inherit the patch below; Ray's would not
    monkeypatch.setenv(EXECUTOR_ENV, "local")
    marks = tmp_path / "killed"
    real_call = TrialEnvironment.call

    async def killing_call(self: TrialEnvironment, call: ToolCall) -> object:
        if not marks.exists():  # the first tool call of the whole run, once
            marks.write_text(self.task.id)
            proc = self.backend._proc
            assert proc is not None
            os.kill(proc.pid, signal.SIGKILL)
        return await real_call(self, call)

    monkeypatch.setattr(TrialEnvironment, "call", killing_call)
    batches = plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=[(SPEC.source.id, SPEC.source)],
        bundles=[],
        tasks_per_split=2,
        k=1,
        batch_size=2,
    )
    store = TrialStore(tmp_path / "t.sqlite")
    result = execute(store, batches, sandbox="local")
    assert result.still_invalid == 0 and result.retried >= 1
    attempts = store.attempts()
    invalid = [r for r in attempts if r.outcome == "invalid"]
    assert invalid, "the killed trial was not invalid"
    assert all("MCP server" in (r.invalid or "") for r in invalid)
    assert any("exited with status -9" in (r.invalid or "") for r in invalid)
    killed_task = marks.read_text()
    retried = [r for r in attempts if r.task_id == killed_task]
    assert sorted(r.attempt for r in retried) == [1, 2]
    assert [r.outcome != "invalid" for r in sorted(retried, key=lambda r: r.attempt)] == [
        False,
        True,
    ]
