"""The real agent frameworks (each pinned release in its own environment, installed by
``scripts/frameworks-setup.sh``) run trials against the sim: verified outcomes, traces with
the MCP exchange behind every tool message, every model call recorded through the gateway,
and a replay from the recorded calls reproduces each trial."""

from __future__ import annotations

import asyncio
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from benchmark import CallDocument, ReplayCall, default_cycle_spec_path, expand
from benchmark.harness import AgentArtifacts
from conditions import Condition, CycleSpec, TaskFamilyAxis
from drift import InterfaceVersion
from runner import Batch, TrialRecord, plan_phase, replay_trials
from runner._worker import Row, run_batch_async, unpack_call_blobs
from submissions import reference_bundles
from tests._frameworks import FRAMEWORK_HARNESSES, require_framework

SPEC = CycleSpec.load(default_cycle_spec_path())
FRAMEWORKS = FRAMEWORK_HARNESSES
RECIPE = next(b for b in reference_bundles() if b.manifest.name == "prompt-recipe")


def _batch(harness_id: str) -> Batch:
    source = SPEC.source.model_copy(
        update={
            "task_family": TaskFamilyAxis(family="support_ops", split="dev"),
            "harness": harness_id,
        }
    )
    (_, with_recipe) = plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=[(source.id, source)],
        bundles=[RECIPE],
        tasks_per_split=2,
        k=1,
    )
    return with_recipe


@dataclass
class _Rows:
    """A replay source holding one batch's rows."""

    batch: Batch
    rows: Sequence[Row]
    where: str = "the test's rows"

    def condition(self, condition_id: str) -> Condition:
        return self.batch.condition

    def artifacts(self, bundle_hash: str) -> AgentArtifacts:
        return RECIPE.agent_artifacts()

    def interfaces(self) -> Sequence[InterfaceVersion]:
        return ()

    def calls(self, calls_sha256: str) -> tuple[ReplayCall, ...]:
        for row in self.rows:
            blobs = unpack_call_blobs(row.calls)
            if calls_sha256 in blobs:
                document = CallDocument.model_validate_json(blobs[calls_sha256])
                return expand(document, {h: json.loads(blobs[h]) for h in document.blob_hashes()})
        raise KeyError(calls_sha256)


@pytest.mark.slow
@pytest.mark.parametrize("harness_id", FRAMEWORKS)
def test_a_framework_runs_verified_trials_that_replay(harness_id: str) -> None:
    require_framework(harness_id)
    batch = _batch(harness_id)
    rows = asyncio.run(run_batch_async(batch, "local", concurrency=2))
    records = [TrialRecord.model_validate_json(r.record) for r in rows]
    for record, row in zip(records, rows, strict=True):
        assert record.harness == harness_id and record.invalid is None, record.invalid
        assert record.verifier_version and record.outcome in ("success", "failure", "critical")
        trace = json.loads(zlib.decompress(row.trace))
        tools = [m for m in trace if m.get("role") == "tool"]
        assert tools and all(m["mcp"]["request"]["method"] == "tools/call" for m in tools)
        assert trace[-1]["role"] == "assistant" and not trace[-1].get("tool_calls")
        document = CallDocument.model_validate_json(
            unpack_call_blobs(row.calls)[record.calls_sha256 or ""]
        )
        assert len(document.calls) == record.turns == record.usage.calls
    assert any(r.outcome == "success" for r in records)  # the recipe's model does the work
    replayed = replay_trials(records, _Rows(batch, rows), sandbox="local")
    assert replayed.identical == len(records), replayed.line()
