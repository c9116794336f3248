"""Executing batches on Ray, storing every attempt as it finishes, retrying invalid trials."""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark import (
    ENTRY_POINTS_ENV,
    FOLDERS_ENV,
    CachedReply,
    CacheEntry,
    FolderFamily,
    ModelPolicy,
    backend_timeout,
    entry_points_to_hand_on,
    family,
    folders_to_hand_on,
    require_endpoint_keys,
)
from benchmark._seeds import request_seed
from runner._accounting import INVALID
from runner._plan import sandbox_groups
from runner._ray import ADDRESS_ENV, start_ray
from runner._records import Batch, TrialRecord, group_json
from runner._sandbox import FOLDER_CODE, SandboxKind, resolve_sandbox_kind
from runner._sandbox_engine import remove_stale_sandboxes
from runner._signals import terminate_as_interrupt
from runner._store import TrialStore
from runner._streams import LocalStreams, RayStreams, Streams
from runner._worker import Called, stream_batch, unpack_call_blobs
from runner.errors import RunnerError

Progress = Callable[[int, int], None]
"""Called with (attempts stored, attempts to run): with 0 before the runtime starts, then as
finished trials are stored; retries of invalid trials add to both."""

MAX_ATTEMPTS = 3
"""Default attempts per trial and invocation: the first run and two retries of an invalid one."""


class Execution(BaseModel):
    """What one execution did."""

    model_config = ConfigDict(extra="forbid")

    planned: int = Field(description="Trials planned.")
    already_stored: int = Field(description="Trials skipped because they had a valid record.")
    ran: int = Field(description="Attempts run and stored now, retries included.")
    retried: int = Field(
        default=0, description="Of those, attempts at a trial that already had an invalid one."
    )
    max_attempts: int = Field(default=MAX_ATTEMPTS, description="Attempts allowed per trial now.")
    still_invalid: int = Field(
        default=0, description="Trials run now whose last attempt was still invalid."
    )
    first_invalid: str | None = Field(
        default=None, description="Why the first of those (in plan order) was invalid."
    )
    failed_batches: list[str] = Field(
        default_factory=list,
        description="Errors of batches that stopped before handing out every trial: how many "
        "trials each lost and how many of those were run again.",
    )
    model_calls: int = Field(default=0, description="Model requests the stored attempts made.")
    cached_calls: int = Field(
        default=0,
        description="Calls of the stored attempts answered from the cache, without a model "
        "request (`--cache`).",
    )


def _pending(batches: list[Batch], done: set[str]) -> list[Batch]:
    out = []
    for b in batches:
        todo = tuple(t for t in b.trials if t.key not in done)
        if todo:
            out.append(b.model_copy(update={"trials": todo}))
    return out


def _reason(record: TrialRecord) -> str:
    who = f"{record.submission} arm" if record.submission else "baseline"
    return (
        f"{record.task_id} trial {record.trial} ({who}, attempt {record.attempt}): "
        f"{record.invalid or 'invalid'}"
    )


FLUSH_ROWS = 64
"""Finished trials the driver holds before writing them to the store."""
FLUSH_SECONDS = 0.5
"""The longest a finished trial waits in the driver before it is written to the store."""


EXECUTOR_ENV = "VWT_EXECUTOR"
"""Where batches run: ``ray``, ``local`` (processes forked from the driver) or ``auto``."""
LOCAL_MAX_TRIALS = 256
"""``auto`` runs at most this many pending trials locally (no runtime to start), more on Ray."""


def _executor(groups: list[list[Batch]], total: int, forward: tuple[str, ...]) -> Streams:
    """Ray for a cluster or a large run; a local process pool for a small one (a dev run, a
    small cell), which starts at once. ``VWT_EXECUTOR`` overrides the choice."""
    choice = os.environ.get(EXECUTOR_ENV, "auto").strip() or "auto"
    if choice not in ("auto", "ray", "local"):
        raise RunnerError(
            f"{EXECUTOR_ENV}={choice!r} is not an executor", "use 'auto', 'ray' or 'local'"
        )
    clustered = bool(os.environ.get(ADDRESS_ENV, "").strip())
    if choice == "local" or (choice == "auto" and not clustered and total <= LOCAL_MAX_TRIALS):
        return LocalStreams(stream_batch, min(len(groups), os.cpu_count() or 1))
    # a cluster's nodes get vwt's code from Ray but not its installed metadata: the families
    # (entry points, and folders with their pinned digests) go with the code
    handed = {ENTRY_POINTS_ENV: entry_points_to_hand_on(), FOLDERS_ENV: folders_to_hand_on()}
    start_ray(forward=forward, env=handed)
    return RayStreams(stream_batch)


