"""Executing batches on Ray and streaming their records into the store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from runner._ray import start_ray
from runner._records import Batch
from runner._sandbox import SandboxKind, resolve_sandbox_kind
from runner._sandbox_engine import remove_stale_sandboxes
from runner._store import TrialStore
from runner._worker import run_batch

Progress = Callable[[int, int], None]
"""Called with (trials finished, trials to run) as batches complete."""


class Execution(BaseModel):
    """What one execution did."""

    model_config = ConfigDict(extra="forbid")

    planned: int = Field(description="Trials planned.")
    already_stored: int = Field(description="Trials skipped because their key was stored.")
    ran: int = Field(description="Trials run and stored now.")
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


def execute(
    store: TrialStore,
    batches: list[Batch],
    *,
    sandbox: str = "auto",
    concurrency: int = 16,
    progress: Progress | None = None,
) -> Execution:
    """Run the trials of ``batches`` that are not stored yet, on Ray, storing as they finish."""
    import ray

    planned = sum(len(b.trials) for b in batches)
    todo = _pending(batches, store.keys())
    total = sum(len(b.trials) for b in todo)
    result = Execution(planned=planned, already_stored=planned - total, ran=0)
    if not todo:
        return result
    kind = resolve_sandbox_kind(sandbox)
    if kind is SandboxKind.docker:
        remove_stale_sandboxes()
    start_ray()
    remote: Any = ray.remote(num_cpus=1, max_retries=1)(run_batch)
    refs = {remote.remote(b.model_dump_json(), kind.value, concurrency): b for b in todo}
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        batch = refs[ready[0]]
        try:
            rows = ray.get(ready[0])
        except Exception as e:  # a batch that crashed is reported, not fatal to the run
            result.failed_batches.append(f"{batch.condition.id}/{batch.arm}: {e}")
            continue
        result.ran += store.insert(rows)
        if progress:
            progress(result.ran, total)
    return result
