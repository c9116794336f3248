"""The trial worker, in-process with the local sandbox (no Ray)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import pickle
import subprocess
import sys
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmark import default_cycle_spec_path, family, served_interface
from benchmark._seeds import shared_seed
from benchmark.harness import _loop
from benchmark.sim import Fault, FaultPlan, SimServer
from conditions import CycleSpec, plan_targets
from runner import Batch, TrialRecord, _worker, plan_phase, run_batch, run_group_async, stream_batch
from runner._worker import BatchFailed, run_batch_async
from submissions import reference_bundles
from tests.runner.test_execute import source_plan

SPEC = CycleSpec.load(default_cycle_spec_path())


@pytest.fixture(scope="module")
def batches() -> list[Batch]:
    """Baseline and typed-skill batches in the source condition: 2 tasks x k=2 each."""
    return source_plan(reference_bundles()[2:3])


def _run(batch: Batch) -> list[tuple[TrialRecord, bytes]]:
    rows = asyncio.run(run_batch_async(batch, "local", concurrency=2))
    return [(TrialRecord.model_validate_json(r.record), r.trace) for r in rows]


def test_a_batch_returns_one_record_per_trial_with_its_provenance(batches: list[Batch]) -> None:
    batch = batches[1]
    assert batch.arm == "with"
    results = _run(batch)
    c = batch.condition
    fam = family(c.task_family.family)
    digest = served_interface(fam.env_id, c.tool_interface[fam.env_id]).digest
    assert [r.key for r, _ in results] == [t.key for t in batch.trials]
    for (record, _), spec in zip(results, batch.trials, strict=True):
        assert (record.task_id, record.trial, record.seed) == (spec.task_id, spec.trial, spec.seed)
        assert (record.cycle, record.phase) == (SPEC.cycle, "frozen")
        assert record.condition_id == batch.condition_id == c.id
        assert (record.arm, record.bundle_hash) == ("with", batch.bundle_hash)
        assert record.submission == "typed-skill@1"
        assert (record.model, record.provider, record.harness) == (
            c.model.model,
            c.provider,
            c.harness,
        )
        assert record.schema_digests == {fam.env_id: digest}
        assert record.tool_interfaces == dict(c.tool_interface)
        assert (record.sandbox, record.task_seed) == ("local", batch.split_seed)
        assert record.generator_version == fam.generator_version
        assert record.outcome in {"success", "safe_stop", "failure", "critical", "invalid"}
        assert record.usage.calls == record.turns >= 1
        assert record.started_at <= record.ended_at


def test_traces_are_the_messages_and_match_their_hash(batches: list[Batch]) -> None:
    for record, trace in _run(batches[0]):
        body = zlib.decompress(trace)
        assert hashlib.sha256(body).hexdigest() == record.trace_sha256
        messages = json.loads(body)
        assert messages[0]["role"] == "system" and any(m["role"] == "user" for m in messages)


def test_the_same_batch_gives_the_same_outcomes(batches: list[Batch]) -> None:
    def outcomes() -> list[tuple[str, str, int]]:
        return [(r.outcome, r.trace_sha256, r.tool_calls) for r, _ in _run(batches[0])]

    assert outcomes() == outcomes()  # model noise is seeded per (model, task, trial)


def test_the_sync_entry_point_takes_json_and_reuses_its_loop(batches: list[Batch]) -> None:
    first = run_batch(batches[0].model_dump_json(), "local", 2)
    again = run_batch(batches[0].model_dump_json(), "local", 2)
    assert [json.loads(r)["key"] for r, *_ in first] == [t.key for t in batches[0].trials]
    assert [json.loads(r)["outcome"] for r, *_ in first] == [
        json.loads(r)["outcome"] for r, *_ in again
    ]


def test_arms_send_different_request_seeds_with_a_shared_trial_seed(
    batches: list[Batch], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seed sent with a model request names the arm; the record keeps the trial seed."""
    sent: set[int] = set()

    async def answer(*_: Any, seed: int, **__: Any) -> dict[str, Any]:
        sent.add(seed)
        return {"role": "assistant", "content": "done"}  # the model is not what is tested

    monkeypatch.setattr(_loop, "complete", answer)
    baseline, typed = batches
    assert [t.seed for t in baseline.trials] == [t.seed for t in typed.trials]
    seeds: list[set[int]] = []
    for batch in (baseline, typed):
        sent.clear()
        records = [record for record, _ in _run(batch)]
        assert [r.seed for r in records] == [t.seed for t in batch.trials]
        seeds.append(set(sent))
    assert len(seeds[0]) == len(baseline.trials)  # one request seed per trial
    assert not seeds[0] & seeds[1]
    assert {shared_seed(s) for s in seeds[0]} == {shared_seed(s) for s in seeds[1]}


