"""Retention: a target cell's gain as a share of its source cell's, with a Fieller-type interval.

The ratio T / S of two estimated gains has no finite variance when S may be near 0, so neither
a delta-method nor a bootstrap-percentile interval of it can be trusted there. Fieller's
interval inverts the t-test of T - rho S = 0: it is the set of rho with
(T - rho S)^2 <= t^2 (V_T - 2 rho C + rho^2 V_S), bounded only when S is significant. Retention
is reported only when the source gain is also *precise*: its interval's lower bound at least
half its value (S >= 2 t se_S); otherwise it is ``unstable``.

That gate selects source gains that came out high, so since ``CellMetrics`` v5 the interval is
adjusted for it (``reports._stats_selective``): it conditions on the gate having passed. Cells
of v4 (release formats 6 and 7) carry the plain Fieller interval, recomputed as such when an
older release is verified.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reports._interval import TOLERANCE, Interval
from reports._stats_selective import PROJECTION_SHARE, selective_fieller
from reports._stats_strata import Estimate
from reports._stats_student_t import student_t_cdf, student_t_quantile

RetentionStatus = Literal[
    "reported", "identical_trials", "unstable", "no_source_gain", "no_source_cell"
]
"""Whether retention is reported, and if not why: the target's per-task gains equal the
source's on every task (retention is 1 with nothing to estimate); the source gain is above 0
but not precise; the source gain's interval reaches 0; the cell is a source cell."""


class Retention(BaseModel):
    """Target gain as a share of source gain, where the source gain is precise."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    value: float = Field(description="Target gain / source gain.")
    ci: Interval = Field(
        description="Interval of the ratio at the cell's confidence, t at the smaller of the "
        "two cells' degrees of freedom: in CellMetrics v5 Fieller's adjusted for the gate "
        "(conditional on the source gain having passed it, reports._stats_selective), in v4 "
        "plain Fieller."
    )
    source_gain: float = Field(description="Gain of the source cell.")
    source_gain_ci: Interval = Field(
        description="The source cell's published gain interval; its lower bound is at least "
        "half the source gain."
    )
    shared_tasks: int = Field(
        description="Tasks both cells ran (the same task instances): their covariance enters "
        "the interval. 0 when the target ran other tasks (other families): independent."
    )


def fieller(
    target: float,
    source: float,
    var_target: float,
    var_source: float,
    covariance: float,
    t: float,
) -> tuple[float, float]:
    """The Fieller interval of target / source, for a source with source^2 > t^2 var_source.

    The roots of (S^2 - t^2 V_S) rho^2 - 2 (T S - t^2 C) rho + (T^2 - t^2 V_T) = 0. C is clipped
    to +-sqrt(V_T V_S) so the quadratic's discriminant cannot go below 0 by rounding.
    """
    bound = math.sqrt(var_target * var_source)
    c = min(max(covariance, -bound), bound)
    t2 = t * t
    a = source * source - t2 * var_source
    b = target * source - t2 * c
    disc = t2 * (
        source * source * var_target
        - 2.0 * target * source * c
        + target * target * var_source
        - t2 * (var_target * var_source - c * c)
    )
    root = math.sqrt(max(disc, 0.0))
    return (b - root) / a, (b + root) / a


def retention(
    target: Estimate,
    source: Estimate,
    covariance: float,
    shared_tasks: int,
    identical: bool,
    confidence: float,
    *,
    adjusted: bool = True,
) -> tuple[Retention | None, RetentionStatus, str | None]:
    """Retention of ``target`` against ``source`` (their gain estimates), or why not.

    ``identical`` says the target's per-task gains equal the source's on every task: the ratio
    is exactly 1 and an interval of it would be a point, so it is reported as such instead.
    ``adjusted`` (CellMetrics v5) gives the interval adjusted for the gate; False the plain
    Fieller interval of v4.
    """
    s, se = source.mean, source.se
    # The gate is the source cell's own interval (its own degrees of freedom), as published.
    lo, hi = source.interval(confidence, (-1.0, 1.0))
    shown = f"source gain {s:+.3f} has interval [{lo:+.3f}, {hi:+.3f}]"
    if identical:
        return (
            None,
            "identical_trials",
            "the target's per-task gains equal the source's on every task: retention is 1, "
            "with nothing to estimate",
        )
    if s <= TOLERANCE or lo <= TOLERANCE:
        return None, "no_source_gain", f"{shown}, not above 0"
    if lo < s / 2.0 - TOLERANCE:
        return None, "unstable", f"{shown}: its lower bound is below half its value"
    why = f"{shown}; at the target's {target.df} degrees of freedom the ratio is unbounded"
    df = min(target.df, source.df)
    if adjusted:
        # The gate passed S >= 2 t(df_S) se_S; the projection's t is a share of that multiple.
        gate = 2.0 * student_t_quantile(confidence, source.df)
        t_beta = PROJECTION_SHARE * gate
        if 2.0 * student_t_cdf(-t_beta, df) >= (1.0 - confidence) / 2.0:
            # Precise at its own degrees of freedom, but not at the target's fewer.
            return None, "unstable", why
        ends = selective_fieller(
            (target.mean, s),
            (target.se**2, se**2),
            covariance,
            threshold=gate * se,
            t_beta=t_beta,
            df=df,
            confidence=confidence,
        )
    else:
        t = student_t_quantile(confidence, df)
        if s * s <= t * t * se * se * (1.0 + TOLERANCE):
            return None, "unstable", why
        ends = fieller(target.mean, s, target.se**2, se**2, covariance, t)
    return (
        Retention(
            value=target.mean / s,
            ci=Interval(lo=ends[0], hi=ends[1]),
            source_gain=s,
            source_gain_ci=Interval(lo=lo, hi=hi),
            shared_tasks=shared_tasks,
        ),
        "reported",
        None,
    )
