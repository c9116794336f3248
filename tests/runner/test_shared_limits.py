"""The model-call limits hold for the whole run: worker processes share them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from benchmark import default_cycle_spec_path
from benchmark.sim import FaultPlan, SimServer
from conditions import CycleSpec
from runner import EXECUTOR_ENV, Batch, TrialStore, execute, plan_phase, sandbox_groups
from runner._dev import dev_condition
from submissions import reference_bundles


def _two_batches() -> list[Batch]:
    """Two batches of 4 trials, the baseline and a submission's arm, of a sim model served
    over loopback HTTP: two arms never share a sandbox, so two worker processes."""
    spec = CycleSpec.load(default_cycle_spec_path())
    condition = dev_condition(spec.source, "openai/acme-2")
    batches = plan_phase(
        cycle=spec.cycle,
        cycle_seed=spec.seed,
        phase="dev",
        conditions=[(condition.id, condition)],
        bundles=reference_bundles()[:1],
        tasks_per_split=4,
        k=1,
        interfaces=spec.interfaces,
        endpoints=spec.endpoints,
    )
    assert len(sandbox_groups(batches)) == 2  # one per worker process, both calling at once
    return batches


def _peak(tmp_path: Path, route: Callable[[SimServer], None]) -> int:
    """Most requests the server held at once during a run of the two batches in the local
    pool of two processes."""
    with SimServer(faults=FaultPlan(delay_s=0.1)) as server:
        route(server)
        result = execute(TrialStore(tmp_path / "t.sqlite"), _two_batches(), sandbox="local")
    assert result.ran == 8 and server.stats.answered > 8
    return server.stats.peak_in_flight


@pytest.mark.parametrize(("limit", "peak"), [(2, 2), (1, 2)], ids=["halved", "at-least-one"])
def test_two_worker_processes_hold_the_runs_concurrency_limit(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    route: Callable[[SimServer], None],
    limit: int,
    peak: int,
) -> None:
    monkeypatch.setenv(EXECUTOR_ENV, "local")
    monkeypatch.setenv("VWT_MAX_CONCURRENCY", str(limit))
    # each of the 2 processes keeps max(1, limit // 2): at most max(limit, 2) at once in all
    assert _peak(tmp_path, route) == peak


def test_without_a_limit_the_two_processes_call_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, route: Callable[[SimServer], None]
) -> None:
    """The counterfactual: the peaks above are the shared limit's doing."""
    monkeypatch.setenv(EXECUTOR_ENV, "local")
    monkeypatch.delenv("VWT_MAX_CONCURRENCY", raising=False)
    assert _peak(tmp_path, route) > 2
