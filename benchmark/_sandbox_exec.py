"""Run one command under limits, from a family backend. Standard library only: runs inside
sandboxes, next to the backend server (``vwt/_sandbox_exec.py``), and on the host.

A backend imports it as::

    try:
        from _sandbox_exec import opt_dir, run_limited  # in a sandbox: next to the server
    except ImportError:
        from benchmark._sandbox_exec import opt_dir, run_limited  # in-process, on the host

:func:`run_limited` starts the command in its own session (so its own process group), with
stdin empty, reads at most ``max_output`` bytes of each of stdout and stderr (the rest is read
and dropped, so a flood neither blocks the command nor fills memory), and SIGKILLs the whole
group when the time limit passes, and also when the command exits, so children it left behind
die with it. A caller with one thread and no other children (the backend server) also adopts,
for the command's time, the orphans the command leaves outside its group (``setsid``) and kills
them. Where coreutils ``timeout`` is on PATH the command runs under it as a watchdog, so the
time limit holds even if the backend itself dies first.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import time
from pathlib import Path

OPT_ENV = "VWT_SANDBOX_OPT"
"""Environment variable naming the image's internal library directory (``/opt/vwt`` in the
Docker image, the repository's ``scripts/sandbox-image`` in a local sandbox)."""
IMAGE_OPT = "/opt/vwt"
"""Where the Docker image holds ``scripts/sandbox-image``."""

_WATCHDOG_GRACE_S = 2.0
"""How long past the time limit the ``timeout`` watchdog waits before it kills the group."""
_PR_SET_CHILD_SUBREAPER = 36
_MAX_SWEEPS = 100
"""Rounds of killing adopted orphans (each round's victims' children are the next round's)."""
_CHUNK = 65536
_POLL_S = 0.02
"""How often to check whether the command has exited, where there is no pidfd to wait on."""


def opt_dir() -> str:
    """The internal library directory: ``$VWT_SANDBOX_OPT``; else, on the host, the repository's
    ``scripts/sandbox-image`` when it exists; else ``/opt/vwt``."""
    configured = os.environ.get(OPT_ENV)
    if configured:
        return configured
    repo_copy = Path(__file__).resolve().parent.parent / "scripts" / "sandbox-image"
    return str(repo_copy) if repo_copy.is_dir() else IMAGE_OPT


