"""Student's t distribution for integer degrees of freedom: quantiles and the lower tail.

Pure Python on the exact finite series (Abramowitz & Stegun 26.7.3-4) and the incomplete beta
series, so a release's numbers follow from the standard library alone and recompute exactly.
"""

from __future__ import annotations

import functools
import math

from reports.errors import ReportError

_SERIES_EPS = 1e-17
"""Relative size of the last term kept in the incomplete beta series."""


def _central_mass(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with ``df`` degrees of freedom, t >= 0.

    The exact finite series for integer ``df`` (Abramowitz & Stegun 26.7.3 and 26.7.4), with
    theta = atan(t / sqrt(df)).
    """
    theta = math.atan(t / math.sqrt(df))
    c, s = math.cos(theta), math.sin(theta)
    if df % 2:
        term, series = c, 0.0
        for j in range(1, (df - 1) // 2 + 1):
            series += term
            term *= c * c * (2 * j) / (2 * j + 1)
        return 2.0 / math.pi * (theta + s * series)
    term, series = 1.0, 0.0
    for j in range(1, df // 2 + 1):
        series += term
        term *= c * c * (2 * j - 1) / (2 * j)
    return s * series


def _check_df(df: int) -> None:
    if df < 1:
        raise ReportError(f"a t distribution needs at least 1 degree of freedom, got {df}")


@functools.lru_cache(maxsize=4096)
def student_t_quantile(confidence: float, df: int) -> float:
    """The t with P(|T| <= t) = ``confidence`` (the two-sided critical value), ``df`` >= 1.

    Found by bisection on the exact distribution function to full float precision, e.g. 12.706
    for 95% and 1 degree of freedom, 2.776 for 4. Cached: a matrix asks for a few values many
    times.
    """
    _check_df(df)
    if not 0.0 < confidence < 1.0:
        raise ReportError(f"confidence must be in (0, 1), got {confidence}", hint="e.g. 0.95")
    lo, hi = 0.0, 1.0
    while _central_mass(hi, df) < confidence:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2.0
        if _central_mass(mid, df) < confidence:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def _far_tail(t: float, df: int) -> float:
    """P(T <= -|t|) = I_x(df/2, 1/2) / 2 with x = df / (df + t^2), by the series
    I_x(a, 1/2) = x^a / (a B(a, 1/2)) sum_n a / (a + n) (1/2)_n / n! x^n (for x <= 1/2, where
    converges like x^n and takes no difference of near-equal numbers)."""
    a = df / 2.0
    x = df / (df + t * t)
    total, coefficient, n = 0.0, 1.0, 0
    while True:
        term = coefficient * a / (a + n)
        total += term
        if term < _SERIES_EPS * total:
            break
        coefficient *= (n + 0.5) / (n + 1) * x
        n += 1
    log_beta = math.lgamma(a) + math.lgamma(0.5) - math.lgamma(a + 0.5)
    return 0.5 * math.exp(a * math.log(x) - log_beta) / a * total


def student_t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with ``df`` >= 1 degrees of freedom.

    Accurate in both tails: beyond |t| = min(sqrt(df), 3) the smaller tail comes from the
    incomplete beta series (so a p-value of 1e-20 is not lost to rounding), within it from the
    exact central mass (there the tail is above 0.001 whatever ``df``).
    """
    _check_df(df)
    if math.isnan(t):
        raise ReportError("the t statistic is not a number")
    if math.isinf(t):
        return 0.0 if t < 0 else 1.0
    tail = _far_tail(t, df) if t * t >= min(df, 9.0) else (1.0 - _central_mass(abs(t), df)) / 2.0
    return tail if t < 0 else 1.0 - tail
