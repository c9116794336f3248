"""bench/server_import.py prints what importing the MCP SDK costs a server, bare and whole."""

from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_prints_the_import_cost_bare_and_whole_per_sandbox() -> None:
    out = assert_bench_runs("server_import.py", "--reps", "2")
    assert "2 fresh interpreters per sandbox and way" in out
    kinds = ["local"] + (["docker"] if "is present" in out else [])
    for kind in kinds:
        modules = {}
        for way in ("bare", "whole"):
            median = assert_figure(rf"{kind} +{way} +median +([\d.]+) ms", out)
            p90 = assert_figure(rf"{kind} +{way} +median +[\d.]+ ms +p90 +([\d.]+) ms", out)
            modules[way] = assert_figure(rf"{kind} +{way} +median .* modules +(\d+)", out)
            assert 0 < median <= p90
        assert modules["bare"] < modules["whole"]  # the bare import loads fewer modules
