"""bench/spawn_cost.py prints what starting a local-sandbox command costs, each way."""

from __future__ import annotations

import os

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_prints_each_way_to_start_a_command_and_its_cost() -> None:
    out = assert_bench_runs("spawn_cost.py", "--reps", "3", "--resident", "64")
    assert "3 starts of `true` each" in out
    ways = ["as this user"]
    if os.geteuid() == 0:
        ways += ["as nobody through user="]
        if "no setpriv" not in out:
            ways += ["as nobody through setpriv"]
    for way in ways:
        median = assert_figure(rf"{way} +median +([\d.]+) ms", out)
        p90 = assert_figure(rf"{way} +median +[\d.]+ ms +p90 +([\d.]+) ms", out)
        cpu = assert_figure(rf"{way} +median .* cpu +([\d.]+) ms", out)
        assert 0 < median <= p90 and cpu >= 0