def run_limited(
    argv: list[str],
    cwd: str,
    timeout_s: float,
    max_output: int = 65536,
    env: dict[str, str] | None = None,
) -> dict[str, object]:
    """Run ``argv`` in ``cwd``; kill its process group after ``timeout_s`` seconds.

    ``env`` is set on top of this process's environment. Returns ``{"exit", "stdout",
    "stderr", "timed_out", "truncated"}``: ``exit`` is the exit status, 128 + the signal
    number when a signal killed the command (137 at the time limit), 127 when the program
    does not exist and 126 when it cannot be executed or started (``stderr`` says why, e.g.
    no process left under the pid limit); ``stdout``/``stderr`` are the first
    ``max_output`` bytes of each, decoded as UTF-8 (bad bytes replaced); ``truncated`` says
    whether either stream was longer. Raises ValueError for an empty ``argv`` or a limit
    that is not positive, NotADirectoryError when ``cwd`` is not a directory.
    """
    if not argv:
        raise ValueError("run_limited needs a command")
    if not timeout_s > 0 or max_output < 0:
        raise ValueError(f"bad limits: timeout_s={timeout_s!r}, max_output={max_output!r}")
    if not os.path.isdir(cwd):
        raise NotADirectoryError(f"run_limited: working directory {cwd!r} is not a directory")
    child_env = {**os.environ, **(env or {})}
    missing = _not_runnable(argv[0], cwd, child_env.get("PATH", os.defpath))
    if missing is not None:
        return _result(missing[0], b"", missing[1].encode(), False, False)
    adopting = _adopt_orphans()
    try:
        try:
            proc = subprocess.Popen(
                _watched(argv, timeout_s),
                cwd=cwd,
                env=child_env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as e:  # e.g. no process left under the sandbox's pid limit
            code = 127 if isinstance(e, FileNotFoundError) else 126
            return _result(code, b"", f"{argv[0]}: {e.strerror}\n".encode(), False, False)
        deadline = time.monotonic() + timeout_s
        try:
            out, err, truncated, finished = _collect(proc, deadline, max_output, adopting)
        finally:
            _end_group(proc.pid, adopting)
            status = proc.wait()
            for pipe in (proc.stdout, proc.stderr):
                if pipe is not None:
                    pipe.close()
    finally:
        if adopting:
            _prctl(_PR_SET_CHILD_SUBREAPER, 0)
    code = 128 - status if status < 0 else status
    return _result(code, out, err, not finished, truncated)


def _end_group(leader: int, adopting: bool) -> None:
    """SIGKILL the group of ``leader`` (not reaped yet: the id is ours) and, when this process
    adopts orphans, every process the command left outside its group."""
    os.killpg(leader, signal.SIGKILL)
    if adopting:
        _kill_adopted(leader)


def _adopt_orphans() -> bool:
    """Make this process, for the time of one command, the reaper of its orphaned descendants,
    when that is safe: one thread and no children, so that every process it adopts is one the
    command started (and, e.g. by ``setsid``, took out of its group). True when it did."""
    if _children() != [] or _threads() != 1:
        return False
    return _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def _kill_adopted(leader: int) -> None:
    """SIGKILL and reap this process's children other than ``leader`` (adopted orphans), and
    the children they leave in turn, until there are none."""
    for _ in range(_MAX_SWEEPS):
        adopted = [pid for pid in _children() or [] if pid != leader]
        if not adopted:
            return
        for pid in adopted:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in adopted:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _children() -> list[int] | None:
    """This (single-threaded) process's children, or None where Linux does not list them."""
    pid = os.getpid()
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return None


def _threads() -> int:
    try:
        with open("/proc/self/status") as f:
            lines = [line for line in f if line.startswith("Threads:")]
    except OSError:
        return 0
    return int(lines[0].split()[1]) if lines else 0


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (ImportError, OSError, AttributeError):
        return False


def _not_runnable(program: str, cwd: str, path: str) -> tuple[int, str] | None:
    """(127 or 126, why) when ``program`` is missing or not executable, as a shell says it."""
    if "/" not in program:
        if shutil.which(program, path=path) is None:
            return 127, f"{program}: command not found\n"
        return None
    full = os.path.join(cwd, program)
    if not os.path.exists(full):
        return 127, f"{program}: No such file or directory\n"
    if os.path.isdir(full) or not os.access(full, os.X_OK):
        return 126, f"{program}: Permission denied\n"
    return None


def _watched(argv: list[str], timeout_s: float) -> list[str]:
    watchdog = shutil.which("timeout")
    if watchdog is None:
        return list(argv)
    return [watchdog, "--signal=KILL", f"{timeout_s + _WATCHDOG_GRACE_S:.3f}", *argv]


def _collect(
    proc: subprocess.Popen[bytes], deadline: float, max_output: int, adopting: bool
) -> tuple[bytes, bytes, bool, bool]:
    """(stdout, stderr, truncated, exited): the first ``max_output`` bytes of each stream,
    read until the leader has exited and both streams are closed, or until ``deadline``.
    Once the leader exits, its group (and what was adopted) is killed, so children left
    holding the pipes die."""
    assert proc.stdout is not None and proc.stderr is not None
    kept = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    truncated = exited = False
    pidfd = _pidfd(proc.pid)
    with selectors.DefaultSelector() as sel:
        for fd in kept:
            sel.register(fd, selectors.EVENT_READ)
        if pidfd is not None:  # readable when the leader exits: no polling delay
            sel.register(pidfd, selectors.EVENT_READ)
        try:
            while True:
                if not exited and _exited(proc.pid):
                    exited = True
                    _end_group(proc.pid, adopting)
                    if pidfd is not None:
                        sel.unregister(pidfd)
                left = deadline - time.monotonic()
                if (exited and not any(fd in sel.get_map() for fd in kept)) or left <= 0:
                    break
                for key, _ in sel.select(min(left, _POLL_S)):
                    if key.fd not in kept:
                        continue  # the pidfd: the leader's exit is checked above
                    chunk = os.read(key.fd, _CHUNK)
                    if not chunk:
                        sel.unregister(key.fd)
                        continue
                    buf = kept[key.fd]
                    room = max_output - len(buf)
                    truncated |= len(chunk) > room
                    buf += chunk[: max(room, 0)]
        finally:
            if pidfd is not None:
                os.close(pidfd)
    out, err = kept.values()
    return bytes(out), bytes(err), truncated, exited


def _pidfd(pid: int) -> int | None:
    """A file descriptor that becomes readable when ``pid`` exits (Linux 5.3+), else None."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _exited(pid: int) -> bool:
    """Whether ``pid`` has exited, without reaping it (so its group id stays ours)."""
    info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    return info is not None


def _result(
    code: int, out: bytes, err: bytes, timed_out: bool, truncated: bool
) -> dict[str, object]:
    return {
        "exit": code,
        "stdout": out.decode(errors="replace"),
        "stderr": err.decode(errors="replace"),
        "timed_out": timed_out,
        "truncated": truncated,
    }
