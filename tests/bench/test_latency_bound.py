from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_prints_the_gateway_and_plain_http_side_by_side() -> None:
    out = assert_bench_runs(
        "latency_bound.py", "--calls", "32", "--latency", "0.05", "--concurrency", "8"
    )
    assert "calls 32, latency 0.050 s, concurrency 8, ideal 0.20 s, cores" in out
    for side in ("gateway \\(litellm\\)", "plain HTTP \\(aiohttp\\)"):
        measured = assert_figure(rf"{side}: measured ([\d.]+) s", out)
        efficiency = assert_figure(rf"{side}: .* efficiency ([\d.]+);", out)
        # the figures are printed; how fast they are is the bench's to say, not a test's (on a
        # loaded machine any bound on wall time is a coin toss)
        assert measured > 0 and efficiency > 0
    # the warm-ups (8 calls each) and both timed runs, all answered by the one server
    assert "stopped: 80 requests, 80 answered" in out