def _untrusted(batches: list[Batch], sealed: bool) -> str | None:
    """What of ``batches`` must not run outside Docker unless asked for by name: sealed runs
    (every submitter's artifacts), and a folder family's server and verifier commands."""
    if sealed:
        return "sealed runs"
    if any(isinstance(family(b.family), FolderFamily) for b in batches):
        return FOLDER_CODE
    return None


class RunInterrupted(RunnerError):
    """The run was stopped (Ctrl-C, SIGTERM); every trial that finished before is stored."""


def execute(
    store: TrialStore,
    batches: list[Batch],
    *,
    sandbox: str = "auto",
    sealed: bool = False,
    concurrency: int = 16,
    max_attempts: int = MAX_ATTEMPTS,
    progress: Progress | None = None,
    cache: Sequence[TrialStore] = (),
) -> Execution:
    """Run the trials of ``batches`` without a valid record on Ray, storing them as they finish.

    Pending trials are those with no stored attempt or only invalid ones. Each batch is a Ray
    generator task that streams its trials back as they end; the driver (and only it) writes
    them to the store within ``FLUSH_SECONDS``, so a killed driver or worker loses at most the
    trials in flight, and running again runs exactly the missing ones. A trial that comes back
    invalid, or that a crashed batch never returned, is run again at once, up to
    ``max_attempts`` attempts per trial in this call; every attempt is stored (numbered after
    the stored ones). ``sealed`` runs (the frozen and adapted phases) do not fall back to the
    local sandbox unless it is asked for by name. Ctrl-C or SIGTERM stores what finished and
    raises :class:`RunInterrupted` saying how to resume.

    Every model call is recorded with its trial, and every reply is stored as soon as it
    comes, trial finished or not. With a ``cache``, a request identical to one whose reply is
    stored (same model, seed, messages, tools and parameters) is answered from the store
    without a model call: a run again after a crash asks the model only what it had not
    answered yet. ``cache`` lists the stores whose replies answer (the run's own, and any
    other); empty: every request goes to the model.
    """
    if max_attempts < 1:
        raise RunnerError(f"max attempts must be at least 1, got {max_attempts}", "e.g. 3")
    # Settings the workers read: a malformed one is one error here, not a failure per batch.
    ModelPolicy.from_env()
    backend_timeout()
    keys = require_endpoint_keys((b.condition.model.model, b.endpoint) for b in batches)
    planned = [t.key for b in batches for t in b.trials]
    todo = _pending(batches, store.valid_keys())
    total = sum(len(b.trials) for b in todo)
    result = Execution(
        planned=len(planned), already_stored=len(planned) - total, ran=0, max_attempts=max_attempts
    )
    if not todo:
        return result
    if progress:
        progress(0, total)
    kind = resolve_sandbox_kind(sandbox, untrusted=_untrusted(todo, sealed))
    if kind is SandboxKind.docker:
        remove_stale_sandboxes()
    run = _Run(store, result, max_attempts, progress, total, cache)
    try:
        with terminate_as_interrupt() as claim:
            groups = sandbox_groups(todo)
            executor = _executor(groups, total, tuple(keys))
            claim()  # starting Ray installed its own SIGTERM handler (stack traces, then death)
            run.start(executor, groups, kind.value, concurrency)
            run.drain()
    except KeyboardInterrupt:
        run.stop()
        missing = len(planned) - result.already_stored - len(run.finished)
        raise RunInterrupted(
            f"interrupted: {len(run.finished)} trials of this run are stored, "
            f"{missing} not run yet",
            "run the same command again to run only those; stored trials are not run again",
        ) from None
    left = [run.invalid[k] for k in planned if k in run.invalid]
    result.still_invalid = len(left)
    result.first_invalid = _reason(left[0]) if left else None
    return result


