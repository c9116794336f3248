"""Metrics of one transfer-matrix cell from its arms' trial outcomes, and the FDR decisions.

Gain intervals: a cell of one family with at least 20 tasks reports the percentile bootstrap
over tasks; every other cell (any cell that resamples families, or fewer than 20 tasks) the
t-interval over its cluster means. ``bench/cluster_coverage.py`` chose this by simulation: the
percentile bootstrap covered 0.48-0.88 of the time over 2-8 families (0.83 over 5 tasks, 0.88
over 10, 0.93 over 20 and 40), the t-interval 0.93-0.95 in all of them.

Seeds: a cell with seed ``s`` draws its gain bootstrap from ``default_rng([s, 0])``, its Monte
Carlo sign flips from ``default_rng([s, 1])`` and, when its source cell does not share its
clusters, the source bootstrap from ``default_rng([s, 2])``. The source gain interval that gates
retention is computed as the source cell's own gain interval is: by the same method and, for the
percentile bootstrap, from the same draws whenever the draws are shared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from reports._stats import FlipMethod, benjamini_hochberg, binomial_sign_test, sign_flip_pvalue
from reports._stats_arms import ArmOutcomes, ArmSummary, summarise_arm, task_families
from reports._stats_bootstrap import (
    ClusterLevel,
    Clusters,
    bootstrap_means,
    group_clusters,
    percentile_interval,
)
from reports._stats_student_t import cluster_t_interval
from reports.errors import ReportError

OBSOLETE_MARGIN = 0.05
"""A gain interval inside +-this margin (with a baseline at the ceiling) marks obsolescence."""
CEILING = 0.9
"""A baseline score at or above this is at the ceiling."""
PROVISIONAL_BELOW = 3
"""A cell with fewer paired tasks than this is provisional."""
FEW_FAMILIES = 5
"""A cell resampling fewer families than this is flagged: its sign-flip p is at least 1/16."""
BOOTSTRAP_MIN_TASKS = 20
"""A one-family cell with at least this many tasks reports the percentile bootstrap interval."""
_EPS = 1e-9
"""Tolerance for threshold comparisons of float means of small-integer ratios."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


IntervalMethod = Literal["percentile_bootstrap", "cluster_t"]
"""How a gain interval is computed: the percentile interval of the cluster bootstrap, or the
t-interval over cluster means with a CR2 standard error and clusters - 1 degrees of freedom."""


class Interval(_Frozen):
    """A two-sided interval."""

    lo: float = Field(description="Lower bound.")
    hi: float = Field(description="Upper bound.")


class SignTest(_Frozen):
    """Paired sign test over tasks: does the artifact arm beat the baseline more often?"""

    wins: int = Field(description="Tasks where the artifact arm scored higher.")
    losses: int = Field(description="Tasks where the artifact arm scored lower.")
    ties: int = Field(description="Tasks with equal scores (excluded from the test).")
    p: float = Field(description="Exact one-sided binomial p-value of wins among wins + losses.")


class Retention(_Frozen):
    """Target gain as a share of source gain, with its joint-bootstrap interval."""

    value: float = Field(description="Target gain / source gain.")
    ci: Interval = Field(description="Percentile interval of the ratio over the joint draws.")
    source_gain: float = Field(description="Gain of the source cell.")
    source_gain_ci: Interval = Field(
        description="Source gain interval used for the gate, by the source cell's method."
    )
    shared_draws: bool = Field(
        description="True when target and source have the same clusters and were resampled "
        "with the same draws; False when they were resampled independently."
    )


