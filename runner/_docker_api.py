"""The Docker engine through the ``docker`` SDK, at the address ``DOCKER_HOST`` names.

The SDK does everything but one thing: a process's stdin and output over a hijacked
connection (``exec`` start, container attach), which it offers only as a blocking socket taken
out of an HTTP response whose buffer may already hold the first output. :class:`EngineStream`
speaks that connection with asyncio instead: the request, the response head, then the
engine's multiplexed frames (an 8-byte header — stream 1 stdout or 2 stderr, 3 zero bytes, a
big-endian length — and the payload), and a half-close for the end of stdin.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
from collections.abc import Callable
from urllib.parse import urlsplit

import docker
import docker.errors
from docker.utils import parse_host

from runner.errors import RunnerError

DEFAULT_ADDRESS = "unix:///var/run/docker.sock"
"""The engine's address when ``DOCKER_HOST`` is not set."""
API_TIMEOUT_S = 60.0
"""Seconds one SDK request may take (a loaded engine is slow, a dead one refuses at once)."""
_HEAD_LIMIT = 64 * 1024

_lock = threading.Lock()
_clients: dict[tuple[int, str], docker.DockerClient] = {}


def engine_address() -> str:
    """Where the engine is: ``DOCKER_HOST``, or the default Unix socket."""
    return os.environ.get("DOCKER_HOST") or DEFAULT_ADDRESS


def engine() -> docker.DockerClient:
    """A client of the engine at :func:`engine_address`, its API version negotiated.

    One per process and address (Ray workers are processes of their own). Raises
    ``docker.errors.DockerException`` when the engine does not answer."""
    key = (os.getpid(), engine_address())
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = docker.from_env(version="auto", timeout=int(API_TIMEOUT_S))
            _clients[key] = client
        return client


def forget_engine() -> None:
    """Drop this process's client of the current address (after the engine went away)."""
    with _lock:
        client = _clients.pop((os.getpid(), engine_address()), None)
    if client is not None:
        client.close()


def engine_error(e: docker.errors.DockerException) -> str:
    """One line saying what the engine (or the attempt to reach it) said."""
    explanation = e.explanation if isinstance(e, docker.errors.APIError) else None
    text = str(explanation or e)
    lines = text.strip().splitlines()
    return lines[-1] if lines else type(e).__name__


class EngineStream(asyncio.Protocol):
    """One hijacked connection to the engine: the process's output as frames, its stdin as
    writes, ``end_input`` as a half-close.

    ``on_frame(stream, data)`` hears every output frame (1 stdout, 2 stderr) as it arrives;
    :attr:`closed` is done when the engine has ended the connection (the process's output is
    complete).
    """

    def __init__(self, request: bytes, on_frame: Callable[[int, bytes], None]) -> None:
        loop = asyncio.get_running_loop()
        self._request = request
        self._on_frame = on_frame
        self._buffer = bytearray()
        self._head_done = False
        self.head: asyncio.Future[None] = loop.create_future()
        """Done when the engine has accepted the request (its response head was read)."""
        self.closed: asyncio.Future[None] = loop.create_future()
        """Done when the connection has ended."""
        self._writable = asyncio.Event()
        self._writable.set()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self._request)

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        if not self._head_done:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self._buffer) > _HEAD_LIMIT:
                    self._fail("the engine sent an overlong response head")
                return
            head, rest = bytes(self._buffer[:end]), self._buffer[end + 4 :]
            status = head.split(b"\r\n", 1)[0].split(b" ")
            code = status[1] if len(status) > 1 else b""
            if code not in (b"101", b"200"):
                self._fail(_refusal(code, bytes(rest)))
                return
            self._head_done, self._buffer = True, bytearray(rest)
            if not self.head.done():
                self.head.set_result(None)
        while len(self._buffer) >= 8:
            size = int.from_bytes(self._buffer[4:8], "big")
            if len(self._buffer) < 8 + size:
                break
            kind, payload = self._buffer[0], bytes(self._buffer[8 : 8 + size])
            del self._buffer[: 8 + size]
            self._on_frame(kind, payload)

    def _fail(self, message: str) -> None:
        if not self.head.done():
            self.head.set_exception(RunnerError(f"the Docker engine refused a stream: {message}"))
        if self.transport is not None:
            self.transport.close()

    def eof_received(self) -> bool:
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._writable.set()
        if not self.head.done():
            self.head.set_exception(
                RunnerError("the Docker engine closed a stream before answering")
            )
        if not self.closed.done():
            self.closed.set_result(None)

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def write(self, data: bytes) -> None:
        """Send ``data`` to the process's stdin (ConnectionResetError once it has ended)."""
        if self.transport is None or self.transport.is_closing() or self.closed.done():
            raise ConnectionResetError("the process's input is closed")
        self.transport.write(data)

    async def drain(self) -> None:
        """Wait until the engine has taken what was written (raises once the stream ended)."""
        await self._writable.wait()
        if self.closed.done():
            raise ConnectionResetError("the process's input is closed")

    def end_input(self) -> None:
        """End the process's stdin; its output keeps coming."""
        t = self.transport
        if t is not None and not t.is_closing() and t.can_write_eof():
            try:
                t.write_eof()
            except OSError:  # the engine closed first
                t.close()

    def close(self) -> None:
        """Drop the connection (the process, if still running, is not killed by this)."""
        if self.transport is not None:
            self.transport.close()


def _refusal(code: bytes, body: bytes) -> str:
    text = body.decode(errors="replace").strip()
    with contextlib.suppress(ValueError, AttributeError):
        text = str(json.loads(text.splitlines()[-1] if text else "{}").get("message", text))
    return f"status {code.decode(errors='replace')}" + (f": {text}" if text else "")


async def open_stream(
    path: str, body: object | None, on_frame: Callable[[int, bytes], None]
) -> EngineStream:
    """A hijacked connection for the API request ``POST path`` with JSON ``body``.

    Unix-socket and plain TCP addresses are supported (``unix://``, ``tcp://`` without TLS).
    """
    version = await asyncio.to_thread(lambda: engine().api.api_version)
    data = b"" if body is None else json.dumps(body).encode()
    request = (
        f"POST /v{version}{path} HTTP/1.1\r\nHost: docker\r\n"
        "Content-Type: application/json\r\nConnection: Upgrade\r\nUpgrade: tcp\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    ).encode() + data
    loop = asyncio.get_running_loop()
    url = str(parse_host(engine_address(), False, False))

    def factory() -> EngineStream:
        return EngineStream(request, on_frame)

    try:
        if url.startswith("http+unix://"):
            _, stream = await loop.create_unix_connection(factory, url[len("http+unix://") :])
        elif url.startswith("http://"):
            where = urlsplit(url)
            host, port = where.hostname or "localhost", where.port or 2375
            _, stream = await loop.create_connection(factory, host, port)
        else:
            raise RunnerError(
                f"the Docker engine address {engine_address()!r} is not supported for sandboxes",
                "use a unix:// socket or a tcp:// address without TLS on this machine",
            )
    except OSError as e:
        raise RunnerError(
            f"the Docker engine at {engine_address()} does not answer: {e}",
            "start it (`make sandbox`), or point DOCKER_HOST at one that runs",
        ) from None
    try:
        await asyncio.wait_for(stream.head, API_TIMEOUT_S)
    except BaseException:
        stream.close()
        raise
    return stream
