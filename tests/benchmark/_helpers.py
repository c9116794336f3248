"""Shared helpers: a family's MCP server started as a plain subprocess."""

from __future__ import annotations

import asyncio
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from benchmark import Family, McpBackend, ServerProcess


class Subprocesses:
    """Where the backend tests start servers: plain subprocesses of this interpreter in
    ``workdir``, which holds the server's files as a local sandbox's working directory would.
    ``command`` replaces the server's command (a server that misbehaves); ``wrap`` wraps the
    process the backend is given."""

    kind = "local"
    python: tuple[str, ...] = (sys.executable, "-I", "-S")
    user: tuple[int, int] | None = None

    def __init__(
        self,
        workdir: Path,
        command: list[str] | None = None,
        wrap: Callable[[asyncio.subprocess.Process], ServerProcess] | None = None,
    ) -> None:
        self.workdir, self.command, self.wrap = workdir, command, wrap

    def place(self, backend: McpBackend) -> None:
        """Copy ``backend``'s files into the working directory."""
        for host, target, read_only in backend.mounts():
            dest = self.workdir / target
            dest.parent.mkdir(parents=True, exist_ok=True)
            if read_only:
                shutil.copy(host, dest)
            else:
                dest.symlink_to(host)

    async def spawn(self, cmd: list[str]) -> ServerProcess:
        """Start ``cmd`` (or :attr:`command`) in the working directory with pipes."""
        proc = await asyncio.create_subprocess_exec(
            *(self.command or cmd),
            cwd=self.workdir,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        return proc if self.wrap is None else self.wrap(proc)


async def start_backend(family: Family, workdir: Path) -> McpBackend:
    """Start ``family``'s MCP server in ``workdir`` (as a local sandbox would); the caller
    closes it (``await backend.close()``) in the same task."""
    backend = McpBackend.of(family)
    place = Subprocesses(workdir)
    place.place(backend)
    await backend.start(place)
    return backend
