from __future__ import annotations

import os

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_prints_the_gateway_and_plain_http_side_by_side() -> None:
    out = assert_bench_runs(
        "latency_bound.py", "--calls", "32", "--latency", "0.05", "--concurrency", "8"
    )
    assert "calls 32, latency 0.050 s, concurrency 8, ideal 0.20 s, cores" in out
    sides = (
        "gateway \\(litellm\\), one process",
        f"gateway, {os.cpu_count()} worker processes",
        "plain HTTP \\(aiohttp\\)",
    )
    for side in sides:
        measured = assert_figure(rf"{side}: measured ([\d.]+) s", out)
        efficiency = assert_figure(rf"{side}: .* efficiency ([\d.]+);", out)
        # nothing beats the latency: every call waits 50 ms, at most 8 at a time
        assert measured >= 0.2 and efficiency == pytest.approx(0.2 / measured, abs=0.01)
    # the warm-ups (8 calls; each worker process its share of 8) and the three timed runs
    cores = os.cpu_count() or 1
    served = 8 + cores * max(1, 8 // cores) + 8 + 3 * 32
    assert f"stopped: {served} requests, {served} answered" in out
