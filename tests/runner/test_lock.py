"""One process at a time on a home: a second one is refused at once, naming the holder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from runner import LOCK_NAME, RunnerError, home_lock

_HOLD = """
import sys
from pathlib import Path
from runner import home_lock
with home_lock(Path(sys.argv[1])):
    print("locked", flush=True)
    sys.stdin.read()
"""


def _python(script: str, home: Path) -> subprocess.Popen[str]:
    """``script`` run with this checkout's code and ``home`` as its argument, piped."""
    return subprocess.Popen(
        [sys.executable, "-c", script, str(home)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )


@contextmanager
def held_by_another_process(home: Path) -> Iterator[subprocess.Popen[str]]:
    """A child process holding the lock of ``home`` until the block ends (or it is killed)."""
    child = _python(_HOLD, home)
    try:
        assert child.stdout is not None and child.stdout.readline() == "locked\n"
        yield child
    finally:
        child.kill()
        child.wait()


def test_a_second_process_is_refused_at_once_naming_the_holder(tmp_path: Path) -> None:
    with held_by_another_process(tmp_path) as child:
        with pytest.raises(RunnerError, match="another vwt process") as e, home_lock(tmp_path):
            pytest.fail("the lock was taken twice")
        assert str(e.value) == f"another vwt process (pid {child.pid}) is running on {tmp_path}"
        assert e.value.hint and "wait for it to finish" in e.value.hint


def test_the_lock_is_released_when_the_holder_is_killed(tmp_path: Path) -> None:
    with held_by_another_process(tmp_path) as child:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        with home_lock(tmp_path):  # no stale lock after kill -9
            assert (tmp_path / LOCK_NAME).read_text() == f"{os.getpid()}\n"


def test_the_lock_is_released_after_the_block_and_the_file_is_private(tmp_path: Path) -> None:
    with home_lock(tmp_path):
        pass
    with home_lock(tmp_path):
        assert (tmp_path / LOCK_NAME).stat().st_mode & 0o777 == 0o600


def test_a_missing_home_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="cannot open the lock file"), home_lock(tmp_path / "x"):
        pass


_HOLD_AND_FORK = """
import multiprocessing, os, signal, sys, time
from pathlib import Path
from runner import home_lock
with home_lock(Path(sys.argv[1])):
    child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
    child.start()
    print(child.pid, flush=True)
    sys.stdin.read()
"""


def test_the_lock_ends_with_its_holder_not_with_a_child_it_forked(tmp_path: Path) -> None:
    # After kill -9 of a run's process group, its forked pool workers take a moment to die;
    # a resume started at once must not be refused because one of them still exists.
    holder = _python(_HOLD_AND_FORK, tmp_path)
    assert holder.stdout is not None
    child = int(holder.stdout.readline())
    try:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        os.kill(child, 0)  # the forked child is still alive
        with home_lock(tmp_path):
            assert (tmp_path / LOCK_NAME).read_text() == f"{os.getpid()}\n"
    finally:
        os.kill(child, signal.SIGKILL)
