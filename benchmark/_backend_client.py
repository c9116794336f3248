"""Client of a family backend server process; trials of one batch share it through sessions."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmark._task import Family


class BackendCallError(Exception):
    """The backend refused a call; the message is returned to the agent as the tool error."""


class BackendUnavailable(Exception):
    """The backend process died or stopped answering: an infrastructure failure."""


SERVER_FILE = Path(__file__).with_name("_backend_server.py")


def backend_files(family: Family) -> dict[str, Path]:
    """Files a sandbox needs to run ``family``'s backend: in-sandbox name → host path."""
    return {"vwt/backend_server.py": SERVER_FILE, "vwt/backend.py": family.backend_file()}


def backend_argv(python: Sequence[str] = ("python3",)) -> list[str]:
    """The command that starts the backend server from the files of :func:`backend_files`
    (relative to the sandbox's working directory), run by the interpreter ``python``."""
    return [*python, "vwt/backend_server.py", "vwt/backend.py"]


class BackendProcess:
    """Multiplexes JSON-lines requests from concurrent trials over one server process."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        if proc.stdin is None or proc.stdout is None:
            raise ValueError("backend process needs stdin and stdout pipes")
        self._proc = proc
        self._stdin: asyncio.StreamWriter = proc.stdin
        self._stdout: asyncio.StreamReader = proc.stdout
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            line = await self._stdout.readline()
            if not line:
                break
            msg = json.loads(line)
            future = self._pending.pop(msg.get("id"), None)
            if future is not None and not future.done():
                future.set_result(msg)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(BackendUnavailable("backend process exited"))
        self._pending.clear()

    async def request(self, op: str, session: str, timeout: float = 30.0, **fields: Any) -> Any:
        """Send one request and wait for its answer."""
        if self._reader.done():
            raise BackendUnavailable("backend process exited")
        rid = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        line = json.dumps({"id": rid, "op": op, "session": session, **fields}) + "\n"
        try:
            self._stdin.write(line.encode())
            await self._stdin.drain()
            msg = await asyncio.wait_for(future, timeout)
        except (ConnectionError, TimeoutError) as e:
            self._pending.pop(rid, None)
            raise BackendUnavailable(f"backend did not answer: {e!r}") from e
        if not msg.get("ok"):
            raise BackendCallError(str(msg.get("error")))
        return msg.get("result")

    async def close(self) -> None:
        """Close stdin and wait for the server to exit."""
        if not self._stdin.is_closing():
            self._stdin.close()
        try:
            await asyncio.wait_for(self._proc.wait(), 5)
        except TimeoutError:
            self._proc.kill()
        await asyncio.gather(self._reader, return_exceptions=True)
