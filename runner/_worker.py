"""The trial worker: runs a group of batches of trials in one sandbox. Plain code; Ray wraps it
elsewhere."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import sys
import zlib
from collections.abc import Awaitable, Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from benchmark import (
    SHARE_ENV,
    CacheEntry,
    CallLog,
    Family,
    McpBackend,
    ModelPolicy,
    TrialResult,
    backend_timeout,
    family,
    load_litellm,
    mentions,
    recording,
    run_trial,
    scrub,
    secret_values,
    serve,
    usage_cost,
    wire_format,
)
from benchmark._seeds import request_seed
from benchmark.harness import AgentArtifacts, Harness, usable_harness
from drift import ServedInterface
from runner._records import Batch, TrialRecord, TrialSpec, load_group, sandbox_key
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
    calls_sha: str,
    secrets: tuple[str, ...],
) -> TrialRecord:
    c = batch.condition
    invalid = result.run.invalid or result.error
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
        invalid=None if invalid is None else scrub(invalid, secrets),
        verifier_reasons=result.verifier.reasons if result.verifier else (),
        trace_sha256=trace_sha,
        calls_sha256=calls_sha,
    )


def _ray_node() -> str | None:
    """The id of the Ray node this process works for, or None outside Ray."""
    if not _IN_RAY or "ray" not in sys.modules:
        return None
    import ray

    return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None


class Row(NamedTuple):
    """A finished trial."""

    record: str
    """Its record, as JSON."""
    trace: bytes
    """Its trace (messages JSON), zlib-compressed."""
    calls: bytes
    """Its call blobs (:func:`call_blobs`): the call document and every blob it names."""


class Called(NamedTuple):
    """A model call that returned, sent before its trial ends: the cache's source."""

    entry: str
    """The :class:`benchmark.CacheEntry`, as JSON."""


Item = Row | Called
"""What a batch streams to the driver."""
LogFactory = Callable[[TrialSpec, Callable[[CacheEntry], None] | None], CallLog]
"""Makes a trial's call log: (the trial, the journal to tell its replies to)."""


def call_blobs(blobs: dict[str, bytes]) -> bytes:
    """``blobs`` (hash → canonical JSON) packed for the driver: zlib-compressed JSON."""
    return zlib.compress(json.dumps({k: v.decode() for k, v in blobs.items()}).encode())


def unpack_call_blobs(data: bytes) -> dict[str, bytes]:
    """The blobs :func:`call_blobs` packed."""
    packed: dict[str, str] = json.loads(zlib.decompress(data))
    return {k: v.encode() for k, v in packed.items()}


def _secrets(batch: Batch) -> tuple[str, ...]:
    key_env = batch.endpoint.api_key_env if batch.endpoint else None
    return secret_values(extra=[os.environ.get(key_env)] if key_env else [])


def _trace(messages: list[dict[str, Any]], secrets: tuple[str, ...]) -> bytes:
    text = json.dumps(messages, sort_keys=True)
    if secrets and mentions(text, secrets):
        text = json.dumps(scrub(messages, secrets), sort_keys=True)
    return text.encode()


async def run_batch_async(
    batch: Batch,
    sandbox_kind: str = "auto",
    concurrency: int = 16,
    emit: Callable[[Item], None] | None = None,
    logs: LogFactory | None = None,
) -> list[Row]:
    """Run every trial of ``batch``; returns a :class:`Row` per trial, in trial order, and
    hands each to ``emit`` as soon as it finishes, and each model reply as soon as it comes
    (:class:`Called`). Every trial's model calls are recorded in a call log (``logs`` makes
    them; by default one that answers from ``batch.cache``)."""
    return await run_group_async([batch], sandbox_kind, concurrency, emit, logs)


async def run_group_async(
    batches: Sequence[Batch],
    sandbox_kind: str = "auto",
    concurrency: int = 16,
    emit: Callable[[Item], None] | None = None,
    logs: LogFactory | None = None,
) -> list[Row]:
    """Run every trial of ``batches`` — a group of :func:`runner.sandbox_groups`: one arm and
    server, the server serving each batch's family, each batch's interface version served
    over it — in one sandbox with one MCP server, at most ``concurrency`` at once; a
    :class:`Row` per trial, batch after batch in trial order. ``emit`` and ``logs`` as for
    :func:`run_batch_async`."""
    first = batches[0]
    if any(sandbox_key(b) != sandbox_key(first) for b in batches):
        raise ValueError("a sandbox group holds batches of one arm and server")
    artifacts = AgentArtifacts.model_validate_json(first.artifacts_json)
    if sandbox_key(first)[1] is not None:  # a folder family: its release's server
        backend = McpBackend.of(family(first.family), first.interface)
    else:
        served = [family(f) for f in dict.fromkeys(b.family for b in batches)]
        backend = McpBackend.of_families(served)
    with skill_mount(artifacts.skills) as skills:  # the skills' scripts run in the sandbox
        mounts = [Mount(*m) for m in backend.mounts()]
        sandbox = make_sandbox(sandbox_kind, mounts=[*mounts, *([skills] if skills else [])])
        trials = _Trials(sandbox, artifacts, backend, concurrency, emit, logs)
        return await trials.run(batches)


