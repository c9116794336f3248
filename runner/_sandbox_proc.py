"""Host subprocesses for the sandboxes: run to completion under a timeout, start, kill."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Awaitable, Mapping
from typing import Any

from runner._sandbox_base import MAX_OUTPUT, ExecResult

LINE_LIMIT = 16 * 1024 * 1024
"""Longest line a spawned process's stdout may send (asyncio's default of 64 KiB is too small
for a JSON-lines tool result)."""

_CHUNK = 65536
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
    max_output: int = MAX_OUTPUT,
    user: tuple[int, int] | None = None,
) -> ExecResult:
    """Run ``argv`` with ``input`` on stdin; kill its process group after ``timeout`` seconds.

    Keeps the first ``max_output`` bytes of stdout and of stderr; the rest is read and
    dropped, so a flood neither blocks the command nor fills memory. A command that cannot
    be started reports 127 (not found) or 126 (not executable), as a shell would, so local
    and Docker sandboxes answer alike. ``user`` (uid, gid) runs it as that user, with no
    supplementary groups (needs root).
    """
    command, as_user = _as(argv, user)
    try:
        proc = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
            **as_user,
        )
    except (FileNotFoundError, PermissionError) as e:
        code = 127 if isinstance(e, FileNotFoundError) else 126
        return ExecResult(returncode=code, stdout=b"", stderr=str(e).encode())
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Capped(max_output), _Capped(max_output)
    # Shielded so the output read so far survives the timeout.
    work = asyncio.gather(
        _feed(proc.stdin, input), out.read(proc.stdout), err.read(proc.stderr), proc.wait()
    )
    try:
        await asyncio.wait_for(asyncio.shield(work), timeout)
        timed_out = False
    except TimeoutError:
        timed_out = True
        await _drain_after_kill(proc, work)
    finally:
        await kill(proc)
    assert proc.returncode is not None  # kill() has reaped it
    return ExecResult(
        returncode=proc.returncode,
        stdout=bytes(out.kept),
        stderr=bytes(err.kept),
        timed_out=timed_out,
        truncated=out.truncated or err.truncated,
    )


class _Capped:
    """The first ``limit`` bytes of a stream, and whether it had more."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.truncated = False

    async def read(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(_CHUNK):
            room = self.limit - len(self.kept)
            self.truncated |= len(chunk) > room
            self.kept += chunk[: max(room, 0)]


async def _feed(stdin: asyncio.StreamWriter | None, data: bytes | None) -> None:
    """Write ``data`` to ``stdin`` and close it; a command that stops reading early is fine."""
    if stdin is None or data is None:
        return
    with contextlib.suppress(ConnectionError):
        stdin.write(data)
        await stdin.drain()
    stdin.close()


async def _drain_after_kill(proc: asyncio.subprocess.Process, work: Awaitable[object]) -> None:
    await kill(proc)
    # On a timeout here a process that escaped the group holds the pipes: keep what was read.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(work, _DRAIN_AFTER_KILL_S)


_SETPRIV = shutil.which("setpriv", path="/usr/bin:/bin")
"""util-linux's ``setpriv``, where there is one: it drops to the sandbox's user between the
fork and the command, so this process need not."""


def _as(argv: list[str], user: tuple[int, int] | None) -> tuple[list[str], dict[str, Any]]:
    """``argv`` and ``subprocess`` arguments that start it as ``user`` (uid, gid) with no
    supplementary groups. Through ``setpriv`` where it is installed: Python's own ``user=``
    makes ``subprocess`` copy this whole process with ``fork()`` rather than ``vfork()`` it,
    which costs a large driver or worker about 20 times the CPU per start
    (``bench/spawn_cost.py``).
    Either way the command cannot start with root's identity; a command that is not found or
    not executable exits 127 or 126 (``setpriv`` says so on stderr)."""
    if user is None:
        return argv, {}
    uid, gid = user
    if _SETPRIV is not None:
        return [_SETPRIV, f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--", *argv], {}
    return argv, {"user": uid, "group": gid, "extra_groups": []}


async def start_process(
    argv: list[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    user: tuple[int, int] | None = None,
) -> asyncio.subprocess.Process:
    """Start ``argv`` in its own process group with stdin, stdout and stderr pipes (as
    ``user``, if given)."""
    command, as_user = _as(argv, user)
    return await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env=env,
        start_new_session=True,
        limit=LINE_LIMIT,
        **as_user,
    )


async def kill(proc: asyncio.subprocess.Process) -> None:
    """SIGKILL the process group of ``proc`` (started by this module) and reap ``proc``.

    The group is killed even when ``proc`` itself has exited, so that background children it
    left behind die too (Linux does not reuse a pid while its process group has members).
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    await proc.wait()
