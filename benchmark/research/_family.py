"""The research-evidence family: questions answered from a frozen document collection with
claims that cite it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmark._task import Family, Planted, Task, VerifierResult
from benchmark.errors import BenchmarkError
from benchmark.research import _generator, _planted
from benchmark.research._backend import Backend, BackendError
from benchmark.research._tools import EFFECTFUL_TOOLS, ENV_ID, base_tools, interface_versions
from benchmark.research._verifier import effect_key, verify
from drift import InterfaceVersion, ToolCall, ToolSet

if TYPE_CHECKING:
    from benchmark.sim import KnowledgePack

VERIFIER_VERSION = "research-verifier-1"
_SPLIT_BASES = {"dev": 10000, "sealed": 50000, "adapt": 80000, "examples": 90000}
_MAX_TASKS = 10000  # ids of one split stay below the next split's base


class ResearchEvidence(Family):
    """Research questions graded by rule on the submitted answer: citations verbatim, claims
    supported, no distractor cited, the right answer and stance (no model judge)."""

    id = "research_evidence"
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
        from benchmark.research._sim_pack import PACK

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
        return verify(task.reference_calls, end_state)

    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        return effect_key(call)
