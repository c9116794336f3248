"""The drift proxy: an MCP server serving a drifted interface in front of any MCP server.

It is a server to its client and a client of its upstream: ``tools/list`` answers the served
(drifted) tools; ``tools/call`` validates a call against them, translates it back through the
operators' adapters onto the upstream's own tools, and translates the result forward. Each
call is reported (:class:`ProxyCall`) with what a drift oracle needs. The families' trials
and ``vwt drift proxy`` use this same code.
"""

from __future__ import annotations

import contextlib
import json
import os
import weakref
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import McpError
from mcp.shared.memory import create_client_server_memory_streams
from pydantic import BaseModel, ConfigDict, Field

from drift._tools import ToolCall, ToolSet, parse_tool_list
from drift._version import ServedInterface
from drift.errors import DriftError, ToolCallError


class OldReading(BaseModel):
    """What a call would have meant under a changing operator's old semantics."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    operator: str = Field(description="Changelog line of the changing operator.")
    call: ToolCall = Field(description="The upstream call the old reading means.")


class ProxyCall(BaseModel):
    """One call through the proxy, as logged: what the oracle needs to judge it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    served: ToolCall = Field(description="The call as the client sent it (served interface).")
    upstream: ToolCall | None = Field(
        default=None, description="The call sent upstream (None when the proxy refused it)."
    )
    is_error: bool = Field(description="Whether the client got a tool error.")
    error: str | None = Field(default=None, description="The tool error's text, if any.")
    old_readings: tuple[OldReading, ...] = Field(
        default=(), description="Upstream calls the served call means under old semantics."
    )


Observer = Callable[[ProxyCall], None]
"""Called with every call through the proxy, after its result is known."""


def tool_set_of(tools: list[types.Tool]) -> ToolSet:
    """An MCP ``tools/list`` result's tools as a tool set."""
    return parse_tool_list(
        [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools], "tools/list"
    )


async def list_all_tools(session: ClientSession) -> list[types.Tool]:
    """Every tool ``session``'s server lists, following pagination."""
    tools: list[types.Tool] = []
    cursor: str | None = None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools += page.tools
        cursor = page.nextCursor
        if not cursor:
            return tools


def leaf(error: BaseException) -> BaseException:
    """The first exception inside nested exception groups (what anyio's task groups of the
    SDK's transports wrap an error in), or ``error`` itself."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


@contextlib.asynccontextmanager
async def unwrapped() -> AsyncIterator[None]:
    """Re-raise an exception group leaving the body as its first exception."""
    try:
        yield
    except BaseExceptionGroup as group:
        raise leaf(group) from group


def _error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=True)


_OPAQUE = object()


def _text_json(result: types.CallToolResult) -> Any:
    """The JSON value of a result that is one text block of JSON, else ``_OPAQUE``."""
    if len(result.content) == 1 and isinstance(result.content[0], types.TextContent):
        try:
            return json.loads(result.content[0].text)
        except ValueError:
            pass
    return _OPAQUE


_TOOLS: weakref.WeakKeyDictionary[ServedInterface, list[types.Tool]] = weakref.WeakKeyDictionary()
"""The MCP tools of each served interface, made once: every trial's proxy lists them."""


def _mcp_tools(served: ServedInterface) -> list[types.Tool]:
    tools = _TOOLS.get(served)
    if tools is None:
        tools = _TOOLS[served] = [types.Tool.model_validate(t.to_mcp()) for t in served.tools.tools]
    return tools


