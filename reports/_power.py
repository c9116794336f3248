"""Power of a cell's gain interval: the smallest gain it detects, and the size it needs.

The release records each cell's minimum detectable gain (``CellMetrics.mde``) from its own
standard error; ``vwt cycle plan`` can use the same functions before any trial runs, from a
planned size and an assumed spread.
"""

from __future__ import annotations

import math

from reports._stats_student_t import student_t_quantile
from reports.errors import ReportError


def minimum_detectable_gain(
    se: float, df: int, *, confidence: float = 0.95, power: float = 0.8
) -> float:
    """The true gain whose ``confidence`` interval excludes 0 with probability ``power``:
    (t(confidence, df) + t one-sided at ``power``) x ``se``.

    E.g. 24 tasks with a standard error of 0.04 (df 23): (2.069 + 0.858) x 0.04 = 0.117.
    """
    if se < 0:
        raise ReportError(f"a standard error cannot be negative, got {se}")
    if not 0.5 <= power < 1.0:
        raise ReportError(f"power must be in [0.5, 1), got {power}", hint="e.g. 0.8")
    # P(|T| <= t) = 2 power - 1 puts ``power`` below t in one tail.
    beyond = student_t_quantile(2.0 * power - 1.0, df) if power > 0.5 else 0.0
    return (student_t_quantile(confidence, df) + beyond) * se


def task_difference_sd(
    baseline: float, gain: float = 0.0, *, k: int, agreement: float = 0.0, effect_sd: float = 0.1
) -> float:
    """Standard deviation of one task's paired difference (mean of k trials per arm).

    A task's trial pair is discordant with probability p_w + p_b - 2 p_both, where with
    ``agreement`` a (the share of trial pairs that share every draw, 0 for independent arms,
    about 0.8 between sim arms) p_both = a min(p_w, p_b) + (1 - a) p_w p_b. The variance is
    that of k trial pairs plus the spread of true gains between tasks (``effect_sd``).
    """
    if not (0.0 <= baseline <= 1.0 and 0.0 <= baseline + gain <= 1.0):
        raise ReportError(f"baseline {baseline} and gain {gain} must give rates within [0, 1]")
    if k < 1 or not 0.0 <= agreement <= 1.0 or effect_sd < 0:
        raise ReportError("k must be >= 1, agreement within [0, 1] and effect_sd >= 0")
    p_b, p_w = baseline, baseline + gain
    both = agreement * min(p_w, p_b) + (1.0 - agreement) * p_w * p_b
    up, down = p_w - both, p_b - both
    per_pair = up + down - (up - down) ** 2
    return math.sqrt(per_pair / k + effect_sd**2)


def planned_se(tasks: int, sd: float) -> float:
    """Standard error of a gain over ``tasks`` tasks of difference spread ``sd``."""
    if tasks < 1:
        raise ReportError(f"a cell needs at least 1 task, got {tasks}")
    return sd / math.sqrt(tasks)


def tasks_for_half_width(half_width: float, sd: float, *, confidence: float = 0.95) -> int:
    """The fewest tasks whose interval half-width t(confidence, n - 1) sd / sqrt(n) is at most
    ``half_width``."""
    if half_width <= 0 or sd < 0:
        raise ReportError("half_width must be > 0 and sd >= 0")
    n = 2
    while student_t_quantile(confidence, n - 1) * sd / math.sqrt(n) > half_width:
        n = n * 2 if n < 64 else n + max(1, n // 16)
    lo = max(2, n // 2)
    while lo < n:  # the smallest n in (lo, n] that fits
        mid = (lo + n) // 2
        if student_t_quantile(confidence, mid - 1) * sd / math.sqrt(mid) <= half_width:
            n = mid
        else:
            lo = mid + 1
    return n