class CellMetrics(_Frozen):
    """Everything the transfer matrix reports about one cell (artifact arm vs baseline)."""

    v: int = Field(default=2, description="Schema version of this record.")
    seed: int = Field(description="Seed of every random draw behind these numbers.")
    bootstrap: int = Field(description="Bootstrap resamples (and Monte Carlo sign patterns).")
    confidence: float = Field(description="Coverage of the reported intervals, e.g. 0.95.")
    n_tasks: int = Field(description="Tasks with at least one valid trial in both arms.")
    n_dropped_tasks: int = Field(description="Tasks of either arm left out for lack of one.")
    cluster_level: ClusterLevel = Field(description="Resampling unit: families or tasks.")
    n_clusters: int = Field(description="Number of top-level clusters resampled.")
    few_clusters: bool = Field(
        description="Resamples fewer than 5 families: the sign-flip p is at least 1/2^families."
    )
    score_with: float = Field(description="Mean per-task success rate with artifacts.")
    score_without: float = Field(description="Mean per-task success rate of the baseline.")
    gain: float = Field(description="Mean over tasks of (score with - score without).")
    gain_ci: Interval = Field(description="Interval of the gain, by interval_method.")
    interval_method: IntervalMethod = Field(
        description="percentile_bootstrap (one family, >= 20 tasks) or cluster_t (otherwise)."
    )
    p_negative: float = Field(description="Cluster sign-flip p-value of H0 gain >= 0 vs < 0.")
    p_negative_method: FlipMethod = Field(description="Exact enumeration or Monte Carlo.")
    sign_test: SignTest = Field(description="Paired sign test over tasks.")
    net_win: float = Field(description="(wins - losses) / n_tasks.")
    retention: Retention | None = Field(description="Retention, where it may be reported.")
    retention_reason: str | None = Field(description="Why retention is not reported, if not.")
    obsolete: bool = Field(description="Gain interval inside +-0.05 and baseline >= 0.9.")
    ceiling: bool = Field(description="Baseline score >= 0.9.")
    floor: bool = Field(description="Both arms scored 0.")
    provisional: bool = Field(description="Fewer than 3 paired tasks.")
    with_arm: ArmSummary = Field(description="Drift failures, stops, invalids, pass^k: artifacts.")
    without_arm: ArmSummary = Field(description="The same for the baseline arm.")
    negative_transfer: bool | None = Field(
        default=None, description="BH decision across the matrix; None until apply_fdr runs."
    )
    fdr_q: float | None = Field(default=None, description="FDR level of negative_transfer.")


@dataclass(frozen=True)
class _Paired:
    """The tasks of a cell with a valid trial in both arms, and their scores."""

    tasks: list[str]
    score_with: np.ndarray
    score_without: np.ndarray
    clusters: Clusters
    sign_test: SignTest
    dropped: int

    @property
    def gain(self) -> float:
        """Mean over tasks of (score with - score without)."""
        return float(np.mean(self.score_with - self.score_without))


def _pair(with_arm: ArmOutcomes, without_arm: ArmOutcomes, what: str = "cell") -> _Paired:
    family = task_families(with_arm, without_arm)
    tasks = sorted(
        t
        for t in set(with_arm.tasks) & set(without_arm.tasks)
        if with_arm.tasks[t].valid and without_arm.tasks[t].valid
    )
    if not tasks:
        raise ReportError(
            f"no task has a valid trial in both arms of the {what}",
            hint="re-run the missing or invalid trials before building the report",
        )
    a = [with_arm.tasks[t] for t in tasks]
    b = [without_arm.tasks[t] for t in tasks]
    # Compare c1/n1 with c2/n2 by cross-multiplying, so ties are exact.
    cmp = [x.successes * y.valid - y.successes * x.valid for x, y in zip(a, b, strict=True)]
    wins, losses = sum(c > 0 for c in cmp), sum(c < 0 for c in cmp)
    score_with = np.array([x.successes / x.valid for x in a])
    score_without = np.array([y.successes / y.valid for y in b])
    diffs = dict(zip(tasks, (score_with - score_without).tolist(), strict=True))
    return _Paired(
        tasks=tasks,
        score_with=score_with,
        score_without=score_without,
        clusters=group_clusters(diffs, family),
        sign_test=SignTest(
            wins=wins,
            losses=losses,
            ties=len(tasks) - wins - losses,
            p=binomial_sign_test(wins, losses),
        ),
        dropped=len(family) - len(tasks),
    )


def _check_settings(bootstrap: int, seed: int, confidence: float) -> None:
    if bootstrap < 100:
        raise ReportError(
            f"bootstrap must be at least 100 draws, got {bootstrap}", hint="the default is 10000"
        )
    if seed < 0:
        raise ReportError(f"seed must be a non-negative integer, got {seed}")
    if not 0.0 < confidence < 1.0:
        raise ReportError(f"confidence must be in (0, 1), got {confidence}", hint="e.g. 0.95")


def interval_method(clusters: Clusters) -> IntervalMethod:
    """The percentile bootstrap for one family of at least 20 tasks, else the t-interval."""
    if clusters.level == "task" and len(clusters.ids) >= BOOTSTRAP_MIN_TASKS:
        return "percentile_bootstrap"
    return "cluster_t"