def _over_http(batch: Batch) -> Batch:
    """``batch`` with its model served by an OpenAI-compatible server (see ``route``)."""
    model = batch.condition.model.model_copy(update={"model": "openai/acme-2"})
    return batch.model_copy(
        update={"condition": batch.condition.model_copy(update={"model": model})}
    )


@pytest.mark.parametrize("status", [404, 400, 401, 403])
def test_a_provider_error_ends_its_trial_not_the_batch(
    batches: list[Batch], route: Callable[[SimServer], None], status: Any
) -> None:
    batch = _over_http(batches[0])
    with SimServer(faults=FaultPlan(fail_first=1, status=status)) as server:
        route(server)
        rows = run_batch(batch.model_dump_json(), "local", 2)
    records = [TrialRecord.model_validate_json(r.record) for r in rows]
    assert [r.key for r in records] == [t.key for t in batch.trials]
    invalid = [r for r in records if r.outcome == "invalid"]
    assert len(invalid) == 1 and invalid[0].turns == 0  # one request failed, not retried
    # litellm maps the openai client's 403 to its generic APIError (with the status)
    name = {404: "NotFoundError", 400: "BadRequestError", 401: "AuthenticationError"}
    reason = invalid[0].invalid
    assert reason is not None and reason.startswith(f"{name.get(status, 'APIError')}: ")
    assert str(status) in reason
    assert all(r.turns >= 1 for r in records if r.outcome != "invalid")
    assert server.stats.faults[Fault.ERROR] == 1 and server.stats.answered >= len(records) - 1