class DriftProxy:
    """Serves ``served`` over MCP, forwarding calls to the ``upstream`` session.

    ``observe`` sees every call (:class:`ProxyCall`). A tool error upstream comes back as a
    tool error (``isError``); a protocol error upstream is raised to the client as one.
    """

    def __init__(
        self,
        served: ServedInterface,
        upstream: ClientSession,
        observe: Observer | None = None,
        name: str = "vwt-drift-proxy",
    ) -> None:
        self.served, self.upstream, self.observe = served, upstream, observe
        self.server: Server[Any, Any] = Server(name, version=served.version.label)
        tools = _mcp_tools(served)

        async def list_tools(req: types.ListToolsRequest) -> types.ServerResult:
            return types.ServerResult(types.ListToolsResult(tools=tools))

        async def call_tool(req: types.CallToolRequest) -> types.ServerResult:
            call = ToolCall(name=req.params.name, arguments=req.params.arguments or {})
            return types.ServerResult(await self.call(call))

        # Registered as plain handlers, not the SDK's decorators: those would validate
        # arguments with their own wording and turn upstream protocol errors into tool errors.
        self.server.request_handlers[types.ListToolsRequest] = list_tools
        self.server.request_handlers[types.CallToolRequest] = call_tool

    def _report(self, call: ProxyCall) -> None:
        if self.observe is not None:
            self.observe(call)

    def _old_readings(self, call: ToolCall) -> tuple[OldReading, ...]:
        ops = self.served.version.ops
        return tuple(
            OldReading(operator=ops[i].describe(), call=misread)
            for i, misread in self.served.old_readings(call)
        )

    async def call(self, call: ToolCall) -> types.CallToolResult:
        """The result of ``call`` on the served interface: validated, sent upstream as the
        call it means there, its result translated into the served form."""
        try:
            self.served.validate(call)
        except ToolCallError as e:
            self._report(ProxyCall(served=call, is_error=True, error=str(e)))
            return _error(str(e))
        chain = self.served.chain(call)
        upstream = chain[-1]
        result = await self.upstream.call_tool(upstream.name, upstream.arguments)
        readings = self._old_readings(call)
        if result.isError:
            text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
            logged = ProxyCall(served=call, upstream=upstream, is_error=True, error=text)
            self._report(logged.model_copy(update={"old_readings": readings}))
            return result
        self._report(
            ProxyCall(served=call, upstream=upstream, is_error=False, old_readings=readings)
        )
        value = _text_json(result)
        if value is not _OPAQUE:  # a JSON result, as the families' backends give
            out = self.served.result_to_served(chain, value)
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=json.dumps(out, sort_keys=True))],
                structuredContent=out if isinstance(out, dict) else None,
            )
        if result.structuredContent is None:
            return result  # nothing the operators could translate
        # Text for people and structured content beside it: only the latter is translated.
        structured = self.served.result_to_served(chain, result.structuredContent)
        return result.model_copy(update={"structuredContent": structured})

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[ClientSession]:
        """An initialized MCP client session to this proxy, in memory (same event loop)."""
        async with (
            create_client_server_memory_streams() as (client_streams, server_streams),
            anyio.create_task_group() as tg,
        ):
            options = self.server.create_initialization_options()
            tg.start_soon(self.server.run, *server_streams, options)
            try:
                async with ClientSession(*client_streams) as session:
                    await session.initialize()
                    yield session
            finally:
                tg.cancel_scope.cancel()


ServedFor = Callable[[ToolSet], ServedInterface]
"""Makes the served interface from the upstream server's own tools (its base)."""


def _log_writer(path: Path | None) -> tuple[Observer | None, Callable[[], None]]:
    """An observer appending each call as a JSON line to ``path`` (flushed), and its closer."""
    if path is None:
        return None, lambda: None
    f = path.open("a", encoding="utf-8")

    def write(call: ProxyCall) -> None:
        f.write(call.model_dump_json(exclude_none=True) + "\n")
        f.flush()

    return write, f.close


async def run_stdio_proxy(command: Sequence[str], served_for: ServedFor, log: Path | None) -> None:
    """Serve a drifted interface on this process's stdio in front of the stdio MCP server that
    ``command`` starts: its ``tools/list`` is the base ``served_for`` drifts; each call is
    appended to ``log`` (JSON lines of :class:`ProxyCall`), when given. Returns when the
    client closes stdin. DriftError when the server cannot be started or its tools do not
    take the drift."""
    params = StdioServerParameters(command=command[0], args=list(command[1:]), env=dict(os.environ))
    try:
        async with (
            unwrapped(),
            stdio_client(params) as streams,
            ClientSession(*streams) as upstream,
        ):
            await upstream.initialize()
            served = served_for(tool_set_of(await list_all_tools(upstream)))
            observe, close_log = _log_writer(log)
            try:
                proxy = DriftProxy(served, upstream, observe)
                async with stdio_server() as (read, write):
                    options = proxy.server.create_initialization_options()
                    await proxy.server.run(read, write, options)
            finally:
                close_log()
    except OSError as e:
        raise DriftError(
            f"cannot start the upstream MCP server {command[0]!r}: {e}",
            "give the command that starts a stdio MCP server after '--'",
        ) from None
    except McpError as e:
        raise DriftError(
            f"the upstream MCP server {command[0]!r} failed: {e}",
            "check that the command starts a stdio MCP server (run it alone to see its errors)",
        ) from None