def _interval(clusters: Clusters, gains: np.ndarray, confidence: float) -> Interval:
    """The gain interval by ``interval_method``; ``gains`` are the clusters' bootstrap draws."""
    if interval_method(clusters) == "cluster_t":
        lo, hi = cluster_t_interval(clusters, confidence)
    else:
        lo, hi = percentile_interval(gains, confidence)
    return Interval(lo=lo, hi=hi)


def _retention(
    cell: _Paired,
    gains: np.ndarray,
    source: _Paired,
    source_gains: np.ndarray,
    *,
    shared: bool,
    confidence: float,
) -> Retention | str:
    """Retention, or the reason it is not reported."""
    source_ci = _interval(source.clusters, source_gains, confidence)
    lo, hi = source_ci.lo, source_ci.hi
    if lo <= 0.0:
        return f"source gain {source.gain:.3f} has interval [{lo:.3f}, {hi:.3f}], not above 0"
    # A draw with zero source gain has no ratio; it is left out of the percentiles.
    ratios = np.divide(
        gains, source_gains, out=np.full_like(gains, np.nan), where=source_gains != 0
    )
    rlo, rhi = percentile_interval(ratios, confidence)
    return Retention(
        value=cell.gain / source.gain,
        ci=Interval(lo=rlo, hi=rhi),
        source_gain=source.gain,
        source_gain_ci=source_ci,
        shared_draws=shared,
    )


def _draws(
    cell: _Paired, source: _Paired | None, bootstrap: int, seed: int
) -> tuple[np.ndarray, np.ndarray | None, bool]:
    """Gain draws of the cell and of its source: shared draws when they have the same clusters."""
    rng = np.random.default_rng([seed, 0])
    if source is None:
        return bootstrap_means([cell.clusters], draws=bootstrap, rng=rng)[0], None, False
    if (source.clusters.ids, source.clusters.level) == (cell.clusters.ids, cell.clusters.level):
        gains, source_gains = bootstrap_means(
            [cell.clusters, source.clusters], draws=bootstrap, rng=rng
        )
        return gains, source_gains, True
    gains = bootstrap_means([cell.clusters], draws=bootstrap, rng=rng)[0]
    other = np.random.default_rng([seed, 2])
    return gains, bootstrap_means([source.clusters], draws=bootstrap, rng=other)[0], False


def _gain_interval_and_retention(
    cell: _Paired,
    source: tuple[ArmOutcomes, ArmOutcomes] | None,
    *,
    bootstrap: int,
    seed: int,
    confidence: float,
) -> tuple[Interval, Retention | str]:
    """The gain interval, and retention or the reason it is not reported.

    Bootstrap draws are made only where used: for a percentile interval, or for retention.
    """
    if source is None and interval_method(cell.clusters) == "cluster_t":
        lo, hi = cluster_t_interval(cell.clusters, confidence)
        return Interval(lo=lo, hi=hi), "no source cell given"
    paired_source = _pair(*source, what="source cell") if source is not None else None
    gains, source_gains, shared = _draws(cell, paired_source, bootstrap, seed)
    interval = _interval(cell.clusters, gains, confidence)
    if paired_source is None or source_gains is None:
        return interval, "no source cell given"
    retention = _retention(
        cell, gains, paired_source, source_gains, shared=shared, confidence=confidence
    )
    return interval, retention


