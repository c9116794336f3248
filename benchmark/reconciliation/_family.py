"""The data-reconciliation family: matching payments to invoices, deduplicating records and
reconciling a ledger against a bank statement, over one simulated set of books."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmark._task import Family, Planted, Task, VerifierResult
from benchmark.errors import BenchmarkError
from benchmark.reconciliation import _generator, _planted
from benchmark.reconciliation._backend import Backend, BackendError
from benchmark.reconciliation._tools import (
    EFFECTFUL_TOOLS,
    ENV_ID,
    base_tools,
    interface_versions,
)
from benchmark.reconciliation._verifier import compare_states, effect_key
from drift import InterfaceVersion, ToolCall, ToolSet

if TYPE_CHECKING:
    from benchmark.sim import KnowledgePack

VERIFIER_VERSION = "reconciliation-verifier-1"
_SPLIT_BASES = {"dev": 10000, "sealed": 50000, "adapt": 80000, "examples": 90000}
_MAX_TASKS = 10000  # ids of one split stay below the next split's base


class Reconciliation(Family):
    """Reconciliation tasks graded by deterministic recomputation of the end state (expected
    state = initial state with the reference calls applied)."""

    id = "reconciliation"
    env_id = ENV_ID
    generator_version = _generator.GENERATOR_VERSION
    verifier_version = VERIFIER_VERSION
    splits = tuple(_SPLIT_BASES)
    examples_split = "examples"
    effectful_tools = EFFECTFUL_TOOLS

    def generate(self, split: str, index: int, seed: int) -> Task:
        if split not in _SPLIT_BASES:
            raise BenchmarkError(
                f"family {self.id!r} has no split {split!r}", f"splits: {', '.join(self.splits)}"
            )
        if not 0 <= index < _MAX_TASKS:
            raise BenchmarkError(
                f"task index {index} out of range", f"a split holds at most {_MAX_TASKS} tasks"
            )
        return _generator.generate(self.id, split, _SPLIT_BASES[split], index, seed)

    def base_tools(self) -> ToolSet:
        return base_tools()

    def interface_versions(self) -> dict[str, InterfaceVersion]:
        return interface_versions()

    def sim_pack(self) -> KnowledgePack:
        from benchmark.reconciliation._sim_pack import PACK

        return PACK

    def backend_file(self) -> Path:
        return Path(__file__).with_name("_backend.py")

    def end_state(self, task: Task, calls: Sequence[ToolCall]) -> dict[str, Any]:
        backend = Backend(task.initial_state)
        for i, call in enumerate(calls):
            try:
                backend.call(call.name, dict(call.arguments))
            except BackendError as e:
                raise BenchmarkError(
                    f"task {task.id}: call {i + 1} ({call.name}) refused by the backend: {e}",
                    "end states are computed from calls the backend accepts",
                ) from None
        return backend.dump()

    def planted(self, task: Task) -> list[Planted]:
        return _planted.planted(task)

    def verify(self, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        return compare_states(self.end_state(task, task.reference_calls), end_state)

    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        return effect_key(call)
