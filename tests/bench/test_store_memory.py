from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_prints_store_and_driver_memory_per_10k_trials() -> None:
    out = assert_bench_runs("store_memory.py", "--trials", "300", "--sample-tasks", "1")
    assert "sample: 10 real trials run in process" in out
    disk = assert_figure(r"store on disk: ([\d.]+) MiB per 10\^4 trials", out)
    records = assert_figure(r"records ([\d.]+) MiB JSON", out)
    traces = assert_figure(r"traces ([\d.]+) MiB compressed", out)
    # the files hold at least the records and the traces (every trace is distinct)
    assert disk >= records + traces > 0
    assert_figure(r"driver RSS growth while storing: (-?[\d.]+) MiB per 10\^4 trials", out)
    assert_figure(r"driver RSS growth while loading every record: (-?[\d.]+) MiB", out)
