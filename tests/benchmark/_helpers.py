"""Shared helpers: a family's MCP server started as a plain subprocess."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

from benchmark import Family, McpBackend


async def start_backend(family: Family, workdir: Path) -> McpBackend:
    """Start ``family``'s MCP server in ``workdir`` (as a local sandbox would); the caller
    closes it (``await backend.close()``) in the same task."""
    backend = McpBackend.of(family)
    for host, target, read_only in backend.mounts():
        dest = workdir / target
        dest.parent.mkdir(parents=True, exist_ok=True)
        if read_only:
            shutil.copy(host, dest)
        else:
            dest.symlink_to(host)

    async def spawn(argv: list[str]) -> asyncio.subprocess.Process:
        return await asyncio.create_subprocess_exec(
            *argv,
            cwd=workdir,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )

    await backend.start(spawn, "local")
    return backend
