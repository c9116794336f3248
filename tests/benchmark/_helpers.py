"""Shared helpers: a support-ops backend server started as a plain subprocess."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from benchmark import BackendProcess, Family, backend_argv, backend_files


async def start_backend(family: Family, workdir: Path) -> BackendProcess:
    """Start ``family``'s backend server in ``workdir`` (as a local sandbox would)."""
    for target, host in backend_files(family).items():
        (workdir / target).parent.mkdir(parents=True, exist_ok=True)
        (workdir / target).write_bytes(host.read_bytes())
    proc = await asyncio.create_subprocess_exec(
        *backend_argv([sys.executable, "-I", "-S"]),
        cwd=workdir,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    return BackendProcess(proc)
