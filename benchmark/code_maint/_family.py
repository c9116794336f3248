"""The code-maintenance family: small Python projects broken by an upgrade of their internal
library, fixed with file edits, graded by the project's own test suite and build check."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from benchmark._family_kit import BackendFamily
from benchmark._task import Planted, Task, VerifierResult
from benchmark.code_maint import _generator, _planted
from benchmark.code_maint._backend import Backend, BackendError
from benchmark.code_maint._tools import EFFECTFUL_TOOLS, ENV_ID, base_tools, interface_versions
from benchmark.code_maint._verifier import compare_states, effect_key
from drift import InterfaceVersion, ToolCall, ToolSet

if TYPE_CHECKING:
    from benchmark.sim import KnowledgePack

VERIFIER_VERSION = "code-maint-verifier-1"
_CACHED_TASKS = 256
"""Tasks whose initial and reference end states are kept (each costs a test run to compute)."""


class CodeMaintenance(BackendFamily):
    """Code-maintenance tasks graded by the project's tests and a build check, run on the end
    state, against the end state of the reference patch.

    End states are computed in-process by the backend class, which runs the project's tests
    as child processes: on the host that is only ever the generated project with operator
    patches (reference and planted); model-written code runs only in the sandbox, through the
    backend server there."""

    id = "code_maint"
    env_id = ENV_ID
    generator_version = _generator.GENERATOR_VERSION
    verifier_version = VERIFIER_VERSION
    backend = Backend
    backend_error = BackendError
    effectful_tools = EFFECTFUL_TOOLS

    def __init__(self) -> None:
        self._states: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}

    def make_task(self, split: str, base: int, index: int, seed: int) -> Task:
        return _generator.generate(self.id, split, base, index, seed)

    def base_tools(self) -> ToolSet:
        return base_tools()

    def interface_versions(self) -> dict[str, InterfaceVersion]:
        return interface_versions()

    def sim_pack(self) -> KnowledgePack:
        from benchmark.code_maint._sim_pack import PACK

        return PACK

    def planted(self, task: Task) -> list[Planted]:
        return _planted.planted(task)

    def _reference(self, task: Task) -> tuple[dict[str, Any], dict[str, Any]]:
        """(initial, reference) end states of ``task``, computed once."""
        key = f"{task.id}/{task.generator_version}"
        if key not in self._states:
            if len(self._states) >= _CACHED_TASKS:
                self._states.clear()
            self._states[key] = (
                self.end_state(task, ()),
                self.end_state(task, task.reference_calls),
            )
        return self._states[key]

    def verify(self, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        initial, want = self._reference(task)
        return compare_states(task.initial_state["files"], initial, want, end_state)

    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        return effect_key(call)
