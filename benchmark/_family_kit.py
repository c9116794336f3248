"""What the built-in families share: numbered splits, and end states computed by applying
canonical calls with the family's own standard-library backend, in-process."""

from __future__ import annotations

import inspect
from abc import abstractmethod
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from benchmark._task import Family, Task, stable_int
from benchmark.errors import BenchmarkError
from drift import ToolCall

SPLIT_BASES = {"dev": 10000, "sealed": 50000, "adapt": 80000, "examples": 90000}
"""The number a split's task ids start at: ids of different splits never meet."""
MAX_TASKS = 10000
"""Tasks a split holds at most (its ids stay below the next split's base)."""


class BackendFamily(Family):
    """A family with the standard splits whose backend class (``backend``: built from a state,
    with ``call(tool, args)`` and ``dump()``, raising ``backend_error`` on a refused call)
    computes end states in-process, as its server does in a sandbox."""

    splits = tuple(SPLIT_BASES)
    examples_split = "examples"
    backend: ClassVar[type[Any]]
    backend_error: ClassVar[type[Exception]]

    @abstractmethod
    def make_task(self, split: str, base: int, index: int, seed: int) -> Task:
        """Task ``index`` of ``split``, numbered from ``base``."""

    def generate(self, split: str, index: int, seed: int) -> Task:
        if split not in SPLIT_BASES:
            raise BenchmarkError(
                f"family {self.id!r} has no split {split!r}", f"splits: {', '.join(self.splits)}"
            )
        if not 0 <= index < MAX_TASKS:
            raise BenchmarkError(
                f"task index {index} out of range", f"a split holds at most {MAX_TASKS} tasks"
            )
        return self.make_task(split, SPLIT_BASES[split], index, seed)

    def backend_file(self) -> Path:
        return Path(inspect.getfile(self.backend))

    def end_state(self, task: Task, calls: Sequence[ToolCall]) -> dict[str, Any]:
        backend = self.backend(task.initial_state)
        for i, call in enumerate(calls):
            try:
                backend.call(call.name, dict(call.arguments))
            except self.backend_error as e:
                raise BenchmarkError(
                    f"task {task.id}: call {i + 1} ({call.name}) refused by the backend: {e}",
                    "end states are computed from calls the backend accepts",
                ) from None
        state: dict[str, Any] = backend.dump()
        return state


def numbered_task(
    *,
    family: str,
    split: str,
    index: int,
    seed: int,
    generator_version: str,
    kind: str,
    instruction: str,
    initial_state: dict[str, Any],
    reference_calls: tuple[ToolCall, ...],
) -> Task:
    """A task with the built-in families' id: ``family/split/index-digest``, the digest of its
    instruction and seed."""
    digest = f"{stable_int(instruction, seed) % 16**8:08x}"
    return Task(
        id=f"{family}/{split}/{index:04d}-{digest}",
        family=family,
        split=split,
        index=index,
        seed=seed,
        generator_version=generator_version,
        kind=kind,
        instruction=instruction,
        initial_state=initial_state,
        reference_calls=reference_calls,
    )


def record_diff(
    check: str, got: Counter[tuple[Any, ...]], want: Counter[tuple[Any, ...]]
) -> list[str]:
    """A verifier reason naming the records of ``check`` that are extra or missing, if any."""
    extra, missing = sorted((got - want).elements()), sorted((want - got).elements())
    if not extra and not missing:
        return []
    return [f"{check}: unexpected {extra}, missing {missing}"]


def field_diff(
    check: str,
    got: dict[str, dict[str, Any]],
    want: dict[str, dict[str, Any]],
    fields: tuple[str, ...],
) -> list[str]:
    """One verifier reason per field of a record (by id) that differs from the expected one."""
    reasons = []
    for key, expected in sorted(want.items()):
        actual = got.get(key)
        if actual is None:
            reasons.append(f"{check}: {key} missing")
            continue
        reasons += [
            f"{check}: {key} {f} {actual.get(f)!r} != expected {expected.get(f)!r}"
            for f in fields
            if actual.get(f) != expected.get(f)
        ]
    return reasons
