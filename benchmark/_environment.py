"""A trial's environment: the served interface in front of the canonical backend."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark._backend_client import BackendCallError, BackendProcess
from benchmark._oracle import CriticalFlag, check_call
from benchmark._task import Family, Task, VerifierResult
from drift import ServedInterface, ToolCall, ToolCallError


class ToolResult(BaseModel):
    """What the agent sees after a tool call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str = Field(description="JSON result, or the error message.")
    is_error: bool = Field(default=False, description="Whether the call failed.")


class TrialEnvironment:
    """Serves one task at one interface version, in one backend session."""

    def __init__(
        self,
        family: Family,
        task: Task,
        served: ServedInterface,
        backend: BackendProcess,
        session: str,
    ) -> None:
        self.family, self.task, self.served = family, task, served
        self._backend, self._session = backend, session
        self.critical: list[CriticalFlag] = []
        self.calls = 0

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The served tools in litellm/OpenAI ``tools`` form."""
        return [t.to_openai() for t in self.served.tools.tools]

    async def start(self) -> None:
        """Load the task's initial state into this trial's backend session."""
        await self._backend.request("reset", self._session, state=self.task.initial_state)

    async def call(self, call: ToolCall) -> ToolResult:
        """Validate, let the oracle look, map to the backend, and map the result back."""
        self.calls += 1
        try:
            self.served.validate(call)
        except ToolCallError as e:
            return ToolResult(content=f"error: {e}", is_error=True)
        chain = self.served.chain(call)
        flag = check_call(self.family, self.task, self.served, call)
        try:
            result = await self._backend.request(
                "call", self._session, tool=chain[-1].name, args=chain[-1].arguments
            )
        except BackendCallError as e:
            return ToolResult(content=f"error: {e}", is_error=True)
        if flag is not None:
            self.critical.append(flag)
        served_result = self.served.result_to_served(chain, result)
        return ToolResult(content=json.dumps(served_result, sort_keys=True))

    async def verify(self) -> VerifierResult:
        """Run the family's end-state verifier on this session's state."""
        state = await self._backend.request("dump", self._session)
        return self.family.verify(self.task, state)

    async def close(self) -> None:
        """Drop this trial's backend session."""
        await self._backend.request("close", self._session)
