"""Executing batches on Ray, storing every attempt as it finishes, retrying invalid trials."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark import ModelPolicy, backend_timeout
from runner._accounting import INVALID
from runner._ray import start_ray
from runner._records import Batch, TrialRecord
from runner._sandbox import SandboxKind, resolve_sandbox_kind
from runner._sandbox_engine import remove_stale_sandboxes
from runner._store import TrialStore
from runner._worker import run_batch
from runner.errors import RunnerError

Progress = Callable[[int, int], None]
"""Called with (attempts finished, attempts to run) as batches complete; retries add to both."""

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
        default_factory=list, description="Errors of batches that raised instead of returning."
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


def execute(
    store: TrialStore,
    batches: list[Batch],
    *,
    sandbox: str = "auto",
    sealed: bool = False,
    concurrency: int = 16,
    max_attempts: int = MAX_ATTEMPTS,
    progress: Progress | None = None,
) -> Execution:
    """Run the trials of ``batches`` without a valid record on Ray, storing as they finish.

    Pending trials are those with no stored attempt or only invalid ones. A trial that comes
    back invalid is run again at once, up to ``max_attempts`` attempts per trial in this call;
    every attempt is stored (numbered after the stored ones). ``sealed`` runs (the frozen and
    adapted phases) do not fall back to the local sandbox unless it is asked for by name.
    """
    import ray

    if max_attempts < 1:
        raise RunnerError(f"max attempts must be at least 1, got {max_attempts}", "e.g. 3")
    # Settings the workers read: a malformed one is one error here, not a failure per batch.
    ModelPolicy.from_env()
    backend_timeout()
    planned = [t.key for b in batches for t in b.trials]
    todo = _pending(batches, store.valid_keys())
    total = sum(len(b.trials) for b in todo)
    result = Execution(
        planned=len(planned), already_stored=len(planned) - total, ran=0, max_attempts=max_attempts
    )
    if not todo:
        return result
    kind = resolve_sandbox_kind(sandbox, sealed=sealed)
    if kind is SandboxKind.docker:
        remove_stale_sandboxes()
    start_ray()
    remote: Any = ray.remote(num_cpus=1, max_retries=1)(run_batch)
    last = store.last_attempts()
    tries: Counter[str] = Counter()
    refs: dict[Any, Batch] = {}
    invalid: dict[str, TrialRecord] = {}

    def submit(batch: Batch) -> None:
        tries.update(t.key for t in batch.trials)
        refs[remote.remote(batch.model_dump_json(), kind.value, concurrency)] = batch

    for batch in todo:
        submit(batch)
    while refs:
        ready, _ = ray.wait(list(refs), num_returns=1)
        batch = refs.pop(ready[0])
        try:
            rows = ray.get(ready[0])
        except Exception as e:  # a batch that crashed is reported, not fatal to the run
            result.failed_batches.append(f"{batch.condition_id}/{batch.arm}: {e}")
            continue
        stored = []
        for record_json, trace in rows:
            record = TrialRecord.model_validate_json(record_json)
            last[record.key] = last.get(record.key, 0) + 1
            stored.append((record.model_copy(update={"attempt": last[record.key]}), trace))
        store.insert(stored)
        for record, _ in stored:
            result.ran += 1
            result.retried += record.attempt > 1
            if record.outcome == INVALID:
                invalid[record.key] = record
            else:
                invalid.pop(record.key, None)
        retry = tuple(t for t in batch.trials if t.key in invalid and tries[t.key] < max_attempts)
        if retry:
            total += len(retry)
            submit(batch.model_copy(update={"trials": retry}))
        if progress:
            progress(result.ran, total)
    left = [invalid[k] for k in planned if k in invalid]
    result.still_invalid = len(left)
    result.first_invalid = _reason(left[0]) if left else None
    return result
