"""Retention's interval conditioned on the gate that reports it (reports._stats_selective)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports._retention import fieller
from reports._stats_selective import PROJECTION_SHARE, selective_fieller
from reports._stats_student_t import student_t_quantile

DF = 23
T95 = student_t_quantile(0.95, DF)
GATE = 2 * T95
"""The gate's multiple: a source gain passes where S >= 2 t se_S (lower bound >= S / 2)."""


def _adjusted(
    target: float, source: float, se: tuple[float, float], covariance: float = 0.0, df: int = DF
) -> tuple[float, float]:
    gate = 2 * student_t_quantile(0.95, df)
    return selective_fieller(
        (target, source),
        (se[0] ** 2, se[1] ** 2),
        covariance,
        threshold=gate * se[1],
        t_beta=PROJECTION_SHARE * gate,
        df=df,
        confidence=0.95,
    )


def test_far_above_the_gate_it_is_fiellers_interval() -> None:
    # S is 14 standard errors up, the gate at 4.1: nothing is truncated within the projection,
    # and the conditional test at (alpha - beta) / (1 - beta) within |Z| <= t_beta is Fieller's.
    se = (0.04, 0.03)
    for target, covariance in ((0.30, 0.0), (0.21, 0.0006), (-0.05, -0.0004)):
        got = _adjusted(target, 0.42, se, covariance)
        want = fieller(target, 0.42, se[0] ** 2, se[1] ** 2, covariance, T95)
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_just_past_the_gate_it_reaches_far_higher_and_keeps_the_ratio() -> None:
    se = (0.05, 0.05)
    source = GATE * se[1] * 1.02  # passed by 2%
    lo, hi = _adjusted(0.2, source, se)
    plain = fieller(0.2, source, se[0] ** 2, se[1] ** 2, 0.0, T95)
    assert math.isfinite(hi) and lo < 0.2 / source < hi
    # The source gain may well be far smaller than the one that passed: the ratio far larger.
    assert hi > 2 * plain[1]
    assert lo == pytest.approx(plain[0], abs=0.15)
    # The further past the gate, the less the adjustment matters.
    widths = [np.subtract(*_adjusted(0.2 * m, source * m, se)[::-1]) for m in (1.0, 1.3, 1.8, 3.0)]
    assert widths == sorted(widths, reverse=True)


def test_conditional_on_the_gate_it_covers_where_plain_fieller_does_not() -> None:
    # Bivariate normal gains, correlated, a true source gain 2.5 standard errors up: the gate
    # (at 4.1) opens in about 1 cell of 10, where S came out high. True retention 1.
    rng = np.random.default_rng(1)
    se, r, df = (0.06, 0.05), 0.5, 30
    cov = r * se[0] * se[1]
    chol = np.linalg.cholesky([[se[0] ** 2, cov], [cov, se[1] ** 2]])
    mu = 2.5 * se[1]
    draws = rng.standard_normal((40_000, 2)) @ chol.T + [mu, mu]
    gate = 2 * student_t_quantile(0.95, df)
    passed = draws[draws[:, 1] >= gate * se[1]][:300]
    assert len(passed) == 300
    t = student_t_quantile(0.95, df)
    adjusted = [_adjusted(x, y, se, cov, df) for x, y in passed]
    plain = [fieller(x, y, se[0] ** 2, se[1] ** 2, cov, t) for x, y in passed]
    assert np.mean([lo <= 1.0 <= hi for lo, hi in adjusted]) >= 0.94
    assert np.mean([lo <= 1.0 <= hi for lo, hi in plain]) <= 0.91


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-0.5, 0.8),
    st.floats(0.0, 6.0),
    st.floats(0.01, 0.1),
    st.floats(0.01, 0.1),
    st.floats(-0.9, 0.9),
    st.integers(4, 60),
)
def test_every_interval_is_bounded_and_holds_the_ratio(
    target: float, past: float, se_t: float, se_s: float, r: float, df: int
) -> None:
    gate = 2 * student_t_quantile(0.95, df)
    source = gate * se_s * (1 + past / 10)
    lo, hi = _adjusted(target, source, (se_t, se_s), r * se_t * se_s, df)
    assert math.isfinite(lo) and math.isfinite(hi) and lo < hi
    assert lo <= target / source <= hi
    # Within the projection: Fieller's interval at the projection's t.
    t_beta = PROJECTION_SHARE * gate
    outer = fieller(target, source, se_t**2, se_s**2, r * se_t * se_s, t_beta)
    assert outer[0] - 1e-9 <= lo and hi <= outer[1] + 1e-9
