"""One trial's loopback endpoints, for a harness that runs out of process (an agent framework).

- ``POST /v1/chat/completions``: an OpenAI-compatible chat-completions endpoint. Each request's
  messages and tools go through vwt's gateway (:func:`benchmark.complete`: litellm, with the
  trial's model string, request seed, retry policy and endpoint), so every model call is
  recorded in the trial's call log, rate-limited and priced as the built-in loops' calls are,
  and the framework needs no key of a provider.
- ``/mcp``: the trial's tools over MCP (streamable HTTP, the official SDK): the served interface
  through the drift proxy, plus the skill tools the artifacts need.

Both listen on 127.0.0.1 on a port of their own and answer only requests carrying the trial's
token (``Authorization: Bearer …``), which only the trial's process is given.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import uvicorn
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import McpError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from benchmark._call_log import CallLog, recording
from benchmark._environment import ToolResult
from benchmark._models import ModelCallFailed, ModelPolicy, complete
from benchmark.harness._run import AgentRun
from conditions import ModelEndpoint

HOST = "127.0.0.1"
MAX_BODY_BYTES = 16 * 1024 * 1024
"""Largest request body either endpoint reads."""
_START_S = 30.0
"""How long the server may take to start listening."""

ToolCaller = Callable[[str, dict[str, Any]], Awaitable[ToolResult]]
"""Calls one of the trial's tools: (name, arguments) → what the agent sees."""


@dataclass(frozen=True)
class ToolExchange:
    """One ``tools/call`` the framework made, and what it was answered."""

    name: str
    arguments: dict[str, Any]
    result: types.CallToolResult

    def mcp(self) -> dict[str, Any]:
        """The exchange as a trace keeps it (``{"request", "result"}``)."""
        return {
            "request": {
                "method": "tools/call",
                "params": {"name": self.name, "arguments": self.arguments},
            },
            "result": self.result.model_dump(mode="json", by_alias=True, exclude_none=True),
        }


