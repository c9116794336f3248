"""Client of a family backend server process; trials of one batch share it through sessions."""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from pathlib import Path
from typing import Any

from benchmark._task import Family


class BackendCallError(Exception):
    """The backend refused a call; the message is returned to the agent as the tool error."""


class BackendUnavailable(Exception):
    """The backend process died or stopped answering: an infrastructure failure."""


def backend_command(
    family: Family, code_root: Path | str, python: str = sys.executable
) -> list[str]:
    """The command that starts ``family``'s backend server, with the package under
    ``code_root`` (the host's package directory, or where a sandbox mounts it)."""
    root = Path(code_root)
    backend = family.backend_file()
    return [
        python,
        str(root / "_backend_server.py"),
        str(root / backend.relative_to(Path(__file__).parent)),
    ]


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
