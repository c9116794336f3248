"""The trial worker: runs one batch of trials in one sandbox. Plain code; Ray wraps it elsewhere."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
import zlib
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

from benchmark import (
    SHARE_ENV,
    Family,
    McpBackend,
    ModelPolicy,
    TrialResult,
    backend_timeout,
    family,
    load_litellm,
    run_trial,
    serve,
    usage_cost,
    wire_format,
)
from benchmark._seeds import request_seed
from benchmark.harness import AgentArtifacts, harness_version
from drift import ServedInterface
from runner._records import Batch, TrialRecord, TrialSpec
from runner._sandbox import make_sandbox
from runner._sandbox_base import Mount, Sandbox
from runner._skill_scripts import SandboxScripts, skill_mount

_LOOP: asyncio.AbstractEventLoop | None = None
_IN_RAY = True
"""False in a process forked from the driver: Ray's state there is the driver's copy."""


def forget_inherited_state() -> None:
    """In a process forked from the driver: make a loop of its own, and never ask the copy of
    the driver's Ray runtime which node this is."""
    global _LOOP, _IN_RAY
    _LOOP, _IN_RAY = None, False


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
    node: str | None,
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
        wire=wire_format(c.model.model),
        harness=c.harness,
        tool_interfaces=dict(c.tool_interface),
        schema_digests={fam.env_id: served.digest},
        verifier_version=fam.verifier_version,
        sandbox=sandbox,
        node=node,
        started_at=started,
        ended_at=_now(),
        usage=result.run.usage,
        cost_usd=usage_cost(c.model.model, result.run.usage),
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


def _ray_node() -> str | None:
    """The id of the Ray node this process works for, or None outside Ray."""
    if not _IN_RAY or "ray" not in sys.modules:
        return None
    import ray

    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None


Row = tuple[str, bytes]
"""A finished trial: its record (JSON) and its compressed trace."""


async def run_batch_async(
    batch: Batch,
    sandbox_kind: str = "auto",
    concurrency: int = 16,
    emit: Callable[[Row], None] | None = None,
) -> list[Row]:
    """Run every trial of ``batch``; returns (record JSON, compressed trace) per trial, in
    trial order, and hands each to ``emit`` as soon as it finishes."""
    fam = family(batch.family)
    served = serve(fam.env_id, batch.interface)
    artifacts = AgentArtifacts.model_validate_json(batch.artifacts_json)
    backend = McpBackend.of(fam)
    with skill_mount(artifacts.skills) as skills:  # the skills' scripts run in the sandbox
        mounts = [Mount(*m) for m in backend.mounts()]
        sandbox = make_sandbox(sandbox_kind, mounts=[*mounts, *([skills] if skills else [])])
        return await _run_in(batch, sandbox, fam, served, artifacts, backend, concurrency, emit)


async def _run_in(
    batch: Batch,
    sandbox: Sandbox,
    fam: Family,
    served: ServedInterface,
    artifacts: AgentArtifacts,
    backend: McpBackend,
    concurrency: int,
    emit: Callable[[Row], None] | None,
) -> list[Row]:
    """Every trial of ``batch`` in ``sandbox`` (not yet started), its tools served by
    ``backend``."""
    c = batch.condition
    harness = harness_version(c.harness)
    scripts = SandboxScripts(sandbox)
    limit = asyncio.Semaphore(concurrency)
    node = _ray_node()
    # Requests carry the trial seed (shared by every arm) and the arm, so that arms share
    # their trait draws but not their sampling noise; the record keeps the trial seed.
    arm = batch.bundle_hash if batch.bundle_hash is not None else "baseline"
    # k trials share each task: generate every task of the batch once
    tasks = {
        i: fam.generate(c.task_family.split, i, batch.split_seed)
        for i in sorted({t.task_index for t in batch.trials})
    }

    async def one(spec: TrialSpec) -> Row:
        async with limit:
            started = _now()
            task = tasks[spec.task_index]
            result = await run_trial(
                fam,
                task,
                served,
                backend,
                model=c.model.model,
                harness=harness,
                artifacts=artifacts,
                seed=request_seed(spec.seed, arm),
                endpoint=batch.endpoint,
                scripts=scripts,
            )
        trace = json.dumps(result.run.trace(), sort_keys=True).encode()
        sha = hashlib.sha256(trace).hexdigest()
        record = _record(batch, spec, fam, served, sandbox.kind, result, started, sha, node)
        row = record.model_dump_json(), zlib.compress(trace)
        if emit is not None:
            emit(row)
        return row

    async with sandbox, backend.serve(sandbox):
        return await asyncio.gather(*(one(s) for s in batch.trials))


