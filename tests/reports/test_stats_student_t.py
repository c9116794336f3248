"""Tests of Student's t quantiles and distribution function."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from reports._stats_student_t import student_t_cdf, student_t_quantile
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


# P(T <= t) from scipy.stats.t.cdf (scipy 1.17), for the lower tail and the middle.
CDF_TABLE = [
    (-2.0, 5, 0.050969739414929174),
    (-0.5, 3, 0.3257239824240755),
    (-10.0, 23, 3.8223115539192397e-10),
    (-42.0, 23, 1.507827123967515e-23),
    (1.3, 1, 0.7912855998398473),
    (-3.0, 7, 0.009971063065996268),
    (-2.9, 9, 0.008797686754315871),
    (-8.5, 78, 5.043174425027992e-13),
    (-2.5, 1000, 0.0062892839005454036),
]


@pytest.mark.parametrize(("t", "df", "expected"), CDF_TABLE)
def test_cdf_matches_the_table_in_both_tails(t: float, df: int, expected: float) -> None:
    assert student_t_cdf(t, df) == pytest.approx(expected, rel=1e-9)
    assert student_t_cdf(-t, df) == pytest.approx(1 - expected, rel=1e-9)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 9, 30])
def test_cdf_inverts_the_quantile(df: int) -> None:
    for confidence in (0.5, 0.8, 0.95, 0.999):
        q = student_t_quantile(confidence, df)
        assert student_t_cdf(-q, df) == pytest.approx((1 - confidence) / 2, rel=1e-9)
    assert student_t_cdf(0.0, df) == 0.5
    assert student_t_cdf(-math.inf, df) == 0.0 and student_t_cdf(math.inf, df) == 1.0


def test_cdf_has_the_closed_forms_of_one_and_two_df() -> None:
    for t in (-30.0, -3.0, -0.7, 0.2, 4.0):
        assert student_t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, rel=1e-12)
        assert student_t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(t * t + 2)))
    with pytest.raises(ReportError, match="degree of freedom"):
        student_t_cdf(1.0, 0)
