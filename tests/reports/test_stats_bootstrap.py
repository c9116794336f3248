"""Tests of cluster grouping and the cluster bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

from reports._stats_bootstrap import bootstrap_means, group_clusters, percentile_interval


def test_one_family_resamples_tasks() -> None:
    clusters = group_clusters({"b": 0.5, "a": -1.0}, {"a": "f", "b": "f"})
    assert clusters.level == "task"
    assert clusters.ids == ("a", "b")
    assert clusters.sums.tolist() == [-1.0, 0.5]
    assert clusters.sizes.tolist() == [1.0, 1.0]


def test_two_families_resample_families() -> None:
    diffs = {"a": 1.0, "b": 0.5, "c": -0.5, "d": 0.0}
    clusters = group_clusters(diffs, {"a": "f1", "b": "f1", "c": "f2", "d": "f2"})
    assert clusters.level == "family"
    assert clusters.ids == ("f1", "f2")
    assert clusters.sums.tolist() == [1.5, -0.5]
    assert clusters.means.tolist() == [0.75, -0.25]


def test_resampled_mean_weighs_tasks_not_clusters() -> None:
    # Family A: one task with difference 1; family B: three tasks with 0. A draw of {A, B}
    # holds four tasks, so its mean is 1/4 (a mean of cluster means would give 1/2).
    diffs = {"a": 1.0, "b1": 0.0, "b2": 0.0, "b3": 0.0}
    family = {"a": "A", "b1": "B", "b2": "B", "b3": "B"}
    (draws,) = bootstrap_means(
        [group_clusters(diffs, family)], draws=4000, rng=np.random.default_rng(0)
    )
    values, counts = np.unique(draws, return_counts=True)
    assert values.tolist() == [0.0, 0.25, 1.0]
    assert counts / 4000 == pytest.approx([0.25, 0.5, 0.25], abs=0.03)


def test_bootstrap_is_deterministic_under_a_seed() -> None:
    rng = np.random.default_rng(5)
    diffs = {f"t{i}": float(v) for i, v in enumerate(rng.normal(size=50))}
    clusters = group_clusters(diffs, dict.fromkeys(diffs, "f"))
    (first,) = bootstrap_means([clusters], draws=3000, rng=np.random.default_rng(1))
    (again,) = bootstrap_means([clusters], draws=3000, rng=np.random.default_rng(1))
    (other,) = bootstrap_means([clusters], draws=3000, rng=np.random.default_rng(2))
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_groups_share_the_same_picks() -> None:
    diffs = {f"t{i}": float(i % 5) - 2 for i in range(30)}
    family = dict.fromkeys(diffs, "f")
    doubled = {t: 2 * d + 1 for t, d in diffs.items()}
    base, twice = bootstrap_means(
        [group_clusters(diffs, family), group_clusters(doubled, family)],
        draws=1000,
        rng=np.random.default_rng(0),
    )
    assert np.allclose(twice, 2 * base + 1)


def test_percentile_interval_is_equal_tailed_and_ignores_nan() -> None:
    values = np.concatenate([np.arange(1001, dtype=float), [np.nan]])
    assert percentile_interval(values, 0.9) == pytest.approx((50.0, 950.0))