def test_a_batch_that_cannot_run_fails_with_a_message_that_survives_pickling(
    batches: list[Batch], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VWT_MODEL_ATTEMPTS", "none")
    with pytest.raises(BatchFailed) as failed:
        run_batch(batches[0].model_dump_json(), "local", 2)
    again = pickle.loads(pickle.dumps(failed.value))
    assert type(again) is BatchFailed and str(again) == str(failed.value)
    assert str(again).startswith("BenchmarkError: VWT_MODEL_ATTEMPTS='none'")
    monkeypatch.setenv("VWT_MODEL_ATTEMPTS", "2")
    monkeypatch.setenv("VWT_BACKEND_TIMEOUT_S", "-1")
    with pytest.raises(BatchFailed, match="VWT_BACKEND_TIMEOUT_S='-1'"):
        run_batch(batches[0].model_dump_json(), "local", 2)


_UNDER_LOAD = """
import asyncio, json, sys
from runner import Batch, _worker

batch = Batch.model_validate_json(sys.stdin.read())
_worker._LOOP = loop = asyncio.new_event_loop()
seen = {"before": "litellm" in sys.modules, "in_loop": None}

class Watch:
    # notes whether the worker's loop was running when litellm's import began
    def find_spec(self, name, path=None, target=None):
        if name == "litellm" and seen["in_loop"] is None:
            seen["in_loop"] = loop.is_running()
        return None

sys.meta_path.insert(0, Watch())
rows = _worker.run_batch(batch.model_dump_json(), "local", 16)
print(json.dumps({**seen, "records": [json.loads(r.record) for r in rows]}))
"""


@contextlib.contextmanager
def cpu_hogs(n: int = 3) -> Iterator[None]:
    """``n`` busy-loop processes for the duration (the machine has 2 cores)."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield
    finally:
        for h in hogs:
            h.kill()
            h.wait()


@pytest.mark.slow
def test_a_fresh_worker_under_cpu_contention_has_no_invalid_trials() -> None:
    """A new worker (litellm not imported yet) runs 24 trials beside 3 CPU hogs: litellm's
    import happens before the event loop runs (imported on the first model call, it stalled the
    loop 7 s beside 3 hogs), and no trial is invalid."""
    batch = source_plan(reference_bundles()[2:3], tasks=12, batch_size=24)[1]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    with cpu_hogs():
        done = subprocess.run(
            [sys.executable, "-c", _UNDER_LOAD],
            input=batch.model_dump_json(),
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout)
    records = out["records"]
    assert len(records) == 24
    assert [r["invalid"] for r in records if r["outcome"] == "invalid"] == []
    assert out["before"] is False and out["in_loop"] is False  # imported by the batch, first


def _same_arm_in_two_conditions(varied: str = "model") -> list[Batch]:
    """The typed-skill arm's batch in the source and in the target that varies ``varied``
    (the model, or the task family): one arm and server, so one sandbox group."""
    target = next(t for t in plan_targets(SPEC).targets if t.varied == (varied,))
    conditions = [(SPEC.source.id, SPEC.source), (target.id, target.condition)]
    batches = plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=conditions,
        bundles=reference_bundles()[2:3],
        tasks_per_split=2,
        k=2,
        baseline=False,
    )
    if varied == "task_family":  # the source's first batch, the target's of another family
        batches = [batches[0], next(b for b in batches if b.family != batches[0].family)]
    assert len(batches) == 2 and batches[0].condition != batches[1].condition
    return batches


def _comparable(row: Any) -> tuple[Any, ...]:
    record = TrialRecord.model_validate_json(row.record)
    kept = record.model_dump(exclude={"started_at", "ended_at"})
    del kept["usage"]["latency_s"]  # wall clock, like the two above
    return (kept, zlib.decompress(row.trace))


@pytest.mark.parametrize("varied", ["model", "task_family"])
def test_a_group_runs_its_batches_in_one_sandbox_as_each_would_run_alone(
    monkeypatch: pytest.MonkeyPatch, varied: str
) -> None:
    batches = _same_arm_in_two_conditions(varied)
    if varied == "task_family":  # two families' trials, on one server serving both
        assert batches[0].family != batches[1].family
    alone = [row for b in batches for row in asyncio.run(run_batch_async(b, "local", 2))]
    started: list[str] = []
    real = _worker.make_sandbox

    def counted(kind: str, **kw: Any) -> Any:
        started.append(kind)
        return real(kind, **kw)

    monkeypatch.setattr(_worker, "make_sandbox", counted)
    together = asyncio.run(run_group_async(batches, "local", 2))
    assert started == ["local"]  # one sandbox (and one MCP server) for both conditions
    assert [_comparable(r) for r in together] == [_comparable(r) for r in alone]
    models = {TrialRecord.model_validate_json(r.record).model for r in together}
    assert models == {b.condition.model.model for b in batches}


def test_a_group_of_two_arms_is_refused_before_any_sandbox_starts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with_arm = _same_arm_in_two_conditions()[0]
    baseline = source_plan()[0]
    assert baseline.arm == "without"
    monkeypatch.setattr(_worker, "make_sandbox", lambda *a, **k: pytest.fail("started"))
    with pytest.raises(ValueError, match="one arm and server"):
        asyncio.run(run_group_async([baseline, with_arm], "local", 2))
    with pytest.raises(BatchFailed, match="empty"):
        next(stream_batch("[]", "local"))
