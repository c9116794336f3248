"""What the built-in families share: numbered splits, and end states computed by applying
canonical calls with the family's own standard-library backend, in-process."""

from __future__ import annotations

import inspect
from abc import abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from benchmark._task import Family, Task
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
