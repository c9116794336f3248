"""Host subprocesses for the sandboxes: run to completion under a timeout, start, kill."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping

from runner._sandbox_base import ExecResult

LINE_LIMIT = 16 * 1024 * 1024
"""Longest line a spawned process's stdout may send (asyncio's default of 64 KiB is too small
for a JSON-lines tool result)."""

_DRAIN_AFTER_KILL_S = 5.0
"""How long to wait for the pipes to close after a kill; only a process that escaped its
process group can hold them open longer."""


async def run_to_end(
    argv: list[str],
    *,
    input: bytes | None,
    timeout: float,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ExecResult:
    """Run ``argv`` with ``input`` on stdin; kill its process group after ``timeout`` seconds.

    A command that cannot be started reports 127 (not found) or 126 (not executable), as a
    shell would, so local and Docker sandboxes answer alike.
    """
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    except (FileNotFoundError, PermissionError) as e:
        code = 127 if isinstance(e, FileNotFoundError) else 126
        return ExecResult(returncode=code, stdout=b"", stderr=str(e).encode())
    # Shielded so the output read so far survives the timeout.
    communicate = asyncio.ensure_future(proc.communicate(input))
    try:
        out, err = await asyncio.wait_for(asyncio.shield(communicate), timeout)
        timed_out = False
    except TimeoutError:
        timed_out = True
        out, err = await _drain_after_kill(proc, communicate)
    finally:
        await kill(proc)
    assert proc.returncode is not None  # kill() has reaped it
    return ExecResult(returncode=proc.returncode, stdout=out, stderr=err, timed_out=timed_out)


async def _drain_after_kill(
    proc: asyncio.subprocess.Process, communicate: asyncio.Future[tuple[bytes, bytes]]
) -> tuple[bytes, bytes]:
    await kill(proc)
    try:
        return await asyncio.wait_for(communicate, _DRAIN_AFTER_KILL_S)
    except TimeoutError:
        return b"", b""


async def start_process(
    argv: list[str], *, cwd: str | None = None, env: Mapping[str, str] | None = None
) -> asyncio.subprocess.Process:
    """Start ``argv`` in its own process group with stdin, stdout and stderr pipes."""
    return await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
        limit=LINE_LIMIT,
    )


async def kill(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL the process group of ``proc`` (started by this module) and reap ``proc``.

    The group is killed even when ``proc`` itself has exited, so that background children it
    left behind die too (Linux does not reuse a pid while its process group has members).
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    await proc.wait()
