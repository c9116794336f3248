"""Tasks and the family contract."""

from __future__ import annotations

import hashlib
import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from drift import InterfaceVersion, ToolCall, ToolSet

if TYPE_CHECKING:
    from benchmark._sandbox_types import ExternalServer, GateSandbox
    from benchmark.sim._pack import KnowledgePack


class Task(BaseModel):
    """One task instance: an instruction, the initial state of the system, and a reference
    solution (canonical calls) from which the verifier derives the expected end state."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=1, description="Format version.")
    id: str = Field(description="Stable id: family/split/index-hash.")
    family: str = Field(description="Task family id.")
    split: str = Field(description="Split the task belongs to.")
    index: int = Field(description="Position within the split.")
    seed: int = Field(description="Seed the instance was generated from.")
    generator_version: str = Field(description="Version of the family's generator.")
    kind: str = Field(description="Task kind within the family.")
    instruction: str = Field(description="What the agent is asked to do.")
    initial_state: dict[str, Any] = Field(description="Backend state before the agent acts.")
    reference_calls: tuple[ToolCall, ...] = Field(
        description="Canonical calls with effect that solve the task."
    )


class VerifierResult(BaseModel):
    """Whether the end state is the expected one, and why not."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    passed: bool = Field(description="True when the end state matches the reference.")
    reasons: tuple[str, ...] = Field(default=(), description="Differences found, if any.")


class Planted(BaseModel):
    """A planted wrong answer: canonical calls a careless agent could make for a task, which
    the family's verifier must reject (the red-team gate checks that it does)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="What is wrong, e.g. 'wrong amount'.")
    check: str = Field(description="The verifier check it targets, e.g. 'refunds'.")
    calls: tuple[ToolCall, ...] = Field(
        description="Canonical calls, applied to the task's initial state."
    )


def stable_int(*parts: object) -> int:
    """A 52-bit integer derived from ``parts`` (stable across processes, unlike ``hash``;
    small enough to be exact in JSON numbers)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 12


class Family(ABC):
    """A task family: a seeded generator, the environment's tools and backend, a verifier."""

    id: str
    env_id: str
    generator_version: str
    verifier_version: str
    splits: tuple[str, ...]
    examples_split: str | None = None
    """A public split of worked examples to build artifacts from (retrieved memories, few-shot
    recipes); never evaluated, so a memory drawn from it cannot hold an evaluated task."""
    effectful_tools: tuple[str, ...]

    @abstractmethod
    def generate(self, split: str, index: int, seed: int) -> Task:
        """Task ``index`` of ``split`` for split seed ``seed``."""

    @abstractmethod
    def base_tools(self) -> ToolSet:
        """The canonical tool set the backend implements."""

    @abstractmethod
    def interface_versions(self) -> dict[str, InterfaceVersion]:
        """Built-in interface versions, by id."""

    @abstractmethod
    def backend_file(self) -> Path:
        """Path of the standard-library-only backend module (runs inside sandboxes)."""

    @abstractmethod
    def verify(self, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        """Check the end state against the one the reference calls produce."""

    @abstractmethod
    def end_state(self, task: Task, calls: Sequence[ToolCall]) -> dict[str, Any]:
        """The backend state after applying canonical ``calls`` to ``task.initial_state``,
        in-process (no sandbox)."""

    @abstractmethod
    def planted(self, task: Task) -> list[Planted]:
        """Wrong answers for ``task``. Over the family's tasks they cover every check its
        verifier makes, with at least 8 distinct names."""

    @abstractmethod
    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        """What identifies the effect of an effectful canonical call (for the drift oracle)."""

    def source_digest(self) -> str:
        """SHA-256 over what this family's tasks, backend and verifier are made from: its id
        and versions and the Python files of the package its class is defined in (what the
        red-team gate's cached result is keyed by). A family built from other files (a folder)
        adds them."""
        h = hashlib.sha256(
            f"{self.id}\x1f{self.generator_version}\x1f{self.verifier_version}".encode()
        )
        for f in sorted(Path(inspect.getfile(type(self))).parent.glob("*.py")):
            h.update(f"\x1e{f.name}\x1f".encode())
            h.update(f.read_bytes())
        return h.hexdigest()

    def split_size(self, split: str) -> int | None:
        """How many tasks ``split`` holds; None for a generator without a bound."""
        return None

    def base_tools_for(self, version: InterfaceVersion) -> ToolSet:
        """The canonical tools ``version`` is served over: the base tools, unless the family
        has releases of its own (a folder family on two released versions of a server)."""
        return self.base_tools()

    def external_server(self, version: InterfaceVersion | None) -> ExternalServer | None:
        """The server command that serves ``version`` (None: the base) per trial, for a family
        whose environment is one (a folder family); None for a standard-library backend."""
        return None

    def verdicts(
        self,
        answers: Sequence[tuple[Task, Sequence[ToolCall]]],
        sandbox: Callable[[list[tuple[Path, str, bool]]], GateSandbox] | None,
    ) -> list[tuple[bool | None, str]]:
        """For the red-team gate: per (task, canonical calls), whether the verifier passes the
        end state of the calls applied to the task's initial state, with its reasons — or
        (None, why) when the calls cannot be applied. In-process by default; a family whose
        end states exist only in a sandbox runs them in one that ``sandbox(mounts)`` makes."""
        out: list[tuple[bool | None, str]] = []
        for task, calls in answers:
            try:
                result = self.verify(task, self.end_state(task, calls))
            except Exception as e:  # a family's own error is the gate's finding
                out.append((None, f"{type(e).__name__}: {e}"))
                continue
            out.append((result.passed, "; ".join(result.reasons)))
        return out

    def sim_pack(self) -> KnowledgePack | None:
        """What sim models know about this family (None: they do not recognise its tasks)."""
        return None

    def split_seed(self, split: str, cycle_seed: int) -> int:
        """Seed of a split. The public dev and examples splits are the same in every cycle;
        sealed splits are drawn from the (private) cycle seed."""
        if split in ("dev", self.examples_split):
            return stable_int(self.id, split, self.generator_version)
        return stable_int(self.id, split, cycle_seed)

    def tasks(self, split: str, n: int, cycle_seed: int) -> list[Task]:
        """The first ``n`` tasks of ``split``."""
        seed = self.split_seed(split, cycle_seed)
        return [self.generate(split, i, seed) for i in range(n)]