class _Trials:
    """The trials of a group's batches in ``sandbox`` (not yet started), their tools served
    by ``backend``, each batch's interface version over them."""

    def __init__(
        self,
        sandbox: Sandbox,
        artifacts: AgentArtifacts,
        backend: McpBackend,
        concurrency: int,
        emit: Callable[[Item], None] | None,
        logs: LogFactory | None,
    ) -> None:
        self.sandbox, self.artifacts = sandbox, artifacts
        self.backend, self.emit, self.logs = backend, emit, logs
        self.scripts = SandboxScripts(sandbox)
        self.limit = asyncio.Semaphore(concurrency)
        self.node = _ray_node()

    async def run(self, batches: Sequence[Batch]) -> list[Row]:
        harnesses = {b.condition.harness: usable_harness(b.condition.harness) for b in batches}
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(self.sandbox)
            await stack.enter_async_context(self.backend.serve(self.sandbox))
            for chosen in harnesses.values():  # one session per harness, for every batch
                await stack.enter_async_context(chosen.session())
            runs = [(self._batch(b, harnesses[b.condition.harness]), b.trials) for b in batches]
            rows = await asyncio.gather(*(run(t) for run, specs in runs for t in specs))
        return list(rows)

    def _batch(self, batch: Batch, chosen: Harness) -> Callable[[TrialSpec], Awaitable[Row]]:
        """The coroutine function that runs one trial of ``batch`` under ``chosen``."""
        c, fam, sandbox = batch.condition, family(batch.family), self.sandbox
        served = serve(fam.env_id, batch.interface)
        # Requests carry the trial seed (shared by every arm) and the arm, so that arms share
        # their trait draws but not their sampling noise; the record keeps the trial seed.
        arm = batch.bundle_hash if batch.bundle_hash is not None else "baseline"
        # k trials share each task: generate every task of the batch once
        tasks = {
            i: fam.generate(c.task_family.split, i, batch.split_seed)
            for i in sorted({t.task_index for t in batch.trials})
        }
        secrets = _secrets(batch)
        emit = self.emit

        def journal(entry: CacheEntry) -> None:
            if emit is not None:
                emit(Called(entry.model_dump_json()))

        def default_log(spec: TrialSpec, journal: Callable[[CacheEntry], None] | None) -> CallLog:
            return CallLog(secrets=secrets, cache=batch.cache, journal=journal)

        make_log = self.logs or default_log

        async def one(spec: TrialSpec) -> Row:
            async with self.limit:
                started = _now()
                task = tasks[spec.task_index]
                log = make_log(spec, journal if emit is not None else None)
                with recording(log):
                    result = await run_trial(
                        fam,
                        task,
                        served,
                        self.backend,
                        model=c.model.model,
                        harness=chosen,
                        artifacts=self.artifacts,
                        seed=request_seed(spec.seed, arm),
                        endpoint=batch.endpoint,
                        scripts=self.scripts,
                    )
            trace = _trace(result.run.trace(), secrets)
            sha = hashlib.sha256(trace).hexdigest()
            calls = log.document()
            record = _record(
                batch,
                spec,
                fam,
                served,
                sandbox.kind,
                result,
                started,
                sha,
                self.node,
                calls,
                secrets,
            )
            row = Row(record.model_dump_json(), zlib.compress(trace), call_blobs(log.blobs))
            if emit is not None:
                emit(row)
            return row

        return one


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


async def _next_rows(queue: asyncio.Queue[Item], running: asyncio.Task[list[Row]]) -> list[Item]:
    """The trials finished and calls returned since the last call (at least one), or [] when
    the batch is done.

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
    group_json: str, sandbox_kind: str = "auto", concurrency: int = 16, share: int = 1
) -> Iterator[list[Item]]:
    """Run every trial of a group of batches (:func:`group_json`; one sandbox, see
    :func:`run_group_async`), yielding the finished trials (:class:`Row`) and the model calls
    that returned (:class:`Called`) in small groups as they come.

    As a Ray generator task this streams records to the driver while the group runs, so a
    crash loses only the trials in flight. Errors that stop the whole group are raised as
    :class:`BatchFailed` naming their class (after the trials that finished before it); a
    trial's own errors end only that trial. Closing the generator early stops the group and
    its sandbox. ``share``: how many worker processes share the run's model-call limits
    (this process keeps 1/share of each, see :mod:`benchmark._limits`).
    """
    try:
        os.environ[SHARE_ENV] = str(share)
        loop = _loop()
        batches = load_group(group_json)
    except Exception as e:
        raise _failed(e) from None
    queue: asyncio.Queue[Item] = asyncio.Queue()
    running = loop.create_task(
        run_group_async(batches, sandbox_kind, concurrency, emit=queue.put_nowait)
    )
    try:
        while rows := _rows(loop, queue, running):
            yield rows
    finally:
        if not running.done():
            running.cancel()
            loop.run_until_complete(asyncio.wait({running}))


def _rows(
    loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[Item], running: asyncio.Task[list[Row]]
) -> list[Item]:
    try:
        return loop.run_until_complete(_next_rows(queue, running))
    except Exception as e:
        raise _failed(e) from None


def run_batch(batch_json: str, sandbox_kind: str = "auto", concurrency: int = 16) -> list[Row]:
    """Run every trial of a batch to the end in this process; a :class:`Row` per trial, in
    trial order. Errors as for :func:`stream_batch`."""
    try:
        loop = _loop()
        batch = Batch.model_validate_json(batch_json)
        return loop.run_until_complete(run_batch_async(batch, sandbox_kind, concurrency))
    except Exception as e:
        raise _failed(e) from None