class _Run:
    """The driver's side of one execution: Ray generator tasks in flight, finished trials not
    yet written, attempts per trial."""

    def __init__(
        self,
        store: TrialStore,
        result: Execution,
        max_attempts: int,
        progress: Progress | None,
        total: int,
        cache: Sequence[TrialStore] = (),
    ) -> None:
        self.store, self.result, self.max_attempts = store, result, max_attempts
        self.progress, self.total, self.cache = progress, total, cache
        self.last = store.last_attempts()
        self.tries: Counter[str] = Counter()
        self.streams: dict[Any, list[Batch]] = {}
        self.received: dict[Any, set[str]] = {}
        self.buffer: list[tuple[TrialRecord, bytes]] = []
        self.blobs: dict[str, bytes] = {}
        self.replies: list[CacheEntry] = []
        self.oldest = 0.0
        self.invalid: dict[str, TrialRecord] = {}
        self.finished: set[str] = set()

    def start(
        self, executor: Streams, groups: list[list[Batch]], kind: str, concurrency: int
    ) -> None:
        self.executor, self.kind, self.concurrency = executor, kind, concurrency
        for group in groups:
            self._submit(group)

    def _cached(self, batch: Batch) -> Batch:
        """``batch`` with the stored replies to its trials' model and seeds (``--cache``)."""
        arm = batch.bundle_hash if batch.bundle_hash is not None else "baseline"
        seeds = [request_seed(t.seed, arm) for t in batch.trials]
        replies: dict[str, CachedReply] = {}
        for store in self.cache:
            replies.update(store.cached_replies(batch.condition.model.model, seeds))
        return batch.model_copy(update={"cache": replies})

    def _submit(self, group: list[Batch]) -> None:
        if self.cache:
            self._flush()  # replies of the attempts before this one are served too
            group = [self._cached(batch) for batch in group]
        self.tries.update(t.key for batch in group for t in batch.trials)
        stream = self.executor.submit(group_json(group), self.kind, self.concurrency)
        self.streams[stream] = group
        self.received[stream] = set()

    def drain(self) -> None:
        while self.streams:
            ready = self.executor.wait(list(self.streams), FLUSH_SECONDS)
            if ready is not None:
                self._take(ready)
            waiting = self.buffer or self.replies
            if waiting and (ready is None or time.monotonic() - self.oldest >= FLUSH_SECONDS):
                self._flush()
        self._flush()
        self.executor.close(cancel=False)

    def _take(self, stream: Any) -> None:
        group = self.streams[stream]
        try:
            rows = self.executor.take(stream)
        except Exception as e:  # the group crashed: what it returned is kept
            self._end(stream, group, e)
            return
        if rows is None:
            self._end(stream, group, None)
            return
        for item in rows:
            if not self.buffer and not self.replies:
                self.oldest = time.monotonic()
            if isinstance(item, Called):
                self.replies.append(CacheEntry.model_validate_json(item.entry))
                continue
            record = TrialRecord.model_validate_json(item.record)
            self.received[stream].add(record.key)
            self.buffer.append((record, item.trace))
            self.blobs.update(unpack_call_blobs(item.calls))
        if len(self.buffer) >= FLUSH_ROWS:
            self._flush()

    def _end(self, stream: Any, group: list[Batch], error: Exception | None) -> None:
        """A group's stream ended: run again its invalid trials and those it never returned."""
        self._flush()
        self.streams.pop(stream)
        got = self.received.pop(stream)
        again = []
        for batch in group:
            lost = [t for t in batch.trials if t.key not in got]
            redo = [t for t in batch.trials if t.key in self.invalid or t.key not in got]
            retry = tuple(t for t in redo if self.tries[t.key] < self.max_attempts)
            if error is not None and lost:
                rerun = sum(t.key not in got for t in retry)
                self.result.failed_batches.append(
                    f"{batch.condition_id}/{batch.arm}: {error} ({len(lost)} trials lost, "
                    f"{rerun} run again)"
                )
            if retry:
                self.total += sum(t.key in self.invalid for t in retry)
                again.append(batch.model_copy(update={"trials": retry}))
        for regrouped in sandbox_groups(again):
            self._submit(regrouped)

    def _flush(self) -> None:
        if not self.buffer and not self.replies:
            return
        stored = []
        for record, trace in self.buffer:
            self.last[record.key] = self.last.get(record.key, 0) + 1
            stored.append((record.model_copy(update={"attempt": self.last[record.key]}), trace))
        blobs, replies = self.blobs, self.replies
        self.buffer, self.blobs, self.replies = [], {}, []
        self.store.insert(stored, blobs=blobs, replies=replies)
        for record, _ in stored:
            self.result.ran += 1
            self.result.model_calls += record.usage.calls
            self.result.cached_calls += record.usage.cached
            self.result.retried += record.attempt > 1
            if record.outcome == INVALID:
                self.invalid[record.key] = record
            else:
                self.invalid.pop(record.key, None)
                self.finished.add(record.key)
        if self.progress:
            self.progress(self.result.ran, self.total)

    def stop(self) -> None:
        """Store what finished, and cancel the batches still running."""
        try:
            self._flush()
        finally:
            if hasattr(self, "executor"):
                self.executor.close(cancel=True)
            self.streams.clear()
