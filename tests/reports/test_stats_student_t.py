"""Tests of Student's t quantiles and the t-interval over cluster means."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from reports._stats_bootstrap import group_clusters
from reports._stats_student_t import cluster_t_interval, student_t_quantile
from reports.errors import ReportError


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.95, 0.99])
def test_quantile_matches_the_closed_forms_of_one_and_two_df(confidence: float) -> None:
    # df 1 is Cauchy: P(|T| <= t) = 2 atan(t) / pi. df 2: P(|T| <= t) = t / sqrt(t^2 + 2).
    assert student_t_quantile(confidence, 1) == pytest.approx(math.tan(math.pi * confidence / 2))
    two = confidence * math.sqrt(2.0 / (1.0 - confidence**2))
    assert student_t_quantile(confidence, 2) == pytest.approx(two)


@pytest.mark.parametrize(
    ("df", "t95", "t90"),
    [
        (3, 3.182446305, 2.353363435),
        (4, 2.776445105, 2.131846786),
        (5, 2.570581836, 2.015048373),
        (10, 2.228138852, 1.812461123),
        (30, 2.042272456, 1.697260887),
    ],
)
def test_quantile_matches_the_table(df: int, t95: float, t90: float) -> None:
    assert student_t_quantile(0.95, df) == pytest.approx(t95, rel=1e-9)
    assert student_t_quantile(0.90, df) == pytest.approx(t90, rel=1e-9)


def test_quantile_tends_to_the_normal_one() -> None:
    normal = NormalDist().inv_cdf(0.975)
    assert normal < student_t_quantile(0.95, 2000) < normal + 0.002


def test_quantile_refuses_bad_arguments() -> None:
    with pytest.raises(ReportError, match="at least 1 degree of freedom"):
        student_t_quantile(0.95, 0)
    with pytest.raises(ReportError, match="confidence"):
        student_t_quantile(1.0, 3)


def test_equal_family_sizes_give_the_textbook_t_interval_over_family_means() -> None:
    rng = np.random.default_rng(0)
    means = rng.uniform(-0.3, 0.5, 4)
    diffs = {
        f"{f}-{t}": float(m) + d for f, m in enumerate(means) for t, d in enumerate((-0.1, 0.1))
    }
    clusters = group_clusters(diffs, {t: t.split("-")[0] for t in diffs})
    half = student_t_quantile(0.95, 3) * np.std(means, ddof=1) / 2.0
    lo, hi = cluster_t_interval(clusters, 0.95)
    assert (lo, hi) == pytest.approx((means.mean() - half, means.mean() + half))


def test_unequal_sizes_take_the_cr2_variance() -> None:
    # Family sums (2, 0, 1) over (2, 2, 4) tasks: N = 8, gain 3/8, residuals (5/4, -3/4, -1/2)
    # over (1 - n/N) = (3/4, 3/4, 1/2): variance (25/12 + 9/12 + 6/12) / 64 = 5/96. At 50% and
    # 2 df, t = 0.5 sqrt(2 / 0.75) = sqrt(2/3), so the half-width is sqrt(5/144) = sqrt(5)/12.
    diffs = {"a1": 1.0, "a2": 1.0, "b1": 0.0, "b2": 0.0, "c1": 1.0, "c2": 0.0, "c3": 0.0, "c4": 0.0}
    clusters = group_clusters(diffs, {t: t[0] for t in diffs})
    lo, hi = cluster_t_interval(clusters, 0.5)
    assert (lo, hi) == pytest.approx((3 / 8 - math.sqrt(5) / 12, 3 / 8 + math.sqrt(5) / 12))


def test_the_interval_stays_within_the_range_of_a_gain() -> None:
    spread = group_clusters({"a": 1.0, "b": -0.5}, {"a": "f", "b": "g"})
    assert cluster_t_interval(spread, 0.95) == (-1.0, 1.0)
    one = group_clusters({"a": 0.5}, {"a": "f"})
    assert cluster_t_interval(one, 0.95) == (-1.0, 1.0)
    same = group_clusters({"a": 0.25, "b": 0.25, "c": 0.25}, {"a": "f", "b": "g", "c": "h"})
    assert cluster_t_interval(same, 0.95) == pytest.approx((0.25, 0.25))
