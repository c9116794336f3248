"""The trial worker, in-process with the local sandbox (no Ray)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import zlib

import pytest

from benchmark import default_cycle_spec_path, family, served_interface
from conditions import CycleSpec
from runner import Batch, TrialRecord, plan_phase, run_batch
from runner._worker import run_batch_async
from submissions import reference_bundles

SPEC = CycleSpec.load(default_cycle_spec_path())


@pytest.fixture(scope="module")
def batches() -> list[Batch]:
    """Baseline and typed-skill batches in the source condition: 2 tasks x k=2 each."""
    return plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=[(SPEC.source.id, SPEC.source)],
        bundles=[reference_bundles()[2]],
        tasks_per_split=2,
        k=2,
    )


def _run(batch: Batch) -> list[tuple[TrialRecord, bytes]]:
    rows = asyncio.run(run_batch_async(batch, "local", concurrency=2))
    return [(TrialRecord.model_validate_json(r), trace) for r, trace in rows]


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
        assert (record.cycle, record.phase, record.condition_id) == (SPEC.cycle, "frozen", c.id)
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
    assert [json.loads(r)["key"] for r, _ in first] == [t.key for t in batches[0].trials]
    assert [json.loads(r)["outcome"] for r, _ in first] == [
        json.loads(r)["outcome"] for r, _ in again
    ]
