"""The trial worker: runs one batch of trials in one sandbox. Plain code; Ray wraps it elsewhere."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
import zlib
from datetime import UTC, datetime

from benchmark import (
    BackendProcess,
    Family,
    ModelPolicy,
    TrialResult,
    backend_argv,
    backend_files,
    backend_timeout,
    family,
    load_litellm,
    run_trial,
    serve,
)
from benchmark._seeds import request_seed
from benchmark.harness import AgentArtifacts, harness_version
from drift import ServedInterface
from runner._records import Batch, TrialRecord, TrialSpec
from runner._sandbox import make_sandbox
from runner._sandbox_base import Mount

_LOOP: asyncio.AbstractEventLoop | None = None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _record(
    batch: Batch,
    spec: TrialSpec,
    fam: Family,
    served: ServedInterface,
    sandbox: str,
    result: TrialResult,
    started: str,
    trace_sha: str,
) -> TrialRecord:
    c = batch.condition
    return TrialRecord(
        key=spec.key,
        cycle=batch.cycle,
        phase=batch.phase,
        condition_id=batch.condition_id,
        arm=batch.arm,
        bundle_hash=batch.bundle_hash,
        submission=batch.submission,
        task_id=spec.task_id,
        family=fam.id,
        split=c.task_family.split,
        task_index=spec.task_index,
        task_seed=batch.split_seed,
        generator_version=fam.generator_version,
        trial=spec.trial,
        seed=spec.seed,
        model=c.model.model,
        provider=c.provider,
        harness=c.harness,
        tool_interfaces=dict(c.tool_interface),
        schema_digests={fam.env_id: served.digest},
        verifier_version=fam.verifier_version,
        sandbox=sandbox,
        started_at=started,
        ended_at=_now(),
        usage=result.run.usage,
        turns=result.run.turns,
        tool_calls=result.run.tool_calls,
        tool_errors=result.run.tool_errors,
        outcome=result.outcome.value,
        critical=tuple(result.critical),
        safe_stop=result.run.safe_stop,
        invalid=result.run.invalid or result.error,
        verifier_reasons=result.verifier.reasons if result.verifier else (),
        trace_sha256=trace_sha,
    )


async def run_batch_async(
    batch: Batch, sandbox_kind: str = "auto", concurrency: int = 16
) -> list[tuple[str, bytes]]:
    """Run every trial of ``batch``; returns (record JSON, compressed trace) per trial."""
    c = batch.condition
    fam = family(batch.family)
    served = serve(fam.env_id, batch.interface)
    harness = harness_version(c.harness)
    artifacts = AgentArtifacts.model_validate_json(batch.artifacts_json)
    files = backend_files(fam)
    mounts = [Mount(host, target) for target, host in files.items()]
    sandbox = make_sandbox(sandbox_kind, mounts=mounts)
    # Locally, the host interpreter in isolated mode runs the stdlib-only backend.
    python = [sys.executable, "-I", "-S"] if sandbox.kind == "local" else ["python3"]
    limit = asyncio.Semaphore(concurrency)
    # Requests carry the trial seed (shared by every arm) and the arm, so that arms share
    # their trait draws but not their sampling noise; the record keeps the trial seed.
    arm = batch.bundle_hash if batch.bundle_hash is not None else "baseline"
    # k trials share each task: generate every task of the batch once
    tasks = {
        i: fam.generate(c.task_family.split, i, batch.split_seed)
        for i in sorted({t.task_index for t in batch.trials})
    }

    async def one(spec: TrialSpec, backend: BackendProcess) -> tuple[str, bytes]:
        async with limit:
            started = _now()
            task = tasks[spec.task_index]
            result = await run_trial(
                fam,
                task,
                served,
                backend,
                spec.key,
                model=c.model.model,
                harness=harness,
                artifacts=artifacts,
                seed=request_seed(spec.seed, arm),
            )
        trace = json.dumps(result.run.messages, sort_keys=True).encode()
        sha = hashlib.sha256(trace).hexdigest()
        record = _record(batch, spec, fam, served, sandbox.kind, result, started, sha)
        return record.model_dump_json(), zlib.compress(trace)

    async with sandbox:
        backend = BackendProcess(await sandbox.spawn(backend_argv(python)))
        try:
            return await asyncio.gather(*(one(s, backend) for s in batch.trials))
        finally:
            await backend.close()


class BatchFailed(Exception):
    """A batch could not run at all (its sandbox or backend failed to start, a setting is
    malformed). Carries only a message, so it crosses process boundaries intact."""


def run_batch(
    batch_json: str, sandbox_kind: str = "auto", concurrency: int = 16
) -> list[tuple[str, bytes]]:
    """Synchronous entry point (one event loop per worker process, reused across batches).

    Heavy imports happen here, before the loop runs and before any deadline starts: litellm
    takes seconds to import (far longer under load), and imported on the first model call it
    would stall every trial of the batch. Errors that stop the whole batch are raised as
    :class:`BatchFailed` naming their class; a trial's own errors end only that trial.
    """
    global _LOOP
    try:
        load_litellm()
        ModelPolicy.from_env()
        backend_timeout()
        if _LOOP is None or _LOOP.is_closed():
            _LOOP = asyncio.new_event_loop()
        batch = Batch.model_validate_json(batch_json)
        return _LOOP.run_until_complete(run_batch_async(batch, sandbox_kind, concurrency))
    except Exception as e:  # litellm's and others' errors may not survive pickling (Ray)
        hint = getattr(e, "hint", None)
        raise BatchFailed(f"{type(e).__name__}: {e}" + (f" ({hint})" if hint else "")) from None
