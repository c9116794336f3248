"""Tests of the draws shared by cells with the same clusters."""

from __future__ import annotations

import numpy as np
import pytest

from reports._stats_bootstrap import percentile_interval
from reports._stats_shared import flip_patterns, resample_counts, row_intervals


def test_counts_are_resamples_of_the_clusters_keyed_by_seed_and_ids() -> None:
    ids = ("a", "b", "c", "d", "e")
    counts = resample_counts(3, "task", ids, 4000)
    assert counts.shape == (4000, 5)
    assert (counts.sum(axis=1) == 5).all() and (counts >= 0).all()
    # Each cluster is picked once per draw on average; the draws are not all alike.
    assert counts.mean(axis=0) == pytest.approx(np.ones(5), abs=0.05)
    assert len({row.tobytes() for row in counts}) > 100
    assert np.array_equal(resample_counts(3, "task", ids, 4000), counts)
    for other in ((4, "task", ids), (3, "family", ids), (3, "task", ("a", "b", "c", "d", "f"))):
        assert not np.array_equal(resample_counts(*other, 4000), counts)


def test_counts_do_not_depend_on_the_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    ids = tuple(f"t{i}" for i in range(7))
    whole = resample_counts(1, "task", ids, 300)
    monkeypatch.setattr("reports._stats_shared._PICKS_PER_BLOCK", 20)
    assert np.array_equal(resample_counts(1, "task", ids, 300), whole)


def test_flip_patterns_are_fair_coins_keyed_like_the_counts() -> None:
    ids = ("f1", "f2", "f3")
    flags = flip_patterns(2, "family", ids, 5000)
    assert set(np.unique(flags)) == {0.0, 1.0}
    assert flags.mean(axis=0) == pytest.approx(np.full(3, 0.5), abs=0.03)
    assert np.array_equal(flip_patterns(2, "family", ids, 5000), flags)
    assert not np.array_equal(flip_patterns(2, "task", ids, 5000), flags)


@pytest.mark.parametrize("draws", [100, 137, 1000, 10_000])
def test_row_intervals_are_each_row_s_percentile_interval(draws: int) -> None:
    rng = np.random.default_rng(draws)
    values = rng.integers(-40, 40, size=(30, draws)) / 12.0
    got = row_intervals(values, 0.9)
    want = np.array([percentile_interval(row, 0.9) for row in values])
    assert got == pytest.approx(want, abs=1e-15)
