"""The research-evidence family: questions answered from a frozen document collection with
claims that cite it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchmark._family_kit import BackendFamily
from benchmark._task import Planted, Task, VerifierResult
from benchmark.research import _generator, _planted
from benchmark.research._backend import Backend, BackendError
from benchmark.research._tools import EFFECTFUL_TOOLS, ENV_ID, base_tools, interface_versions
from benchmark.research._verifier import effect_key, verify
from drift import InterfaceVersion, ToolCall, ToolSet

if TYPE_CHECKING:
    from benchmark.sim import KnowledgePack

VERIFIER_VERSION = "research-verifier-1"


class ResearchEvidence(BackendFamily):
    """Research questions graded by rule on the submitted answer: citations verbatim, claims
    supported, no distractor cited, the right answer and stance (no model judge)."""

    id = "research_evidence"
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
        from benchmark.research._sim_pack import PACK

        return PACK

    def planted(self, task: Task) -> list[Planted]:
        return _planted.planted(task)

    def verify(self, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        return verify(task.reference_calls, end_state)

    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        return effect_key(call)
