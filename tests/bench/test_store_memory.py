from __future__ import annotations

import pytest

from tests.bench._run import figure, run_bench

pytestmark = pytest.mark.slow


def test_prints_store_and_driver_memory_per_10k_trials() -> None:
    out = run_bench("store_memory.py", "--trials", "300", "--sample-tasks", "1")
    assert "sample: 10 real trials run in process" in out
    disk = figure(r"store on disk: ([\d.]+) MiB per 10\^4 trials", out)
    records = figure(r"records ([\d.]+) MiB JSON", out)
    traces = figure(r"traces ([\d.]+) MiB compressed", out)
    # the files hold at least the records and the traces (every trace is distinct)
    assert disk >= records + traces > 0
    figure(r"driver RSS growth while storing: (-?[\d.]+) MiB per 10\^4 trials", out)
    figure(r"driver RSS growth while loading every record: (-?[\d.]+) MiB", out)
