from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_prints_both_rates_and_their_ratio() -> None:
    out = assert_bench_runs("runner_overhead.py", "--tasks", "1", "--k", "1")
    # the times, printed to 0.01 s (the rates' 0.1 trials/s is too coarse to check the ratio by)
    plain = assert_figure(r"in-process loop .*: 5 trials in ([\d.]+) s = [\d.]+ trials/s", out)
    full = assert_figure(r"full runner .*: 5 trials in ([\d.]+) s = [\d.]+ trials/s", out)
    ratio = assert_figure(r"ratio runner / in-process: ([\d.]+)", out)
    assert plain > 0 and full > 0
    assert ratio == pytest.approx(plain / full, rel=0.1, abs=0.01)
    assert assert_figure(r"ratio with Ray's start-up and warm-up counted: ([\d.]+)", out) <= ratio
