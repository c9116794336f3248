"""Killing a run: the driver (kill -9 of its whole process group) or one Ray worker, at random
points. Trials reach the store as they finish, so a kill loses at most the trials in flight;
running again completes exactly the missing ones, and the result equals an uninterrupted run."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from conditions import Cycle
from reports import build_matrix
from runner import EXECUTOR_ENV, TrialRecord, store_for
from tests.vwt.test_cmd_run import closed_cycle

pytestmark = [pytest.mark.slow, pytest.mark.ray]

VWT = str(Path(sys.executable).with_name("vwt"))
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def closed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small committed cycle closed for submissions, not yet run (copied per run): two
    bundles (the empty one and a prompt recipe), 144 trials."""
    return closed_cycle(tmp_path_factory.mktemp("closed") / "home", bundles=2).home


def _start(home: Path, executor: str = "auto") -> subprocess.Popen[bytes]:
    """`vwt run frozen` in its own process group (its local Ray runtime or process pool
    included)."""
    return subprocess.Popen(
        [VWT, "run", "frozen", "--home", str(home), "--sandbox", "local", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        # this checkout's code, in Ray's workers too
        env={**os.environ, "PYTHONPATH": str(REPO), EXECUTOR_ENV: executor},
    )


def _stored(home: Path) -> int:
    db = home / "vwt.sqlite"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as c:
            return int(c.execute("SELECT COUNT(*) FROM trials").fetchone()[0])
    except sqlite3.OperationalError:  # the table is not created yet
        return 0


def _wait(run: subprocess.Popen[bytes], until: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + 300
    while not until():
        if run.poll() is not None:
            out = run.stdout.read().decode() if run.stdout else ""
            pytest.fail(f"the run ended (exit {run.returncode}) before {what}: {out[-2000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def _finish(home: Path) -> str:
    run = _start(home)
    out, _ = run.communicate(timeout=600)
    assert run.returncode == 0, out.decode()[-3000:]
    return out.decode()


def _kill_group(run: subprocess.Popen[bytes]) -> None:
    os.killpg(run.pid, signal.SIGKILL)
    run.wait(timeout=60)
    if run.stdout:
        run.stdout.close()


def _batch_workers(driver: int, executor: str) -> list[int]:
    """Pids of the processes running batches: Ray workers (Ray names the process after its
    task), or the driver's forked pool processes."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if b"ray::stream_batch" in cmdline if executor == "ray" else parent == driver:
            pids.append(int(entry.name))
    return pids


def _copy(closed: Path, to: Path) -> Path:
    return Path(shutil.copytree(closed, to))


def _outcomes(records: list[TrialRecord]) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    return {r.key: (r.outcome, r.trace_sha256, r.verifier_reasons) for r in records}


def assert_same_as_uninterrupted(home: Path, reference: Path) -> None:
    """Every planned trial stored once and valid, with the uninterrupted run's outcomes and
    traces, and the same matrix from them."""
    store = store_for(home)
    records, expected = store.records("frozen"), store_for(reference).records("frozen")
    assert _outcomes(records) == _outcomes(expected)
    attempts = store.attempts("frozen")
    assert len({(r.key, r.attempt) for r in attempts}) == len(attempts)  # no duplicate
    assert all(r.outcome != "invalid" for r in records)
    cycle = Cycle.open(home)
    conditions = dict(cycle.evaluation_conditions())
    cells = build_matrix(records, conditions=conditions, source_id=cycle.source.id)
    again = build_matrix(expected, conditions=conditions, source_id=cycle.source.id)
    assert [c.metrics for c in cells] == [c.metrics for c in again]


@pytest.fixture(scope="module")
def uninterrupted(closed: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = _copy(closed, tmp_path_factory.mktemp("whole") / "home")
    _finish(home)
    return home


def test_kill_9_of_the_driver_at_random_points_loses_nothing_and_duplicates_nothing(
    closed: Path, uninterrupted: Path, tmp_path: Path
) -> None:
    planned = len(store_for(uninterrupted).records("frozen"))
    home = _copy(closed, tmp_path / "home")
    rng = random.Random(20261201)
    stored_before = 0
    for _ in range(2):  # two kills in a row, each after a random number of stored trials
        at = stored_before + rng.randint(1, max(1, (planned - stored_before) // 2))
        run = _start(home)
        _wait(run, lambda at=at: _stored(home) >= at, f"{at} stored trials")
        _kill_group(run)
        stored_now = _stored(home)
        assert stored_now >= stored_before
        stored_before = stored_now
    assert stored_before < planned, "the kills came too late to test anything"
    out = _finish(home)
    assert f'"already_stored": {stored_before}' in out
    assert_same_as_uninterrupted(home, uninterrupted)


@pytest.mark.parametrize("executor", ["ray", "local"])
def test_a_killed_worker_loses_only_its_trials_in_flight_which_are_run_again(
    closed: Path, uninterrupted: Path, tmp_path: Path, executor: str
) -> None:
    home = _copy(closed, tmp_path / "home")
    run = _start(home, executor)
    _wait(
        run,
        lambda: _stored(home) >= 1 and bool(_batch_workers(run.pid, executor)),
        "a running batch",
    )
    victim = _batch_workers(run.pid, executor)[0]
    os.kill(victim, signal.SIGKILL)
    out, _ = run.communicate(timeout=600)
    text = out.decode()
    assert run.returncode == 0, text[-3000:]
    assert_same_as_uninterrupted(home, uninterrupted)


def test_ctrl_c_stores_what_finished_says_how_to_resume_and_the_resume_completes(
    closed: Path, uninterrupted: Path, tmp_path: Path
) -> None:
    home = _copy(closed, tmp_path / "home")
    run = _start(home)
    _wait(run, lambda: _stored(home) >= 1, "a stored trial")
    os.killpg(run.pid, signal.SIGINT)  # what a terminal sends its foreground group
    out, _ = run.communicate(timeout=120)
    text = out.decode()
    assert run.returncode == 2, text[-3000:]
    assert "interrupted:" in text and "trials of this run are stored" in text, text[-3000:]
    assert "run the same command again" in text
    stored = _stored(home)
    assert f'"already_stored": {stored}' in _finish(home)
    assert_same_as_uninterrupted(home, uninterrupted)


def test_sigterm_ends_the_run_with_one_line_and_the_resume_completes(
    closed: Path, uninterrupted: Path, tmp_path: Path
) -> None:
    # SIGTERM is what `kill`, `timeout` and service managers send. Ray's own handler printed
    # pages of stack traces and ended the driver before it stored what had finished.
    home = _copy(closed, tmp_path / "home")
    run = _start(home, "ray")
    _wait(run, lambda: _stored(home) >= 1, "a stored trial")
    os.kill(run.pid, signal.SIGTERM)
    out, _ = run.communicate(timeout=120)
    lines = out.decode().strip().splitlines()
    assert run.returncode == 2, lines[-40:]
    assert len(lines) == 2, lines[:40]
    error, hint = lines
    assert error.startswith("error: interrupted: ") and "trials of this run are stored" in error
    assert hint.startswith("hint: run the same command again")
    stored = _stored(home)
    assert f'"already_stored": {stored}' in _finish(home)
    assert_same_as_uninterrupted(home, uninterrupted)
