from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_prints_uploads_per_second_and_latency_with_every_upload_accepted() -> None:
    out = assert_bench_runs(
        "upload_load.py", "--uploads", "6", "--concurrency", "3", "--submitters", "2"
    )
    assert "rate limits raised for the bench" in out
    assert (
        "bundles: 6 distinct, 1.00 MiB each packed (two prompt recipes), from 2 submitters" in out
    )
    rate = assert_figure(r"uploads 6 at concurrency 3: 6 in [\d.]+ s = ([\d.]+) uploads/s", out)
    mib = assert_figure(r"uploads/s, ([\d.]+) MiB/s", out)
    p50 = assert_figure(r"latency: p50 ([\d.]+) s", out)
    p95 = assert_figure(r"p95 ([\d.]+) s", out)
    most = assert_figure(r"max ([\d.]+) s", out)
    assert rate > 0 and mib == pytest.approx(rate, rel=0.02)  # each bundle is 1 MiB
    assert 0 < p50 <= p95 <= most
    assert "statuses: 201 x6\n" in out
    # every upload is in the ledger, and the server logged each request (a line apiece)
    assert "ledger: 6 submissions stored; server logged 6 requests" in out
