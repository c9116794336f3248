"""MCP's stdio transport carrying many sessions over one pair of pipes: each line is
``CHANNEL JSON-RPC-MESSAGE``. A channel is one MCP session (client on one end, server on the
other); the runner's control session is the channel ``control``, each trial's tools another.

A session sees only its own channel's messages: a trial's client session cannot address
another channel. Used by both ends: the runner (over a process a sandbox spawned) and the
family's MCP server in the sandbox (over its own stdin and stdout), where this file is
mounted beside the server; keep its imports to the standard library, anyio and the SDK.
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp import types
from mcp.shared.message import SessionMessage

CONTROL = "control"
"""The channel of the runner's control session."""
LINE_LIMIT = 16 * 1024 * 1024
"""Longest line read (a task's state travels in one)."""

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]
"""What an SDK session runs on: messages in (or transport errors), messages out."""


class Mux:
    """Channels of MCP sessions over asyncio pipes ``reader`` (lines in) and ``writer``.

    Use ``async with Mux(...) as mux:``, then ``async with mux.channel(name) as streams:``
    for each session. ``heard`` is called per line read. A request on a channel not open is
    answered with a JSON-RPC error when ``refuse`` (a server's side), else dropped. When
    ``reader`` ends, every open channel's inbound stream ends.
    """

    def __init__(
        self,
        reader: Any,
        writer: Any,
        heard: Callable[[], None] = lambda: None,
        refuse: bool = False,
    ) -> None:
        self._reader, self._writer, self._heard = reader, writer, heard
        self._refuse = refuse
        self._routes: dict[str, MemoryObjectSendStream[SessionMessage | Exception]] = {}
        self._tg: TaskGroup | None = None
        self.ended = False
        """Whether the pipe in has ended."""
        self.sent = 0
        """Lines written so far."""

    async def __aenter__(self) -> Mux:
        self._tg = anyio.create_task_group()
        await self._tg.__aenter__()
        self._tg.start_soon(self._read)
        return self

    async def __aexit__(self, *exc: Any) -> bool | None:
        assert self._tg is not None
        self._tg.cancel_scope.cancel()
        return await self._tg.__aexit__(*exc)

    async def _read(self) -> None:
        try:
            while line := await self._reader.readline():
                self._heard()
                name, _, body = line.partition(b" ")
                route = self._routes.get(name.decode(errors="replace"))
                if route is None:
                    if self._refuse:
                        self._refuse_request(name, body)
                    continue
                try:
                    item: SessionMessage | Exception = SessionMessage(
                        types.JSONRPCMessage.model_validate_json(body)
                    )
                except ValueError as e:
                    item = e
                with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                    route.send_nowait(item)
        finally:
            self.ended = True
            for route in list(self._routes.values()):
                route.close()

    def _refuse_request(self, name: bytes, body: bytes) -> None:
        try:
            message = types.JSONRPCMessage.model_validate_json(body).root
        except ValueError:
            return
        if isinstance(message, types.JSONRPCRequest):
            error = types.ErrorData(code=types.INVALID_REQUEST, message="no such trial")
            reply = types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error)
            self._writer.write(name + b" " + reply.model_dump_json(by_alias=True).encode() + b"\n")

    async def _write(self, name: str, out: MemoryObjectReceiveStream[SessionMessage]) -> None:
        prefix = name.encode() + b" "
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            async with out:
                async for item in out:
                    body = item.message.model_dump_json(by_alias=True, exclude_none=True)
                    self._writer.write(prefix + body.encode() + b"\n")
                    await self._writer.drain()
                    self.sent += 1

    @contextlib.asynccontextmanager
    async def channel(self, name: str) -> AsyncIterator[Streams]:
        """The streams of channel ``name`` (a word) for one SDK session, for the body."""
        if self._tg is None:
            raise RuntimeError("the mux is not running")
        if name in self._routes or not name.isalnum():
            raise ValueError(f"bad or busy channel {name!r}")
        in_send, in_recv = anyio.create_memory_object_stream[SessionMessage | Exception](math.inf)
        out_send, out_recv = anyio.create_memory_object_stream[SessionMessage](math.inf)
        self._routes[name] = in_send
        if self.ended:
            in_send.close()
        self._tg.start_soon(self._write, name, out_recv)
        try:
            yield in_recv, out_send
        finally:
            self._routes.pop(name, None)
            in_send.close()
            out_send.close()

    def end(self, name: str) -> None:
        """End channel ``name``'s inbound stream: its session sees the connection closed."""
        route = self._routes.pop(name, None)
        if route is not None:
            route.close()


async def stdio_pipes() -> tuple[Any, Any]:
    """This process's stdin and stdout as asyncio pipes, read and written by the event loop
    itself (the SDK's stdio transport uses worker threads, and a backend's command runner
    reaps what a command leaves behind only in a process of one thread)."""
    import asyncio

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout.buffer
    )
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)
