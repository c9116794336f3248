"""Progress of a run: a labelled bar on a terminal, plain lines every 10 s in a log file."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from submissions import reference_dir
from vwt import _common
from vwt._common import PLAIN_PROGRESS_EVERY, PlainProgress, trial_progress


class FakeClock:
    """A clock the test moves: no sleeping, no timing."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _plain(clock: FakeClock) -> tuple[PlainProgress, io.StringIO]:
    out = io.StringIO()
    return PlainProgress("frozen trials", Console(file=out, width=200), clock=clock), out


def test_plain_progress_reports_at_once_then_every_ten_seconds_and_at_the_end() -> None:
    clock = FakeClock()
    progress, out = _plain(clock)
    progress(0, 120)  # the runner's first report: the total, before anything ran
    assert out.getvalue() == "frozen trials: 0/120 (0%) · elapsed 0:00:00\n"
    clock.now += 4
    progress(8, 120)
    clock.now += PLAIN_PROGRESS_EVERY - 5  # 9 s after the first line: not yet
    progress(20, 120)
    assert out.getvalue().count("\n") == 1
    clock.now += 1
    progress(24, 120)
    second = out.getvalue().splitlines()[1]
    # 24 done 6 s after the first trial finished: 4.0/s, 96 left, 24 s
    assert second == "frozen trials: 24/120 (20%) · elapsed 0:00:10 · 4.0/s · ETA 0:00:24"
    clock.now += 2
    progress(120, 120)  # the last is always shown, however soon
    assert out.getvalue().splitlines()[2] == "frozen trials: 120/120 (100%) · elapsed 0:00:12"
    progress(120, 120)
    assert out.getvalue().count("\n") == 3


def test_a_terminal_bar_labels_elapsed_and_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    terminal = Console(file=out, force_terminal=True, width=140)
    monkeypatch.setattr(_common, "console", terminal)
    with trial_progress("dev trials") as report:
        report(0, 10)
        report(3, 10)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert "dev trials" in text and "3/10" in text
    assert re.search(r"elapsed \d:\d\d:\d\d", text) and "ETA" in text
    assert " left" not in text  # the old bar put 'left' after the elapsed time


def test_output_that_is_not_a_terminal_gets_plain_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    monkeypatch.setattr(_common, "console", Console(file=out, width=200))
    with trial_progress("adapted trials") as report:
        report(0, 4)
        report(4, 4)
    assert out.getvalue().splitlines() == [
        "adapted trials: 0/4 (0%) · elapsed 0:00:00",
        out.getvalue().splitlines()[1],
    ]
    assert out.getvalue().splitlines()[1].startswith("adapted trials: 4/4 (100%) · elapsed ")


@pytest.mark.slow
def test_a_run_writes_its_progress_into_a_log_file(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    args = ["run", "dev", "--sandbox", "local", "--home", str(tmp_path / "dev")]
    args += ["--submission", str(reference_dir("typed-skill")), "--tasks", "2", "--k", "1"]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "RAY_USAGE_STATS_ENABLED": "0"}
    with log.open("w") as f:
        done = subprocess.run(
            [sys.executable, "-m", "vwt", *args],
            stdout=f,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            timeout=900,
        )
    assert done.returncode == 0, done.stderr
    lines = log.read_text().splitlines()
    progress = [line for line in lines if line.startswith("dev trials: ")]
    assert progress[0] == "dev trials: 0/4 (0%) · elapsed 0:00:00"
    assert progress[-1].startswith("dev trials: 4/4 (100%) · elapsed ")
    assert lines.index(progress[-1]) < next(i for i, x in enumerate(lines) if "gain" in x)
