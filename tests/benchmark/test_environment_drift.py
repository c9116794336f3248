"""Generated drift, served by the support-ops environment over its one canonical backend.

Through every generated preserving version the reference solution, sent in the served form,
reaches the identical backend end state; through every changing version that alters an effect,
the naive call (old meaning kept) is flagged critical and the correct call is not.
"""

import asyncio
from pathlib import Path

import pytest

from benchmark import TrialEnvironment, family, served_interface
from drift import GenerateConfig, ServedInterface, ToolCall, generate
from tests.benchmark._helpers import start_backend

FAMILY = family("support_ops")
BASE = served_interface("support-ops", "support-ops@1")
TASKS = FAMILY.tasks("sealed", 4, 77)
SEEDS = range(40)


def _version(seed: int) -> ServedInterface:
    vf = generate(GenerateConfig(random=1, seed=seed, env="support-ops"), BASE.tools, BASE.version)
    return vf.served()


def _naive(served: ServedInterface, call: ToolCall) -> ToolCall:
    for op in served.version.ops:
        naive = op.naive_call(call) if op.drift_class == "changing" else None
        call = naive if naive is not None else op.call_to_new(call)
    return call


async def _end(tmp: Path, served: ServedInterface, calls: list[ToolCall], task_i: int) -> tuple:
    backend = await start_backend(FAMILY, tmp)
    env = TrialEnvironment(FAMILY, TASKS[task_i], served, backend)
    await env.start()
    results = [await env.call(c) for c in calls]
    verdict = await env.verify()
    await env.close()
    await backend.close()
    return results, verdict, env.critical


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_drift_through_the_environment(seed: int, tmp_path: Path) -> None:
    served = _version(seed)
    task_i = seed % len(TASKS)
    reference = list(TASKS[task_i].reference_calls)
    correct = [served.from_canonical(c) for c in reference]
    results, verdict, critical = asyncio.run(_end(tmp_path / "ok", served, correct, task_i))
    assert not any(r.is_error for r in results), [r.content for r in results]
    assert verdict.passed and critical == []
    if not served.version.changing():
        return
    naive = [_naive(served, c) for c in reference]
    effects_differ = [
        FAMILY.effect_key(served.to_canonical(n)) != FAMILY.effect_key(c)
        for n, c in zip(naive, reference, strict=True)
    ]
    if not any(effects_differ):
        return  # the change touches nothing this task's effects depend on
    _, verdict, critical = asyncio.run(_end(tmp_path / "naive", served, naive, task_i))
    assert not verdict.passed and critical, served.version.changelog()