def cell_metrics(
    with_arm: ArmOutcomes,
    without_arm: ArmOutcomes,
    *,
    bootstrap: int = 10_000,
    seed: int,
    source: tuple[ArmOutcomes, ArmOutcomes] | None = None,
    confidence: float = 0.95,
) -> CellMetrics:
    """Metrics of one cell: scores, gain with interval and p-value, sign test, flags, per arm.

    ``source`` is the (with, without) pair of the same submission in the source condition;
    given it, retention is reported where the source gain's interval lies above 0. Target and
    source are resampled with the same draws when their clusters (task ids, or families) are the
    same — they ran the same task instances — and independently otherwise. Raises
    ``ReportError`` when no task has a valid trial in both arms.
    """
    _check_settings(bootstrap, seed, confidence)
    cell = _pair(with_arm, without_arm)
    gain_ci, retention = _gain_interval_and_retention(
        cell, source, bootstrap=bootstrap, seed=seed, confidence=confidence
    )
    rng = np.random.default_rng([seed, 1])
    flip = sign_flip_pvalue(cell.clusters.means, cell.clusters.sizes, draws=bootstrap, rng=rng)
    score_with, score_without = float(cell.score_with.mean()), float(cell.score_without.mean())
    n_tasks = len(cell.score_with)
    ceiling = score_without >= CEILING - _EPS
    return CellMetrics(
        seed=seed,
        bootstrap=bootstrap,
        confidence=confidence,
        n_tasks=n_tasks,
        n_dropped_tasks=cell.dropped,
        cluster_level=cell.clusters.level,
        n_clusters=len(cell.clusters.ids),
        few_clusters=cell.clusters.level == "family" and len(cell.clusters.ids) < FEW_FAMILIES,
        score_with=score_with,
        score_without=score_without,
        gain=cell.gain,
        gain_ci=gain_ci,
        interval_method=interval_method(cell.clusters),
        p_negative=flip.p,
        p_negative_method=flip.method,
        sign_test=cell.sign_test,
        net_win=(cell.sign_test.wins - cell.sign_test.losses) / n_tasks,
        retention=retention if isinstance(retention, Retention) else None,
        retention_reason=retention if isinstance(retention, str) else None,
        obsolete=ceiling and max(-gain_ci.lo, gain_ci.hi) <= OBSOLETE_MARGIN + _EPS,
        ceiling=ceiling,
        floor=score_with == 0.0 and score_without == 0.0,
        provisional=n_tasks < PROVISIONAL_BELOW,
        with_arm=summarise_arm(with_arm, cell.tasks),
        without_arm=summarise_arm(without_arm, cell.tasks),
    )


def apply_fdr(cells: Sequence[CellMetrics], q: float = 0.05) -> list[CellMetrics]:
    """Decide negative transfer across all reported cells: Benjamini-Hochberg on p_negative."""
    decisions = benjamini_hochberg([c.p_negative for c in cells], q)
    return [
        c.model_copy(update={"negative_transfer": d, "fdr_q": q})
        for c, d in zip(cells, decisions, strict=True)
    ]


class GainDifference(_Frozen):
    """Adapted gain minus frozen gain over the tasks valid in all three arms (adapted, frozen,
    baseline). The baseline is the same in both gains, so this is the mean over tasks of
    (adapted score - frozen score); its interval is computed as a gain's, over the same task
    clusters (percentile bootstrap for one family of at least 20 tasks, else the t-interval)."""

    value: float = Field(description="Mean over tasks of (adapted score - frozen score).")
    ci: Interval = Field(description="Interval of the difference, by interval_method.")
    interval_method: IntervalMethod = Field(description="As for a gain interval.")
    n_tasks: int = Field(description="Tasks with a valid trial in all three arms.")

    @property
    def excludes_zero(self) -> bool:
        """True when the interval lies wholly above or below 0."""
        return self.ci.lo > 0.0 or self.ci.hi < 0.0


def gain_difference(
    adapted: ArmOutcomes,
    frozen: ArmOutcomes,
    baseline: ArmOutcomes,
    *,
    bootstrap: int = 10_000,
    seed: int,
    confidence: float = 0.95,
) -> GainDifference:
    """Adapted gain minus frozen gain of one cell, paired by task; its bootstrap draws come
    from ``default_rng([seed, 3])``. Raises ``ReportError`` when no task is valid in all three
    arms."""
    _check_settings(bootstrap, seed, confidence)
    valid = {t for t, x in baseline.tasks.items() if x.valid}
    frozen_valid = ArmOutcomes(tasks={t: x for t, x in frozen.tasks.items() if t in valid})
    paired = _pair(adapted, frozen_valid, what="adapted and frozen arms")
    clusters = paired.clusters
    if interval_method(clusters) == "cluster_t":
        lo, hi = cluster_t_interval(clusters, confidence)
    else:
        rng = np.random.default_rng([seed, 3])
        draws = bootstrap_means([clusters], draws=bootstrap, rng=rng)[0]
        lo, hi = percentile_interval(draws, confidence)
    return GainDifference(
        value=paired.gain,
        ci=Interval(lo=lo, hi=hi),
        interval_method=interval_method(clusters),
        n_tasks=len(paired.tasks),
    )
