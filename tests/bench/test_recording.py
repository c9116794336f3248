"""bench/recording.py prints the CPU and bytes recording adds per trial."""

from __future__ import annotations

import pytest

from tests.bench._run import assert_bench_runs, assert_figure

pytestmark = pytest.mark.slow


def test_the_recording_bench_prints_cpu_and_bytes_per_trial() -> None:
    out = assert_bench_runs("recording.py", "--tasks", "1", "--k", "1", "--rounds", "1")
    assert assert_figure(r"CPU per trial \(5 trials, best of 1\): ([\d.]+) ms without", out) > 0
    assert assert_figure(r"ms without recording, ([\d.]+) ms with", out) > 0
    plain = out.replace(",", "")
    without = assert_figure(r"store bytes per trial: (\d+) without", plain)
    with_calls = assert_figure(r"without call records (\d+) with", plain)
    assert with_calls > without  # the call records take room
    assert assert_figure(r"(\d+) distinct blobs", out) > 0
