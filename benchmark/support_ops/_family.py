"""The support-operations family: refunds, account changes and ticket resolution over one
simulated support system."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchmark._family_kit import BackendFamily
from benchmark._task import Planted, Task, VerifierResult
from benchmark.support_ops import _generator, _planted
from benchmark.support_ops._backend import Backend, BackendError
from benchmark.support_ops._tools import EFFECTFUL_TOOLS, ENV_ID, base_tools, interface_versions
from benchmark.support_ops._verifier import compare_states, effect_key
from drift import InterfaceVersion, ToolCall, ToolSet

if TYPE_CHECKING:
    from benchmark.sim import KnowledgePack

VERIFIER_VERSION = "support_ops-verifier-3"


class SupportOps(BackendFamily):
    """Support tasks graded by an end-state check (tau-bench style: expected state = initial
    state with the reference calls applied)."""

    id = "support_ops"
    env_id = ENV_ID
    generator_version = _generator.GENERATOR_VERSION
    verifier_version = VERIFIER_VERSION
    backend = Backend
    backend_error = BackendError
    effectful_tools = EFFECTFUL_TOOLS

    def make_task(self, split: str, base: int, index: int, seed: int) -> Task:
        return _generator.generate(self.id, split, base, index, seed)

    def base_tools(self) -> ToolSet:
        return base_tools()

    def interface_versions(self) -> dict[str, InterfaceVersion]:
        return interface_versions()

    def sim_pack(self) -> KnowledgePack:
        from benchmark.support_ops._sim_pack import PACK

        return PACK

    def planted(self, task: Task) -> list[Planted]:
        return _planted.planted(task)

    def verify(self, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        return compare_states(self.end_state(task, task.reference_calls), end_state)

    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        return effect_key(call)
