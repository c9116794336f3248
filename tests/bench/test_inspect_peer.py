from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.bench._run import REPO, assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow

VENV = Path(os.environ.get("VWT_BENCH_INSPECT_VENV", REPO / ".vwt" / "bench-inspect-venv"))
"""Where the bench installs Inspect AI; the test never installs it (no network in tests)."""


def test_without_inspect_prints_vwt_alone_and_says_why(tmp_path: Path) -> None:
    out = assert_bench_runs(
        "inspect_peer.py", "--tasks", "1", "--k", "2", "--venv", str(tmp_path), "--no-install"
    )
    assert assert_figure(r"vwt \(run_batch, in process\): 2 trials in [\d.]+ s = ([\d.]+)", out) > 0
    assert f"skipped: Inspect AI is not installed in {tmp_path} (--no-install)" in out
    assert "ratio" not in out


def test_with_inspect_prints_both_rates_ratio_and_equal_outcomes() -> None:
    if not (VENV / "bin" / "python").exists():
        pytest.skip(f"Inspect AI is not installed in {VENV}: run bench/inspect_peer.py once")
    out = assert_bench_runs(
        "inspect_peer.py", "--tasks", "2", "--k", "2", "--venv", str(VENV), "--no-install"
    )
    ours = assert_figure(r"vwt \(run_batch, in process\): 4 trials in [\d.]+ s = ([\d.]+)", out)
    theirs = assert_figure(
        r"Inspect AI [\d.]+ \(eval_async\): 4 trials in [\d.]+ s = ([\d.]+)", out
    )
    ratio = assert_figure(r"ratio vwt / Inspect AI \(trials/s\): ([\d.]+)", out)
    assert ratio == pytest.approx(ours / theirs, rel=0.1, abs=0.01)
    assert "outcomes: the same on both sides" in out
