from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_prints_one_and_two_workers_and_the_speed_up() -> None:
    out = assert_bench_runs("ray_scaling.py", "--tasks", "1", "--k", "2")
    one = assert_figure(r"1 worker\(s\), best pass: 10 trials in [\d.]+ s = ([\d.]+) trials/s", out)
    two = assert_figure(r"2 worker\(s\), best pass: 10 trials in [\d.]+ s = ([\d.]+) trials/s", out)
    assert "pass 1, 2 worker(s): 10 trials" in out
    speed_up = assert_figure(r"speed-up 1 → 2 workers: ([\d.]+)x", out)
    assert speed_up == pytest.approx(two / one, rel=0.1, abs=0.01)