class BatchFailed(Exception):
    """A batch could not run at all (its sandbox or backend failed to start, a setting is
    malformed). Carries only a message, so it crosses process boundaries intact."""


def _loop() -> asyncio.AbstractEventLoop:
    """This worker's event loop, created once and reused by every batch it runs.

    Heavy imports happen first, before the loop runs and before any deadline starts: litellm
    takes seconds to import (far longer under load), and imported on the first model call it
    would stall every trial of the batch.
    """
    global _LOOP
    load_litellm()
    ModelPolicy.from_env()
    backend_timeout()
    if _LOOP is None or _LOOP.is_closed():
        _LOOP = asyncio.new_event_loop()
    return _LOOP


async def _next_rows(queue: asyncio.Queue[Row], running: asyncio.Task[list[Row]]) -> list[Row]:
    """The trials finished since the last call (at least one), or [] when the batch is done.

    Raises the batch's own error once every finished trial has been handed out.
    """
    if queue.empty() and not running.done():
        waiter = asyncio.ensure_future(queue.get())
        await asyncio.wait({waiter, running}, return_when=asyncio.FIRST_COMPLETED)
        if waiter.done():
            queue.put_nowait(waiter.result())
        else:
            waiter.cancel()
    rows = []
    while not queue.empty():
        rows.append(queue.get_nowait())
    if not rows and running.done():
        running.result()  # raises what stopped the batch
    return rows


def _failed(e: Exception) -> BatchFailed:
    # litellm's and others' errors may not survive pickling (Ray): carry only a message
    hint = getattr(e, "hint", None)
    return BatchFailed(f"{type(e).__name__}: {e}" + (f" ({hint})" if hint else ""))


def stream_batch(
    batch_json: str, sandbox_kind: str = "auto", concurrency: int = 16, share: int = 1
) -> Iterator[list[Row]]:
    """Run every trial of a batch, yielding the finished trials in small groups as they end.

    As a Ray generator task this streams records to the driver while the batch runs, so a
    crash loses only the trials in flight. Errors that stop the whole batch are raised as
    :class:`BatchFailed` naming their class (after the trials that finished before it); a
    trial's own errors end only that trial. Closing the generator early stops the batch and
    its sandbox. ``share``: how many worker processes share the run's model-call limits
    (this process keeps 1/share of each, see :mod:`benchmark._limits`).
    """
    try:
        os.environ[SHARE_ENV] = str(share)
        loop = _loop()
        batch = Batch.model_validate_json(batch_json)
    except Exception as e:
        raise _failed(e) from None
    queue: asyncio.Queue[Row] = asyncio.Queue()
    running = loop.create_task(
        run_batch_async(batch, sandbox_kind, concurrency, emit=queue.put_nowait)
    )
    try:
        while rows := _rows(loop, queue, running):
            yield rows
    finally:
        if not running.done():
            running.cancel()
            loop.run_until_complete(asyncio.wait({running}))


def _rows(
    loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Row], running: asyncio.Task[list[Row]]
) -> list[Row]:
    try:
        return loop.run_until_complete(_next_rows(queue, running))
    except Exception as e:
        raise _failed(e) from None


def run_batch(batch_json: str, sandbox_kind: str = "auto", concurrency: int = 16) -> list[Row]:
    """Run every trial of a batch to the end in this process; (record JSON, compressed trace)
    per trial, in trial order. Errors as for :func:`stream_batch`."""
    try:
        loop = _loop()
        batch = Batch.model_validate_json(batch_json)
        return loop.run_until_complete(run_batch_async(batch, sandbox_kind, concurrency))
    except Exception as e:
        raise _failed(e) from None
