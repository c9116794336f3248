"""Executing batches on Ray: storing as they finish, resuming, and the workers' network guard."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest

from benchmark import default_cycle_spec_path
from conditions import CycleSpec
from runner import TrialStore, execute, plan_phase
from submissions import reference_bundles
from tests._netguard import NetworkBlocked

pytestmark = pytest.mark.ray

SPEC = CycleSpec.load(default_cycle_spec_path())


def test_execute_stores_every_trial_then_resume_is_a_no_op(
    ray_runtime: None, tmp_path: Path
) -> None:
    batches = plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=[SPEC.source],
        bundles=[reference_bundles()[1]],
        tasks_per_split=2,
        k=2,
        batch_size=3,
    )
    planned = {t.key for b in batches for t in b.trials}
    assert len(batches) == 4 and len(planned) == 8
    store = TrialStore(tmp_path / "t.sqlite")
    seen: list[tuple[int, int]] = []
    first = execute(store, batches, sandbox="local", progress=lambda d, t: seen.append((d, t)))
    assert (first.planned, first.already_stored, first.ran) == (8, 0, 8)
    assert first.failed_batches == []
    assert store.keys() == planned
    assert seen[-1] == (8, 8) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    before = store.records()
    second = execute(store, batches, sandbox="local", progress=lambda d, t: seen.append((d, t)))
    assert (second.planned, second.already_stored, second.ran) == (8, 8, 0)
    assert store.records() == before and len(seen) == 4


def test_execute_runs_only_what_is_missing(ray_runtime: None, tmp_path: Path) -> None:
    def plan(k: int) -> Any:
        return plan_phase(
            cycle=SPEC.cycle,
            cycle_seed=SPEC.seed,
            phase="frozen",
            conditions=[SPEC.source],
            bundles=[],
            tasks_per_split=2,
            k=k,
        )

    store = TrialStore(tmp_path / "t.sqlite")
    execute(store, plan(1), sandbox="local")
    kept = store.records()
    result = execute(store, plan(2), sandbox="local")
    assert (result.already_stored, result.ran) == (2, 2)
    assert [r for r in store.records() if r.trial == 0] == kept


def _dial_out() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(2)
        s.connect(("93.184.216.34", 80))
    return "connected"


def test_a_ray_worker_cannot_reach_the_network(ray_runtime: None) -> None:
    import ray

    with pytest.raises(NetworkBlocked, match="non-loopback"):
        ray.get(ray.remote(max_retries=0)(_dial_out).remote())
