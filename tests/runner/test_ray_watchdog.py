"""No Ray process outlives a driver killed with SIGKILL: the watchdog tied to the driver's life
ends the runtime's processes (Ray's dashboard and runtime-env agents stayed a minute)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from runner import _ray_watchdog

REPO = Path(__file__).resolve().parents[2]

# Ray's agents, left alone, exit 60 s after their raylet (a fixed timeout reporting its death to
# the dead GCS): waiting less than that for them to be gone tells the two outcomes apart.
GONE_WITHIN_S = 45.0


def _identity(pid: int) -> tuple[int, str] | None:
    """(pid, start time) of a live process (not a zombie), or None."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    return None if fields[0] in "ZX" else (pid, fields[19])


def _descendants(pid: int) -> list[tuple[int, str]]:
    """Identities of every live descendant of ``pid``."""
    found: list[tuple[int, str]] = []
    todo = [pid]
    while todo:
        for kid in _ray_watchdog._children(todo.pop()):
            if (ident := _identity(kid)) is not None:
                found.append(ident)
                todo.append(kid)
    return found


def _names(idents: list[tuple[int, str]]) -> list[bytes]:
    return [_ray_watchdog._cmdline(pid).split(b"\0")[0] for pid, _ in idents]


def _wait_gone(idents: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Wait until none of ``idents`` is alive (at most :data:`GONE_WITHIN_S`); those left."""
    deadline = time.monotonic() + GONE_WITHIN_S
    while (left := [i for i in idents if _identity(i[0]) == i]) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def test_the_watchdog_ends_the_sessions_tree_and_nothing_else(tmp_path: Path) -> None:
    session = str(tmp_path / "session_x")
    # a "raylet" naming the session directory, with a child of its own (an "agent")
    spawn = "import subprocess, sys, time; subprocess.Popen(['sleep', '600']); time.sleep(600)"
    raylet = subprocess.Popen([sys.executable, "-c", spawn, f"--session-dir={session}"])
    other = subprocess.Popen(["sleep", "600"])  # this process's, not the session's
    try:
        while len(_ray_watchdog._children(raylet.pid)) < 1:
            time.sleep(0.05)
        tree = _descendants(raylet.pid)
        watched = [_identity(raylet.pid), *tree]
        assert sorted(_ray_watchdog.session_processes(session)) == sorted(
            i[0] for i in watched if i
        )
        watchdog = _ray_watchdog.watch(session)
        assert watchdog is not None and watchdog.poll() is None
        assert _identity(raylet.pid) is not None and all(_identity(p) == (p, s) for p, s in tree)
        _ray_watchdog.stop(watchdog)  # as a driver's death closes the pipe
        assert watchdog.returncode == 0
        assert raylet.wait(timeout=60) == -signal.SIGKILL
        assert _wait_gone(tree) == []
        assert other.poll() is None
    finally:
        for proc in (raylet, other):
            proc.kill()
            proc.wait()


def test_no_watchdog_when_nothing_names_the_session(tmp_path: Path) -> None:
    assert _ray_watchdog.watch(str(tmp_path / "no_such_session")) is None


_DRIVER = textwrap.dedent(
    """
    import os, sys, time
    import ray
    from runner import start_ray

    start_ray(num_cpus=1)
    print(ray.get(ray.remote(lambda: os.getpid()).remote()), flush=True)  # a worker started
    print("ready", flush=True)
    time.sleep(600)
    """
)


@pytest.mark.slow
def test_a_driver_killed_with_sigkill_leaves_no_ray_process_of_its_session() -> None:
    driver = subprocess.Popen(
        [sys.executable, "-c", _DRIVER],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0"},
    )
    try:
        assert driver.stdout is not None
        for line in driver.stdout:  # until "ready", or the end if the driver fails
            if line.strip() == "ready":
                break
        assert driver.poll() is None, "the driver ended before Ray was up"
        session = _descendants(driver.pid)
        names = _names(session)
    finally:
        driver.kill()
        driver.wait()
    assert b"ray::DashboardAgent" in names and b"ray::RuntimeEnvAgent" in names, names
    assert any(n.endswith(b"raylet") for n in names) and b"ray::IDLE" in names, names
    left = _wait_gone(session)
    assert left == [], _names(left)
