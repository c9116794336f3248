"""Random draws shared by every cell with the same clusters: bootstrap counts and sign patterns.

A cluster bootstrap draw picks G clusters with replacement; it is a row of counts (how often
each cluster was picked), and a cell's resampled mean is (counts @ cluster sums) / (counts @
cluster sizes). A sign-flip pattern is a row of 0/1 flags (flip the cluster or not), and the
flipped sum is total - 2 (flags @ cluster sums). So every cell resampled over the same clusters
is served by one matrix of draws and one matrix product.

The draws depend only on the release seed, the clusters' level and their sorted ids and the
number of draws: never on the cell, nor on which other cells are in the release. Two cells with
the same clusters (the same task ids, or the same families) therefore get the same draws, which
makes the retention bootstrap joint where a target ran the source's task instances, and a cell's
numbers can be recomputed from its own trials and the seed.

Sums are passed as integer-valued floats (task scores scaled by a common denominator), so the
products are exact whatever the order of summation, and a cell's numbers do not change by an ulp
with the shape of the product it was computed in.

Memory: one matrix of 8 x draws x clusters bytes per distinct clustering at a time (8 MB for
10,000 draws over 100 clusters).
"""

from __future__ import annotations

import numpy as np

from benchmark import stable_int
from reports._stats_bootstrap import ClusterLevel

_PICKS_PER_BLOCK = 1 << 21
"""Resampled cluster indices drawn at once (rows x clusters) while building a counts matrix."""


def _rng(seed: int, kind: str, level: ClusterLevel, ids: tuple[str, ...]) -> np.random.Generator:
    return np.random.default_rng([seed, stable_int(kind, level, *ids)])


def resample_counts(seed: int, level: ClusterLevel, ids: tuple[str, ...], draws: int) -> np.ndarray:
    """The ``draws`` x G matrix of bootstrap counts over the G clusters ``ids`` (floats).

    Row b counts how often each cluster was picked among G picks with replacement, drawn from
    ``default_rng([seed, stable_int("bootstrap", level, *ids)])`` as ``integers(0, G)`` in
    row-major order.
    """
    n = len(ids)
    rng = _rng(seed, "bootstrap", level, ids)
    counts = np.empty((draws, n))
    rows = max(1, _PICKS_PER_BLOCK // n)
    for start in range(0, draws, rows):
        stop = min(draws, start + rows)
        picks = rng.integers(0, n, size=(stop - start, n))
        flat = picks + n * np.arange(stop - start)[:, None]
        counts[start:stop] = np.bincount(flat.ravel(), minlength=(stop - start) * n).reshape(
            stop - start, n
        )
    return counts


def flip_patterns(seed: int, level: ClusterLevel, ids: tuple[str, ...], draws: int) -> np.ndarray:
    """The ``draws`` x G matrix of 0/1 sign-flip flags over the clusters ``ids`` (floats).

    Drawn from ``default_rng([seed, stable_int("flip", level, *ids)])`` as ``integers(0, 2)``.
    """
    rng = _rng(seed, "flip", level, ids)
    return rng.integers(0, 2, size=(draws, len(ids))).astype(float)


def row_intervals(draws: np.ndarray, confidence: float) -> np.ndarray:
    """Equal-tailed percentile interval of each row of ``draws`` (no NaN): a K x 2 array.

    The same order statistics and linear interpolation as ``numpy.quantile``'s default, found
    by one partition of all rows at the four ranks it needs.
    """
    n = draws.shape[1]
    tail = (1.0 - confidence) / 2.0
    positions = np.array([tail, 1.0 - tail]) * (n - 1)
    below = np.floor(positions).astype(np.int64)
    above = np.minimum(below + 1, n - 1)
    ranks = np.unique(np.concatenate([below, above]))
    ordered = np.partition(draws, ranks, axis=1)
    low, high = ordered[:, below], ordered[:, above]
    return low + (high - low) * (positions - below)
