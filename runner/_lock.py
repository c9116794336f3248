"""One process at a time on a home: an exclusive lock on a file naming the holder's pid.

The lock is ``flock`` on ``HOME/vwt.lock``: the kernel releases it when the holder exits,
however it exits (kill -9 included), so a stale lock file never blocks a resume. A process
forked while the lock is held (a process pool's worker) closes its copy of the descriptor, so
the lock ends with the holder, not with the last of its children still dying after a kill.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from runner.errors import RunnerError

LOCK_NAME = "vwt.lock"

_HELD: set[int] = set()
"""Descriptors of the locks this process holds."""


def _drop_in_child() -> None:
    """In a forked child: close the inherited lock descriptors (the parent keeps its own)."""
    for fd in _HELD:
        with suppress(OSError):
            os.close(fd)
    _HELD.clear()


os.register_at_fork(after_in_child=_drop_in_child)


@contextmanager
def home_lock(home: Path) -> Iterator[None]:
    """Hold the lock of ``home`` (an existing directory) for the ``with`` block.

    Raises RunnerError at once, without waiting, if another process holds it.
    """
    path = home / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as e:
        raise RunnerError(
            f"cannot open the lock file {path}: {e.strerror or e}",
            "check that the home directory exists and is writable by you",
        ) from e
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            pid = f"pid {holder}" if holder.isdigit() else "pid unknown"
            raise RunnerError(
                f"another vwt process ({pid}) is running on {home}",
                "wait for it to finish (or stop it), then run the command again; "
                "stored trials are kept",
            ) from None
        _HELD.add(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        _HELD.discard(fd)
        os.close(fd)  # closing the descriptor releases the lock
