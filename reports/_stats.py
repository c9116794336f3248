"""Pure significance tests of the transfer matrix: cluster sign-flip, sign test, BH, pass^k."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from reports.errors import ReportError

EXACT_LIMIT = 20
"""Up to this many non-zero clusters the sign-flip test enumerates every pattern (2^20)."""

_MC_CELLS = 250_000
"""Sign draws held in memory at once (rows x clusters) in the Monte Carlo sign-flip test."""

FlipMethod = Literal["exact", "monte_carlo"]


class FlipTest(NamedTuple):
    """Result of the one-sided cluster sign-flip test."""

    p: float
    """p-value of H0 "mean gain >= 0" against "mean gain < 0", floored at 1/(draws+1)."""
    method: FlipMethod
    """``exact`` (all 2^n sign patterns) or ``monte_carlo`` (``draws`` seeded patterns)."""
    n_nonzero: int
    """Clusters with a non-zero mean difference; zero clusters do not change the p-value."""


def sign_flip_pvalue(
    cluster_means: ArrayLike,
    cluster_sizes: ArrayLike,
    *,
    draws: int,
    rng: np.random.Generator,
    exact_limit: int = EXACT_LIMIT,
) -> FlipTest:
    """One-sided cluster sign-flip test of H0: mean gain >= 0 against H1: mean gain < 0.

    The sign of each cluster's mean difference is flipped; the statistic is the task-weighted
    mean gain (cluster mean x cluster size, summed), so it equals the reported gain. Clusters
    whose mean difference is 0 are dropped first: flipping them changes nothing, and every
    pattern count doubles alike. With n <= ``exact_limit`` non-zero clusters all 2^n patterns
    are enumerated (p = share of patterns with statistic <= observed, ties included); beyond,
    ``draws`` patterns come from ``rng`` and p = (1 + hits) / (draws + 1). Both are floored at
    1/(draws + 1) so the same rule holds for every cell; for an exact test this floor only binds
    when 2^n > draws + 1, where it makes the p-value slightly conservative.
    """
    weighted = np.asarray(cluster_means, dtype=float) * np.asarray(cluster_sizes, dtype=float)
    weighted = weighted[weighted != 0.0]
    observed = float(weighted.sum())
    # Task differences are ratios of small integers, so ties are common and must count as
    # ties despite summation-order rounding.
    tol = 1e-9 * max(1.0, float(np.abs(weighted).sum()))
    if len(weighted) <= exact_limit:
        return FlipTest(exact_flip_p(weighted, observed + tol, draws), "exact", len(weighted))
    hits = _monte_carlo_hits(weighted, observed + tol, draws, rng)
    return FlipTest(monte_carlo_flip_p(hits, draws), "monte_carlo", len(weighted))


def exact_flip_p(values: np.ndarray, threshold: float, draws: int) -> float:
    """Share of all 2^n sign patterns of ``values`` whose sum is <= ``threshold``, floored at
    1/(``draws`` + 1) like the Monte Carlo p-value."""
    sums = _all_signed_sums(values)
    return max(float(np.count_nonzero(sums <= threshold)) / len(sums), 1.0 / (draws + 1))


def monte_carlo_flip_p(hits: int, draws: int) -> float:
    """The Monte Carlo p-value (1 + hits) / (draws + 1) of ``hits`` among ``draws`` patterns."""
    return (1 + hits) / (draws + 1)


def _all_signed_sums(values: np.ndarray) -> np.ndarray:
    """The 2^n sums of ``values`` under every sign pattern (O(2^n) time and memory)."""
    sums = np.zeros(1)
    for value in values:
        sums = np.concatenate([sums + value, sums - value])
    return sums


def _monte_carlo_hits(
    values: np.ndarray, threshold: float, draws: int, rng: np.random.Generator
) -> int:
    """How many of ``draws`` random sign patterns give a sum <= ``threshold``."""
    rows = max(1, _MC_CELLS // len(values))
    hits = 0
    for start in range(0, draws, rows):
        signs = rng.integers(0, 2, size=(min(rows, draws - start), len(values)), dtype=np.int8)
        # A pattern's sum is total - 2 * (sum of the flipped values).
        sums = values.sum() - 2.0 * (signs @ values)
        hits += int(np.count_nonzero(sums <= threshold))
    return hits


def binomial_sign_test(wins: int, losses: int) -> float:
    """Exact one-sided sign-test p-value that the artifact arm wins more often than it loses.

    P(X >= wins) for X ~ Binomial(wins + losses, 1/2); ties are excluded beforehand. With no
    discordant task the p-value is 1.
    """
    if wins < 0 or losses < 0:
        raise ReportError(f"sign test needs non-negative counts, got {wins} wins, {losses} losses")
    n = wins + losses
    tail = sum(math.comb(n, i) for i in range(wins, n + 1))
    return tail / 2**n


def benjamini_hochberg(pvalues: Sequence[float], q: float = 0.05) -> list[bool]:
    """Benjamini-Hochberg step-up decisions at false-discovery rate ``q``, in input order.

    With p-values sorted ascending p_(1) <= ... <= p_(m), reject the hypotheses of rank
    1..i* where i* is the largest i with p_(i) <= i q / m (none if there is no such i).
    """
    if not 0.0 < q <= 1.0:
        raise ReportError(f"FDR level q must be in (0, 1], got {q}", hint="use e.g. q = 0.05")
    p = np.asarray(pvalues, dtype=float)
    if np.any(~np.isfinite(p)) or np.any((p < 0.0) | (p > 1.0)):
        raise ReportError("p-values must lie in [0, 1]", hint="check the cells' p_negative")
    m = len(p)
    order = np.argsort(p, kind="stable")
    # Compare p * m <= i * q rather than dividing, so boundary cases are decided exactly.
    passing = np.nonzero(p[order] * m <= np.arange(1, m + 1) * q)[0]
    reject = np.zeros(m, dtype=bool)
    if len(passing):
        reject[order[: passing[-1] + 1]] = True
    return [bool(r) for r in reject]


def pass_hat_k(successes: Sequence[int], trials: Sequence[int]) -> list[float]:
    """pass^k for k = 1..min(trials): per task C(c,k)/C(n,k), averaged over tasks.

    C(c,k)/C(n,k) = prod_{j<k} (c-j)/(n-j) is the chance that k trials drawn without
    replacement from the task's n valid trials all succeed. Element k-1 of the result is pass^k.
    """
    c = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if len(c) != len(n) or len(n) == 0:
        raise ReportError("pass^k needs one success count and one trial count per task")
    if np.any(n < 1) or np.any(c < 0) or np.any(c > n):
        raise ReportError("pass^k needs 0 <= successes <= trials and trials >= 1 on every task")
    per_task = np.ones_like(c)
    result: list[float] = []
    for j in range(int(n.min())):
        per_task = per_task * np.clip(c - j, 0.0, None) / (n - j)
        result.append(float(per_task.mean()))
    return result