class _Uvicorn(uvicorn.Server):
    """uvicorn serving in the caller's event loop, leaving the process's signal handlers
    alone: many trials serve at once, and the worker's own SIGTERM handling must stay."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def _error(status: int, message: str, kind: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "code": status}}, status)


def _listening() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, 0))
    return sock


class Loopback:
    """The loopback endpoints of one trial (``async with``); see the module.

    What the framework did is kept here: the model's turns, usage and last request in ``run``
    (the messages as the model saw them), every tool call it received (``exchanges``), the
    tool calls the model asked for (``requested``), the first failed model call (``failed``,
    the gateway's reason) and the first error of the trial's tools (``error``).
    """

    def __init__(
        self,
        *,
        model: str,
        seed: int,
        endpoint: ModelEndpoint | None,
        policy: ModelPolicy,
        run: AgentRun,
        tools: list[types.Tool],
        call: ToolCaller,
        log: CallLog | None,
    ) -> None:
        """Endpoints sending model requests as ``model`` with ``seed`` (recorded in ``log``),
        counting into ``run``, and serving ``tools`` through ``call``."""
        self.model, self.seed, self.endpoint, self.policy = model, seed, endpoint, policy
        self.run, self.tools, self.call, self.log = run, tools, call, log
        self.token = secrets.token_urlsafe(32)
        self.failed: str | None = None
        self.error: BaseException | None = None
        self.exchanges: list[ToolExchange] = []
        self.requested: list[dict[str, Any]] = []
        self.base = ""
        self._manager: StreamableHTTPSessionManager | None = None

    @property
    def model_url(self) -> str:
        """The OpenAI-compatible base URL (``…/v1``)."""
        return f"{self.base}/v1"

    @property
    def mcp_url(self) -> str:
        """The MCP endpoint (streamable HTTP)."""
        return f"{self.base}/mcp"

    def _server(self) -> Server[Any, Any]:
        server: Server[Any, Any] = Server("vwt-trial-tools")

        async def list_tools(req: types.ListToolsRequest) -> types.ServerResult:
            return types.ServerResult(types.ListToolsResult(tools=self.tools))

        async def call_tool(req: types.CallToolRequest) -> types.ServerResult:
            return types.ServerResult(await self._call(req.params.name, req.params.arguments))

        # Plain handlers, as the drift proxy registers them: the SDK's decorators would
        # validate arguments in their own words, before the served interface does.
        server.request_handlers[types.ListToolsRequest] = list_tools
        server.request_handlers[types.CallToolRequest] = call_tool
        return server

    async def _call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        args = dict(arguments or {})
        try:
            got = await self.call(name, args)
        except Exception as e:  # the trial's tools failed: the trial is invalid, not the agent
            if self.error is None:
                self.error = e
            raise McpError(
                types.ErrorData(
                    code=types.INTERNAL_ERROR,
                    message=f"the trial's tools failed ({type(e).__name__})",
                )
            ) from e
        if got.mcp is not None and not got.is_error:
            result = types.CallToolResult.model_validate(got.mcp["result"])
        else:  # an error, worded as the built-in loops show it ('error: …'), or a skill tool
            text = types.TextContent(type="text", text=got.content)
            result = types.CallToolResult(content=[text], isError=got.is_error)
        self.exchanges.append(ToolExchange(name, args, result))
        return result

    async def _chat(self, request: Request) -> JSONResponse:
        body = await request.body()
        if len(body) > MAX_BODY_BYTES:
            return _error(413, "request body too large", "invalid_request_error")
        try:
            data = json.loads(body)
            messages, tools = data["messages"], data.get("tools") or []
            if not isinstance(messages, list) or not isinstance(tools, list):
                raise TypeError("messages and tools must be lists")
        except (ValueError, KeyError, TypeError) as e:
            return _error(400, f"not a chat completions request: {e}", "invalid_request_error")
        if data.get("stream"):
            return _error(400, "streamed responses are not served", "invalid_request_error")
        if self.failed is not None:
            return _error(502, self.failed, "model_call_failed")
        usage = self.run.usage
        before = usage.prompt_tokens, usage.completion_tokens
        try:
            with recording(self.log) if self.log is not None else contextlib.nullcontext():
                reply = await complete(
                    self.model,
                    messages,
                    tools,
                    seed=self.seed,
                    usage=usage,
                    policy=self.policy,
                    endpoint=self.endpoint,
                )
        except ModelCallFailed as e:
            self.failed = str(e)
            return _error(502, self.failed, "model_call_failed")
        self.run.turns += 1
        self.run.messages = [*messages, reply]
        self.requested += reply.get("tool_calls") or []
        prompt = usage.prompt_tokens - before[0]
        completion = usage.completion_tokens - before[1]
        return JSONResponse(
            {
                "id": f"chatcmpl-vwt-{self.run.turns}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": str(data.get("model") or self.model),
                "choices": [
                    {
                        "index": 0,
                        "message": reply,
                        "finish_reason": "tool_calls" if reply.get("tool_calls") else "stop",
                        "logprobs": None,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }
        )

    def _authorized(self, scope: Scope) -> bool:
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"authorization", b"").decode("latin-1")
        return secrets.compare_digest(given, f"Bearer {self.token}")

    async def _app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        if not self._authorized(scope):
            response = _error(401, "missing or wrong bearer token", "authentication_error")
        elif path == "/v1/chat/completions" and method == "POST":
            response = await self._chat(Request(scope, receive))
        elif path == "/mcp" and method == "GET":
            # No stream for server-initiated messages: the trial's tools send none (the MCP
            # spec lets a server answer 405 here), and none is left to close at the end.
            response = JSONResponse(None, 405, headers={"Allow": "POST, DELETE"})
        elif path == "/mcp" and self._manager is not None:
            await self._manager.handle_request(scope, receive, send)
            return
        else:
            response = _error(404, f"no route {method} {path}", "not_found")
        await response(scope, receive, send)

    @contextlib.asynccontextmanager
    async def serving(self) -> AsyncIterator[Loopback]:
        """Listen until the block ends (then stop, closing what is still open)."""
        sock = _listening()
        port = sock.getsockname()[1]
        self.base = f"http://{HOST}:{port}"
        self._manager = StreamableHTTPSessionManager(
            self._server(),
            json_response=True,
            security_settings=TransportSecuritySettings(allowed_hosts=[f"{HOST}:{port}"]),
            max_request_body_size=MAX_BODY_BYTES,
        )
        config = uvicorn.Config(
            self._app,
            interface="asgi3",
            lifespan="off",
            log_config=None,  # the process's logging stays as it is
            log_level="warning",
            access_log=False,
            ws="none",
            http="h11",
            server_header=False,
            timeout_graceful_shutdown=2,
        )
        server = _Uvicorn(config)
        try:
            async with self._manager.run():
                serving = asyncio.create_task(server.serve(sockets=[sock]))
                try:
                    await _started(server, serving)
                    yield self
                finally:
                    server.should_exit = True
                    await serving
        finally:
            sock.close()


async def _started(server: uvicorn.Server, serving: asyncio.Task[None]) -> None:
    deadline = time.monotonic() + _START_S
    while not server.started:
        if serving.done():
            serving.result()
            raise RuntimeError("the loopback server stopped before it started")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the loopback server did not start within {_START_S:.0f} s")
        await asyncio.sleep(0.005)
