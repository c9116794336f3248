"""A watchdog tied to the driver's lifetime: it ends a local Ray runtime's processes when the
process that started the runtime dies without stopping it (kill -9, the OOM killer).

The GCS and the raylet die with the driver (Ray starts them to share its fate), but the raylet's
dashboard and runtime-env agents do not: they see their raylet gone at once, then spend a minute
(a fixed 60 s timeout in Ray) trying to report that to the dead GCS before they exit. Ray has no
option that leaves them out, so the watchdog ends them.

The watchdog is a separate process (this file, run by path with the standard library only) that
holds a pidfd of every process of the session, taken while the driver is alive, and the read end
of a pipe whose only write end is the driver's. When that end closes (the driver is gone, however
it ended, or it started a new runtime), the watchdog sends SIGKILL through each pidfd and exits. A
pidfd names one process, not a number: a process that has exited and whose pid was given to
another is never signalled.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path


def _children(pid: int) -> list[int]:
    """The pids of ``pid``'s children (none when it has exited)."""
    kids: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                kids += [int(k) for k in (task / "children").read_text().split()]
    return kids


def _cmdline(pid: int) -> bytes:
    """The command line of ``pid``, or nothing when it has exited."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def session_processes(session_dir: str, driver: int | None = None) -> list[int]:
    """The pids of the Ray runtime the driver (this process by default) started for
    ``session_dir``: its children that name that directory on their command line (GCS, raylet,
    monitors) and all their descendants (the raylet's agents and workers)."""
    marker = session_dir.encode()
    found = [p for p in _children(driver or os.getpid()) if marker in _cmdline(p)]
    for pid in found:  # grows as it goes: a breadth-first walk down the tree
        found += [k for k in _children(pid) if k not in found]
    return found


def watch(session_dir: str) -> subprocess.Popen[bytes] | None:
    """Start a watchdog over the processes of ``session_dir``'s runtime, which this process
    started; :func:`stop` ends it. None where processes cannot be held by pidfd (not Linux, or
    a kernel before 5.3) or none is left to hold.
    """
    if not hasattr(os, "pidfd_open"):
        return None
    fds: dict[int, int] = {}
    for pid in session_processes(session_dir):
        with contextlib.suppress(OSError):  # exited already: nothing to end
            fds[pid] = os.pidfd_open(pid)
    # A pid that exited and went to another process between the walk and its pidfd is not in
    # the session's tree any more: found again, the pidfd holds the process that was walked.
    again = set(session_processes(session_dir))
    for pid in [p for p in fds if p not in again]:
        os.close(fds.pop(pid))
    if not fds:
        return None
    try:
        watchdog = subprocess.Popen(
            [sys.executable, "-I", "-S", __file__, *map(str, fds.values())],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=list(fds.values()),
            # its own session: Ctrl-C or a signal to the driver's group must not end it first
            start_new_session=True,
        )
    except OSError:
        return None  # no watchdog: the agents end on their own, a minute later
    finally:
        for fd in fds.values():
            os.close(fd)
    assert watchdog.stdin is not None
    # a child forked from this process drops its copy of the write end: the watchdog follows
    # this process's life, not the child's
    os.register_at_fork(after_in_child=watchdog.stdin.close)
    return watchdog


def stop(watchdog: subprocess.Popen[bytes] | None) -> None:
    """Close the watchdog's pipe, so it ends what is left of the runtime it watched (nothing,
    after ``ray.shutdown()``), and reap it."""
    if watchdog is None:
        return
    assert watchdog.stdin is not None
    with contextlib.suppress(OSError):
        watchdog.stdin.close()
    with contextlib.suppress(subprocess.TimeoutExpired):
        watchdog.wait(timeout=30)


def main(fds: list[int]) -> None:
    """The watchdog: wait for the end of the driver's pipe (standard input), then SIGKILL
    every process a pidfd of ``fds`` holds."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while os.read(0, 4096):
        pass
    for fd in fds:
        with contextlib.suppress(OSError):  # exited already
            signal.pidfd_send_signal(fd, signal.SIGKILL)


if __name__ == "__main__":
    main([int(fd) for fd in sys.argv[1:]])
