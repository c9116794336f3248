"""A trial's environment: the harness's MCP client session to the served interface.

The session reaches a drift proxy (:class:`drift.DriftProxy`, in this process) serving the
interface version; the proxy is a client of the trial's canonical tools on the family's MCP
server in the sandbox, and reports every call to the drift oracle here.
"""

from __future__ import annotations

import contextlib
from typing import Any

from mcp import ClientSession, types
from pydantic import BaseModel, ConfigDict, Field

from benchmark._mcp_backend import McpBackend
from benchmark._oracle import CriticalFlag, check_call
from benchmark._task import Family, Task, VerifierResult
from drift import DriftProxy, ProxyCall, ServedInterface, ToolCall


class ToolResult(BaseModel):
    """What the agent sees after a tool call."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str = Field(description="JSON result, or the error message.")
    is_error: bool = Field(default=False, description="Whether the call failed.")
    mcp: dict[str, Any] | None = Field(
        default=None,
        description="The MCP exchange behind it ({'request': tools/call, 'result': "
        "CallToolResult}), for the trace; None for what the harness answers itself.",
    )


def tool_result(request: dict[str, Any], result: types.CallToolResult) -> ToolResult:
    """What the agent sees of an MCP tool result: its text (a tool error prefixed
    ``error:``), with the exchange kept for the trace."""
    parts = [
        c.text if isinstance(c, types.TextContent) else c.model_dump_json(by_alias=True)
        for c in result.content
    ]
    text = "\n".join(parts)
    exchange = {
        "request": request,
        "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
    }
    if result.isError:
        return ToolResult(content=f"error: {text}", is_error=True, mcp=exchange)
    return ToolResult(content=text, mcp=exchange)


def openai_tool(tool: types.Tool) -> dict[str, Any]:
    """An MCP tool in litellm/OpenAI ``tools`` form."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description or "",
            "parameters": tool.inputSchema,
        },
    }


class TrialEnvironment:
    """Serves one task at one interface version over MCP, in one backend trial.

    ``async with env:`` (or ``start`` ... ``close``) opens the trial and its sessions and ends
    them, in one task.
    """

    def __init__(self, family: Family, task: Task, served: ServedInterface, backend: McpBackend):
        self.family, self.task, self.served = family, task, served
        self.backend = backend
        self.critical: list[CriticalFlag] = []
        self.calls = 0
        self.listed: list[types.Tool] = []
        """The served tools as ``tools/list`` gave them."""
        self.tools: list[dict[str, Any]] = []
        """The same in litellm/OpenAI ``tools`` form."""
        self._trial: str | None = None
        self._session: ClientSession | None = None
        self._stack = contextlib.AsyncExitStack()

    def _observe(self, call: ProxyCall) -> None:
        if call.is_error:
            return
        flag = check_call(self.family, self.task, self.served, call.served)
        if flag is not None:
            self.critical.append(flag)

    async def start(self) -> None:
        """Load the task's initial state into a new backend trial and connect to its tools."""
        self._trial = await self.backend.open_trial(self.task.initial_state, self.family.id)
        upstream = await self._stack.enter_async_context(self.backend.connect(self._trial))
        proxy = DriftProxy(self.served, upstream, self._observe, name=f"vwt-{self.family.env_id}")
        self._session = await self._stack.enter_async_context(proxy.connect())
        listed = await self.backend.guard(self._session.list_tools(), "tools/list")
        self.listed = list(listed.tools)
        self.tools = [openai_tool(t) for t in listed.tools]

    async def call(self, call: ToolCall) -> ToolResult:
        """Send ``call`` as an MCP ``tools/call``; a tool error is a result, a protocol error
        (or a lost server) raises."""
        if self._session is None:
            raise RuntimeError("the environment is not started")
        self.calls += 1
        request = {
            "method": "tools/call",
            "params": {"name": call.name, "arguments": call.arguments},
        }
        result = await self.backend.guard(
            self._session.call_tool(call.name, call.arguments), f"tools/call {call.name!r}"
        )
        return tool_result(request, result)

    async def verify(self) -> VerifierResult:
        """Run the family's end-state verifier on this trial's state."""
        if self._trial is None:
            raise RuntimeError("the environment is not started")
        state = await self.backend.dump(self._trial)
        return self.family.verify(self.task, state)

    async def close(self) -> None:
        """End the sessions and drop the backend trial."""
        await self.__aexit__(None, None, None)

    async def __aenter__(self) -> TrialEnvironment:
        """``start``; a start that fails (or is cancelled) part-way ends what it opened, in
        this task, before it raises (left open, a session would be closed later by the loop
        in another task, which anyio refuses with a traceback)."""
        try:
            await self.start()
        except BaseException as e:
            with contextlib.suppress(Exception):
                await self.__aexit__(type(e), e, e.__traceback__)
            raise
        return self

    async def __aexit__(self, *exc: Any) -> None:
        """End the sessions (handing them what ends the body, so that a session failing
        under it surfaces as its error, not as a cancellation) and drop the backend trial."""
        self._session = None
        try:
            await self._stack.__aexit__(*exc)
        finally:
            trial, self._trial = self._trial, None
            if trial is not None:
                await self.backend.close_trial(trial)
