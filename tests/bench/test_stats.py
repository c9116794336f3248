"""The statistics benches run as their users run them, at a small size."""

from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_the_calibration_prints_every_table() -> None:
    out = assert_bench_runs(
        "stats_calibration.py", "--reps", "60", "--bootstrap", "50",
        "--only", "coverage,strata,negative,critical,fdr,retention,mde",
    )  # fmt: skip
    for heading in ("1. coverage", "2. family sets", "3. negative", "4. CRITICAL", "5. BH", "6. r"):
        assert heading in out
    low = assert_figure(r"floored t\s+([\d.]+) - [\d.]+", out)
    assert 0.0 <= low <= 1.0
    assert_figure(r"size, 24 tasks x k = 3, independent b 0.50: ([\d.]+)", out)
    assert_figure(r"24x3 ([\d.]+)", out)


def test_the_speed_bench_prints_wall_and_cpu_time() -> None:
    out = assert_bench_runs("stats_speed.py", "--cells", "20", "--tasks", "20", "--repeats", "1")
    assert_figure(r"build_matrix \(everything per cell\), CPU\s+first\s+([\d.]+) s", out)
