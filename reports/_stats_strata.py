"""The t-interval over tasks, stratified by task family, with a floor on its standard error.

A cell's tasks are drawn from the families its condition names; the families are fixed by the
catalogue, not sampled, so they are strata: each family's mean is estimated from its own tasks
and the cell's mean weighs them by their task counts (tasks weigh equally). With one family this
is the textbook t-interval over task values.

Values are passed as integers (task scores or differences scaled by a common denominator), so
every sum is exact and a cell's numbers do not depend on the order they are added in.

Chosen by simulation (``bench/stats_calibration.py``, table in docs/statistics.md): over 6-100
tasks, k = 1 and 3, baselines 0.5-0.95 and correlated or independent arms, the percentile, BCa
and studentized bootstraps covered as little as 0.24-0.32 and the plain t-interval 0.32 (all
collapse to a point when every task has the same difference); the floored t covered at least
0.936 in every row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from reports._stats_student_t import student_t_cdf, student_t_quantile

FLOOR_WEIGHT = 3
"""The standard error of a family's mean over N paired trials is at least sqrt(3) / (N + 2).

Without a floor a family whose tasks all show the same value (every trial identical, or every
task at the same rate) has a standard error of 0 and a point interval. sqrt(3) / (N + 2) is the
standard error of a difference of means over N + 2 trial pairs of which 3 are discordant:
about as little spread as N trials can hide. Picked by simulation (``bench/stats_calibration.py
--floor-weight W``): a lower weight lets skewed gains over 12 tasks under-cover, a higher one
makes the negative-transfer test conservative with correlated arms."""


@dataclass(frozen=True)
class Stratum:
    """One family's tasks in one quantity of a cell: integer values and how many trials."""

    family: str
    """The family id."""
    tasks: tuple[str, ...]
    """Task ids, sorted."""
    values: tuple[int, ...]
    """Each task's value (a score or a difference) times the cell's common ``scale``."""
    trials: int
    """Trials behind the values (paired trials for a difference, valid trials for a score)."""

    @property
    def n(self) -> int:
        """Tasks in the stratum."""
        return len(self.values)


@dataclass(frozen=True)
class Estimate:
    """A stratified mean, its standard error and degrees of freedom."""

    mean: float
    """Task-weighted mean: sum of every task's value / (tasks x scale)."""
    se: float
    """Standard error: sqrt(sum_f w_f^2 v_f), v_f a family's floored variance of its mean."""
    df: int
    """Welch-Satterthwaite degrees of freedom over the families, rounded down, at least 1."""
    varied: bool
    """False when every family's tasks share one value (its variance is the floor alone)."""

    def interval(self, confidence: float, bounds: tuple[float, float]) -> tuple[float, float]:
        """mean +- t(confidence, df) x se, clipped to ``bounds``."""
        half = student_t_quantile(confidence, self.df) * self.se
        return max(bounds[0], self.mean - half), min(bounds[1], self.mean + half)

    def p_below_zero(self) -> float:
        """One-sided p-value of H0 mean >= 0 against mean < 0: P(T_df <= mean / se)."""
        return student_t_cdf(self.mean / self.se, self.df)


def _family_variance(s: Stratum, scale: int) -> float:
    """max(sample variance / n, floor) of one family's mean, in unscaled units."""
    floor = FLOOR_WEIGHT / (s.trials + 2) ** 2
    if s.n < 2:
        return floor
    total = sum(s.values)
    squares = sum(v * v for v in s.values)
    # n (sum x^2) - (sum x)^2 is an exact integer: no cancellation error.
    spread = s.n * squares - total * total
    return max(spread / (s.n * (s.n - 1) * s.n * scale * scale), floor)


def stratified(strata: Sequence[Stratum], scale: int) -> Estimate:
    """The task-weighted mean of ``strata`` (families sorted by id) with its standard error.

    A family of one task has no spread to estimate: its variance is the floor and it counts one
    degree of freedom.
    """
    n = sum(s.n for s in strata)
    mean = sum(sum(s.values) for s in strata) / (n * scale)
    parts = [(s.n / n) ** 2 * _family_variance(s, scale) for s in strata]
    variance = sum(parts)
    df = variance**2 / sum(p * p / max(s.n - 1, 1) for p, s in zip(parts, strata, strict=True))
    varied = any(len(set(s.values)) > 1 for s in strata)
    return Estimate(mean, math.sqrt(variance), max(1, int(df + 1e-9)), varied)


def stratified_covariance(
    target: Sequence[Stratum], target_scale: int, source: Sequence[Stratum], source_scale: int
) -> float:
    """Covariance of two cells' stratified means over the tasks both ran.

    Cov(mean_T, mean_S) = sum over shared tasks i of Cov(x_i, y_i) / (n_T n_S); a family's
    Cov(x_i, y_i) is estimated by the sample covariance over its shared tasks (0 with fewer than
    two). Cells of other families, or of other task instances, share nothing: 0.
    """
    n_t = sum(s.n for s in target)
    n_s = sum(s.n for s in source)
    by_family = {s.family: dict(zip(s.tasks, s.values, strict=True)) for s in source}
    total = 0.0
    for t in target:
        other = by_family.get(t.family, {})
        pairs = [
            (x, other[task]) for task, x in zip(t.tasks, t.values, strict=True) if task in other
        ]
        m = len(pairs)
        if m < 2:
            continue
        # m (sum xy) - (sum x)(sum y) is an exact integer: m (m - 1) x the sample covariance.
        exact = m * sum(x * y for x, y in pairs) - sum(x for x, _ in pairs) * sum(
            y for _, y in pairs
        )
        total += exact / (m - 1)
    return total / (n_t * n_s * target_scale * source_scale)
