from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_prints_one_and_two_workers_and_the_speed_up() -> None:
    out = assert_bench_runs("ray_scaling.py", "--tasks", "1", "--k", "2")
    pattern = r"{} worker\(s\), best pass: 10 trials in ([\d.]+) s = [\d.]+ trials/s"
    one, two = (assert_figure(pattern.format(n), out) for n in (1, 2))
    assert "pass 1, 2 worker(s): 10 trials" in out
    speed_up = assert_figure(r"speed-up 1 → 2 workers: ([\d.]+)x", out)
    # the figure is the two times' ratio (from the seconds: the rates are rounded to 0.1,
    # coarse at a loaded machine's few trials/s); how large it is is the bench's to say
    assert one > 0 and two > 0 and speed_up == pytest.approx(one / two, rel=0.02, abs=0.01)
