from __future__ import annotations

import pytest

from tests.bench._run import figure, run_bench

pytestmark = pytest.mark.slow


def test_prints_both_rates_and_their_ratio() -> None:
    out = run_bench("runner_overhead.py", "--tasks", "1", "--k", "1")
    plain = figure(r"in-process loop .*: 5 trials in [\d.]+ s = ([\d.]+) trials/s", out)
    full = figure(r"full runner .*: 5 trials in [\d.]+ s = ([\d.]+) trials/s", out)
    ratio = figure(r"ratio runner / in-process: ([\d.]+)", out)
    assert plain > 0 and full > 0
    assert ratio == pytest.approx(full / plain, rel=0.1, abs=0.01)
    assert figure(r"ratio with Ray's start-up and warm-up counted: ([\d.]+)", out) <= ratio
