"""Client of a family backend server process; trials of one batch share it through sessions."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from benchmark._task import Family
from benchmark.errors import BenchmarkError

T = TypeVar("T")


class BackendCallError(Exception):
    """The backend refused a call; the message is returned to the agent as the tool error."""


class BackendUnavailable(Exception):
    """The backend process died or stopped answering: an infrastructure failure."""


SERVER_FILE = Path(__file__).with_name("_backend_server.py")
SANDBOX_EXEC_FILE = Path(__file__).with_name("_sandbox_exec.py")
"""The standard-library command runner backends import, mounted beside the server (whose
directory the server makes importable)."""


def backend_files(family: Family) -> dict[str, Path]:
    """Files a sandbox needs to run ``family``'s backend: in-sandbox name → host path (the
    server, the backend, and the command runner backends import)."""
    return {
        "vwt/backend_server.py": SERVER_FILE,
        "vwt/backend.py": family.backend_file(),
        "vwt/_sandbox_exec.py": SANDBOX_EXEC_FILE,
    }


def backend_argv(python: Sequence[str] = ("python3",)) -> list[str]:
    """The command that starts the backend server from the files of :func:`backend_files`
    (relative to the sandbox's working directory), run by the interpreter ``python``."""
    return [*python, "vwt/backend_server.py", "vwt/backend.py"]


TIMEOUT_ENV = "VWT_BACKEND_TIMEOUT_S"
"""Environment variable: seconds a backend may stay silent with a request pending."""
DEFAULT_TIMEOUT_S = 120.0
_SLICE_S = 1.0
"""Seconds between checks of a pending request."""


def backend_timeout(environ: Mapping[str, str] | None = None) -> float:
    """The backend silence limit: ``VWT_BACKEND_TIMEOUT_S`` (seconds, default 120)."""
    raw = (os.environ if environ is None else environ).get(TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 3600:
        raise BenchmarkError(
            f"{TIMEOUT_ENV}={raw!r} is not a number of seconds in (0, 3600]",
            f"set {TIMEOUT_ENV} to e.g. 300, or unset it for the default ({DEFAULT_TIMEOUT_S:g} s)",
        )
    return value


class _Process(Protocol):
    """What the client needs of the server process (``runner.SandboxProcess`` has it)."""

    @property
    def pid(self) -> int: ...
    @property
    def returncode(self) -> int | None: ...
    @property
    def stdin(self) -> Any: ...
    @property
    def stdout(self) -> asyncio.StreamReader | None: ...
    async def wait(self) -> int: ...
    def kill(self) -> None: ...


class BackendProcess:
    """Multiplexes JSON-lines requests from concurrent trials over one server process.

    A request fails as :class:`BackendUnavailable` when the process exits, or when the
    server stays silent (answers no request at all) for ``timeout`` seconds of this event
    loop's running time while the request is pending. Time the loop spends blocked
    elsewhere does not count, nor does time the server spends answering requests queued
    before it: load slows trials down but does not make them invalid.
    """

    CLOSE_GRACE_S = 5.0
    """Seconds ``close`` waits for the server to exit on its own before it kills it."""

    def __init__(self, proc: _Process, timeout: float | None = None) -> None:
        if proc.stdin is None or proc.stdout is None:
            raise ValueError("backend process needs stdin and stdout pipes")
        self.timeout = backend_timeout() if timeout is None else timeout
        self._proc = proc
        self._stdin = proc.stdin
        self._stdout: asyncio.StreamReader = proc.stdout
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._heard = 0
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            line = await self._stdout.readline()
            if not line:
                break
            self._heard += 1
            msg = json.loads(line)
            future = self._pending.pop(msg.get("id"), None)
            if future is not None and not future.done():
                future.set_result(msg)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(BackendUnavailable("backend process exited"))
        self._pending.clear()

    async def _wait(self, future: asyncio.Future[T], limit: float, what: str) -> T:
        """``future``'s result, or BackendUnavailable after ``limit`` s of server silence."""
        loop = asyncio.get_running_loop()
        silent, heard = 0.0, self._heard
        while not future.done():
            step = min(_SLICE_S, limit - silent)
            started = loop.time()
            await asyncio.wait([future], timeout=step)
            if self._heard != heard:  # the server is working through earlier requests
                silent, heard = 0.0, self._heard
            else:  # a loop blocked for longer than `step` counts as `step`
                silent += min(loop.time() - started, step)
            if silent >= limit and not future.done():
                future.cancel()
                raise BackendUnavailable(
                    f"backend server (pid {self._proc.pid}) silent for {limit:g} s "
                    f"with {what} pending (limit: {TIMEOUT_ENV})"
                )
        return future.result()

    async def request(
        self, op: str, session: str, timeout: float | None = None, **fields: Any
    ) -> Any:
        """Send one request and wait for its answer (``timeout``: the silence limit, default
        the process's)."""
        if self._reader.done():
            raise BackendUnavailable("backend process exited")
        limit = self.timeout if timeout is None else timeout
        what = f"request {op!r} of session {session[:16]!r}"
        rid = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        line = json.dumps({"id": rid, "op": op, "session": session, **fields}) + "\n"
        try:
            self._stdin.write(line.encode())
            await self._wait(asyncio.ensure_future(self._stdin.drain()), limit, f"writing {what}")
            msg = await self._wait(future, limit, what)
        except ConnectionError as e:
            raise BackendUnavailable(f"backend closed its input at {what}: {e!r}") from e
        finally:
            self._pending.pop(rid, None)
        if not msg.get("ok"):
            raise BackendCallError(str(msg.get("error")))
        return msg.get("result")

    async def close(self) -> None:
        """Close stdin, wait for the server to exit, kill it if it does not; never raises.

        Cleanup runs in a batch's ``finally``: an error here would replace the batch's own
        result. The server may exit between the wait's timeout and the kill, so a kill of a
        process that is gone (ProcessLookupError) is the expected end, not a failure."""
        try:
            if not self._stdin.is_closing():
                self._stdin.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._proc.wait(), self.CLOSE_GRACE_S)
            if self._proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self._proc.kill()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._proc.wait(), self.CLOSE_GRACE_S)
        except (OSError, RuntimeError):  # a pipe or a loop already torn down
            pass
        await asyncio.gather(self._reader, return_exceptions=True)
