"""The harness interface: what a harness is given for one trial, and what it gives back.

A harness is a plugin (entry-point group ``vwt.harnesses``, see :mod:`benchmark.harness._registry`):
vwt's own agent loops (harness-v1..v3) and real agent frameworks at pinned versions implement
:class:`Harness` alike. The runner opens the trial's environment (its tools over MCP, behind the
drift proxy), hands the harness a :class:`HarnessTrial`, verifies the end state the harness left
and classifies the :class:`~benchmark.harness.AgentRun` it returned.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from benchmark._environment import ToolResult, TrialEnvironment
from benchmark._models import ModelPolicy, Usage, complete
from benchmark.harness._artifacts import AgentArtifacts
from benchmark.harness._run import AgentRun
from benchmark.harness._skill_tools import ScriptRunner
from conditions import ModelEndpoint
from drift import ToolCall


@dataclass(frozen=True)
class HarnessTrial:
    """Everything a harness is given for one trial."""

    env: TrialEnvironment
    """The trial's tools: an MCP client session to the served interface (``env.tools`` lists
    them in OpenAI ``tools`` form, ``env.listed`` as MCP tools; ``env.call`` sends a
    ``tools/call``). Calls go through the drift proxy, which the drift oracle watches."""
    artifacts: AgentArtifacts
    """The submission's artifacts (empty for the no-artifact baseline)."""
    model: str
    """The litellm model string of the condition."""
    seed: int
    """The request seed every model call of the trial carries."""
    endpoint: ModelEndpoint | None = None
    """Where the model's requests go, when the cycle spec gives an endpoint."""
    scripts: ScriptRunner | None = None
    """Runs skill scripts in the batch's sandbox (None: scripts are not offered)."""

    @property
    def instruction(self) -> str:
        """The task's instruction, as the family wrote it."""
        return self.env.task.instruction

    @property
    def family(self) -> str:
        """The id of the task's family."""
        return self.env.family.id

    async def complete(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        usage: Usage,
        policy: ModelPolicy | None = None,
    ) -> dict[str, Any]:
        """One model call through vwt's gateway (litellm, recorded, rate-limited, priced) with
        the trial's model, seed and endpoint; the assistant message as a dict. Raises
        :class:`benchmark.ModelCallFailed` when the call fails after its retries."""
        return await complete(
            self.model,
            messages,
            tools,
            seed=self.seed,
            usage=usage,
            policy=policy,
            endpoint=self.endpoint,
        )

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """One ``tools/call`` on the trial's served interface: a tool error is a result, an
        MCP protocol error (or a lost server) raises."""
        return await self.env.call(ToolCall(name=name, arguments=arguments))


class HarnessInfo(BaseModel):
    """What ``vwt harnesses list`` says of a harness."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="The harness id, as a condition's harness axis names it.")
    kind: Literal["loop", "framework"] = Field(
        description="'loop': an agent loop run in vwt's process; 'framework': an agent "
        "framework run in a process of its own."
    )
    version: str = Field(description="The version of the loop or of the framework.")
    framework: str | None = Field(
        default=None, description="The framework's distribution name (PyPI), for frameworks."
    )
    summary: str = Field(description="One line on what it is.")
    unavailable: str | None = Field(
        default=None, description="Why it cannot run on this machine now, or None if it can."
    )


class Harness(ABC):
    """A harness: runs an agent on one trial's task with its artifacts, tools and model.

    Subclasses set ``id`` (the name of their ``vwt.harnesses`` entry point) and implement
    :meth:`info` and :meth:`run`. A harness object is shared by every trial of a process and
    may run many trials at once: keep per-trial state in :meth:`run`.
    """

    id: str
    """The harness id (e.g. ``harness-v1``, ``openai-agents@0.2.11``)."""

    @abstractmethod
    def info(self) -> HarnessInfo:
        """What it is, its version, and whether it can run here."""

    def session(self) -> contextlib.AbstractAsyncContextManager[None]:
        """What the harness keeps for a batch of trials, entered around them in one event loop
        (a framework's warm process server, say); by default nothing. Trials run outside a
        session must work too."""
        return contextlib.nullcontext()

    def unavailable(self) -> str | None:
        """Why it cannot run on this machine (say, its framework is not installed), or None."""
        return self.info().unavailable

    @abstractmethod
    async def run(self, trial: HarnessTrial) -> AgentRun:
        """Run the agent on ``trial`` until it answers, stops or is cut off, and return the
        transcript (:class:`AgentRun`: the messages as the model saw them, the MCP exchange
        behind each tool message, turns, tool calls and errors, usage). Set ``invalid`` (or
        raise) for an infrastructure failure: the trial is then ``invalid``, never a failure.
        The runner verifies the end state after this returns."""
