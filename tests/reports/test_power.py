"""Tests of the power functions a cycle can be planned with, against simulation and hand values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from reports import (
    ArmOutcomes,
    ReportError,
    cell_metrics,
    minimum_detectable_gain,
    planned_se,
    task_difference_sd,
    tasks_for_half_width,
)
from reports._stats_student_t import student_t_quantile


def test_the_mde_is_the_two_quantiles_times_the_standard_error() -> None:
    se = 0.04
    want = (student_t_quantile(0.95, 23) + student_t_quantile(0.6, 23)) * se
    assert minimum_detectable_gain(se, 23) == pytest.approx(want)
    assert want == pytest.approx((2.0687 + 0.8575) * 0.04, abs=1e-4)
    assert minimum_detectable_gain(se, 23, power=0.5) == pytest.approx(2.0687 * 0.04, abs=1e-4)
    with pytest.raises(ReportError, match="power"):
        minimum_detectable_gain(se, 23, power=0.3)
    with pytest.raises(ReportError, match="negative"):
        minimum_detectable_gain(-1.0, 23)


def test_a_cell_detects_its_mde_with_about_80_percent_power() -> None:
    # 24 tasks x k = 3 with independent arms at baseline 0.5: plan the spread, then simulate a
    # true gain of exactly the planned MDE and count how often the interval clears 0.
    sd = task_difference_sd(0.5, k=3, effect_sd=0.1)
    mde = minimum_detectable_gain(planned_se(24, sd), 23)
    rng = np.random.default_rng(5)
    hits, reps = 0, 300
    for _ in range(reps):
        p = np.full(24, 0.5)
        q = np.clip(p + mde + rng.normal(0, 0.1, 24), 0, 1)

        def arm(rate: np.ndarray) -> ArmOutcomes:
            wins = rng.random((24, 3)) < rate[:, None]
            return ArmOutcomes.from_trials(
                (f"t{i}", "f", "success" if w else "failure")
                for i, row in enumerate(wins)
                for w in row
            )

        hits += cell_metrics(arm(q), arm(p)).gain_ci.lo > 0
    assert 0.72 <= hits / reps <= 0.88


def test_the_task_spread_follows_the_arms_agreement() -> None:
    # Independent arms at 0.5: a trial pair is discordant half the time; identical arms never.
    assert task_difference_sd(0.5, k=1, effect_sd=0.0) == pytest.approx(math.sqrt(0.5))
    assert task_difference_sd(0.5, k=1, agreement=1.0, effect_sd=0.0) == 0.0
    assert task_difference_sd(0.5, k=4, effect_sd=0.0) == pytest.approx(math.sqrt(0.5 / 4))
    assert task_difference_sd(0.5, k=4, agreement=0.8) < task_difference_sd(0.5, k=4)
    with pytest.raises(ReportError, match="within"):
        task_difference_sd(0.9, 0.2, k=3)


def test_tasks_for_a_half_width_is_the_fewest_that_fit() -> None:
    sd = 0.3
    n = tasks_for_half_width(0.1, sd)
    half = lambda m: student_t_quantile(0.95, m - 1) * sd / math.sqrt(m)  # noqa: E731
    assert half(n) <= 0.1 < half(n - 1)
    assert tasks_for_half_width(0.05, sd) > 3 * n
    assert tasks_for_half_width(10.0, sd) == 2
    with pytest.raises(ReportError):
        tasks_for_half_width(0.0, sd)
