"""Top-level clusters of a cell and the vectorised cluster bootstrap of its mean gain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

ClusterLevel = Literal["family", "task"]

_BOOT_CELLS = 250_000
"""Resampled cluster indices held in memory at once (rows x clusters)."""


@dataclass(frozen=True)
class Clusters:
    """Per-cluster sums of task differences and task counts of one cell, in a fixed order."""

    ids: tuple[str, ...]
    """Cluster ids (family ids, or task ids when the cell spans one family), sorted."""
    level: ClusterLevel
    """Whether the clusters are families or single tasks."""
    sums: np.ndarray
    """Sum over the cluster's tasks of (score_with - score_without)."""
    sizes: np.ndarray
    """Number of tasks in the cluster."""

    @property
    def means(self) -> np.ndarray:
        """Cluster-level mean differences."""
        return self.sums / self.sizes


def group_clusters(diffs: Mapping[str, float], family: Mapping[str, str]) -> Clusters:
    """Group task differences into top-level clusters.

    Families are the clusters where the tasks span at least two families; otherwise each task
    is its own cluster. Trials stay nested inside their task's difference.
    """
    families = {family[t] for t in diffs}
    level: ClusterLevel = "family" if len(families) >= 2 else "task"
    key = {t: (family[t] if level == "family" else t) for t in diffs}
    ids = tuple(sorted(set(key.values())))
    position = {cid: i for i, cid in enumerate(ids)}
    sums = np.zeros(len(ids))
    sizes = np.zeros(len(ids))
    for task, diff in diffs.items():
        sums[position[key[task]]] += diff
        sizes[position[key[task]]] += 1
    return Clusters(ids, level, sums, sizes)


def bootstrap_means(
    groups: Sequence[Clusters], *, draws: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Task-weighted mean difference of each group under ``draws`` cluster resamples.

    Every draw picks len(ids) clusters with replacement; the same picks apply to every group,
    which must therefore share one cluster order (a joint bootstrap). A draw's mean is
    (sum of picked cluster sums) / (sum of picked cluster sizes), so tasks keep equal weight.
    """
    n = len(groups[0].ids)
    out = [np.empty(draws) for _ in groups]
    rows = max(1, _BOOT_CELLS // n)
    for start in range(0, draws, rows):
        stop = min(draws, start + rows)
        picks = rng.integers(0, n, size=(stop - start, n))
        for group, values in zip(groups, out, strict=True):
            values[start:stop] = group.sums[picks].sum(axis=1) / group.sizes[picks].sum(axis=1)
    return out


def percentile_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Equal-tailed percentile interval of bootstrap ``values`` (NaN draws are ignored)."""
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.nanquantile(values, [tail, 1.0 - tail])
    return float(lo), float(hi)
