from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_times_each_case_and_checks_how_it_ended() -> None:
    out = assert_bench_runs("cli_startup.py", "--reps", "1")
    for case in (
        "vwt --help",
        "vwt run dev --help",
        "bad model: unknown provider",
        "bad model: no provider prefix",
        "bad model: missing credential",
    ):
        fastest = assert_figure(rf"{case} +([\d.]+)s", out)
        median = assert_figure(rf"{case} +[\d.]+s +([\d.]+)s", out)
        cpu = assert_figure(rf"{case} +[\d.]+s +[\d.]+s +([\d.]+)s", out)
        assert 0 < fastest <= median and cpu > 0
