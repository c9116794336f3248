"""Metrics of transfer-matrix cells from their arms' trial outcomes, and the FDR decisions.

Intervals: a cell of one family with at least 20 tasks reports the percentile bootstrap over
tasks; every other cell (any cell that resamples families, or fewer than 20 tasks) the
t-interval over its cluster means. ``bench/cluster_coverage.py`` chose this by simulation: the
percentile bootstrap covered 0.48-0.88 of the time over 2-8 families (0.83 over 5 tasks, 0.88
over 10, 0.93 over 20 and 40), the t-interval 0.93-0.95 in all of them. Each arm's score gets
its interval by the same method as the gain, over the same clusters.

Draws: every random draw comes from the release seed and the cell's clusters (their level and
sorted ids), never from the cell's place in the release (``reports._stats_shared``). Cells with
the same clusters share their bootstrap draws and their Monte Carlo sign patterns, and one
matrix product serves them all; a cell's numbers still follow from its own trials and the seed.

Retention of a target cell is reported only where its source cell (the same submission in the
source condition) has a published gain interval whose lower bound is above ``TOLERANCE``: the
gate is the source cell's own interval, as released, never a redraw. The value is target gain /
source gain; its interval is the percentile interval of (target gain draw / source gain draw)
over the two cells' own bootstrap draws (a draw with source gain 0 is left out):
- where the two cells have the same clusters (the same task ids, or the same families) the
  draws are the same resamples of those clusters: a joint bootstrap (``shared_draws``);
- otherwise (a target of other task families, or one spanning more families than the source)
  the cells share no resampling unit and their draws are independent.

Tolerance: every threshold gate (ceiling, floor, obsolescence, excludes zero, the retention
gate, the sign of a leave-one-out gain) compares with ``TOLERANCE`` of slack, so a bound of
2e-18 is not above 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from reports._stats import (
    EXACT_LIMIT,
    FlipMethod,
    benjamini_hochberg,
    binomial_sign_test,
    exact_flip_p,
    monte_carlo_flip_p,
)
from reports._stats_arms import ArmOutcomes, ArmSummary, summarise_arm, task_families
from reports._stats_bootstrap import ClusterLevel, Clusters, group_clusters, percentile_interval
from reports._stats_shared import flip_patterns, resample_counts, row_intervals
from reports._stats_student_t import SCORE_BOUNDS, cluster_t_interval
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
TOLERANCE = 1e-9
"""Slack of every threshold gate: a value must clear a threshold by more than this."""
_BLOCK_COLUMNS = 384
"""Quantities (cells x gain and scores) whose draws are held at once (30 MB at B = 10,000)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


IntervalMethod = Literal["percentile_bootstrap", "cluster_t"]
"""How an interval is computed: the percentile interval of the cluster bootstrap, or the
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


class LeaveOneOut(_Frozen):
    """How far the gain moves when any one cluster (task or family) is left out."""

    unit: ClusterLevel = Field(description="What is left out: a task or a family (the clusters).")
    min_gain: float = Field(
        description="Smallest gain over leaving out each single cluster (the gain itself when "
        "the cell has one cluster)."
    )
    max_gain: float = Field(description="Largest gain over leaving out each single cluster.")
    sign_stable: bool = Field(
        description="True when the gain is non-zero (beyond the tolerance) and keeps its sign "
        "whichever one cluster is left out; False with a single cluster."
    )


class Retention(_Frozen):
    """Target gain as a share of source gain, gated on the source cell's published interval."""

    value: float = Field(description="Target gain / source gain.")
    ci: Interval = Field(
        description="Percentile interval of (target gain draw / source gain draw) over the two "
        "cells' own bootstrap draws, draws with source gain 0 left out; joint when shared_draws."
    )
    source_gain: float = Field(description="Gain of the source cell.")
    source_gain_ci: Interval = Field(
        description="The source cell's published gain interval; its lower bound is above 0."
    )
    shared_draws: bool = Field(
        description="True when target and source have the same clusters (the same task ids, or "
        "the same families) and so the same resamples: a joint bootstrap. False when they share "
        "no resampling unit and were resampled independently."
    )


class CellMetrics(_Frozen):
    """Everything the transfer matrix reports about one cell (artifact arm vs baseline)."""

    v: int = Field(default=3, description="Schema version of this record.")
    seed: int = Field(
        description="Release seed: every random draw behind these numbers comes from it and the "
        "cell's clusters (level and ids)."
    )
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
    score_with_ci: Interval = Field(
        description="Interval of score_with by interval_method over the same clusters and draws "
        "as the gain, clipped to [0, 1]."
    )
    score_without_ci: Interval = Field(
        description="Interval of score_without, as score_with_ci (the baseline arm's score)."
    )
    gain: float = Field(description="Mean over tasks of (score with - score without).")
    gain_ci: Interval = Field(description="Interval of the gain, by interval_method.")
    interval_method: IntervalMethod = Field(
        description="percentile_bootstrap (one family, >= 20 tasks) or cluster_t (otherwise)."
    )
    p_negative: float = Field(description="Cluster sign-flip p-value of H0 gain >= 0 vs < 0.")
    p_negative_method: FlipMethod = Field(description="Exact enumeration or Monte Carlo.")
    sign_test: SignTest = Field(description="Paired sign test over tasks.")
    net_win: float = Field(description="(wins - losses) / n_tasks.")
    loo: LeaveOneOut = Field(description="Leave-one-cluster-out sensitivity of the gain.")
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


_DIFF, _WITH, _WITHOUT = 0, 1, 2
"""Rows of ``PairedArms.sums``: the gain's, the artifact arm's and the baseline's."""


@dataclass(frozen=True)
class PairedArms:
    """The tasks of a cell with a valid trial in both arms, grouped into clusters.

    Task scores are scaled by ``scale`` (the least common multiple of the valid trial counts),
    so every per-cluster sum is an integer held exactly in a float.
    """

    with_arm: ArmOutcomes
    without_arm: ArmOutcomes
    tasks: list[str]
    level: ClusterLevel
    ids: tuple[str, ...]
    sizes: np.ndarray
    """Paired tasks per cluster."""
    scale: int
    sums: np.ndarray
    """3 x clusters: scaled sums of (score with - score without), score with, score without."""
    sign_test: SignTest
    dropped: int

    def mean(self, row: int) -> float:
        """Mean over tasks of the quantity of ``sums`` row ``row``."""
        return float(self.sums[row].sum()) / (len(self.tasks) * self.scale)

    def clusters(self, row: int) -> Clusters:
        """The clusters of row ``row`` with unscaled sums."""
        return Clusters(self.ids, self.level, self.sums[row] / self.scale, self.sizes)

    @property
    def method(self) -> IntervalMethod:
        """How this cell's intervals are computed (``interval_method``)."""
        return interval_method(self.level, len(self.ids))


def interval_method(level: ClusterLevel, n_clusters: int) -> IntervalMethod:
    """The percentile bootstrap for one family of at least 20 tasks, else the t-interval."""
    if level == "task" and n_clusters >= BOOTSTRAP_MIN_TASKS:
        return "percentile_bootstrap"
    return "cluster_t"


def pair_arms(with_arm: ArmOutcomes, without_arm: ArmOutcomes, what: str = "cell") -> PairedArms:
    """Pair two arms by task; raises ``ReportError`` when no task is valid in both."""
    family = task_families(with_arm, without_arm)
    counts = {}  # task -> (successes, valid) with, (successes, valid) without
    for t in with_arm.tasks.keys() & without_arm.tasks.keys():
        x, y = with_arm.tasks[t], without_arm.tasks[t]
        if x.valid and y.valid:
            counts[t] = (x.successes, x.valid, y.successes, y.valid)
    if not counts:
        raise ReportError(
            f"no task has a valid trial in both arms of the {what}",
            hint="re-run the missing or invalid trials before building the report",
        )
    tasks = sorted(counts)
    scale = math.lcm(*{n for c in counts.values() for n in (c[1], c[3])})
    scaled_with = [counts[t][0] * (scale // counts[t][1]) for t in tasks]
    scaled_without = [counts[t][2] * (scale // counts[t][3]) for t in tasks]
    wins = sum(x > y for x, y in zip(scaled_with, scaled_without, strict=True))
    losses = sum(x < y for x, y in zip(scaled_with, scaled_without, strict=True))
    rows = [
        group_clusters(dict(zip(tasks, map(float, values), strict=True)), family)
        for values in (
            [x - y for x, y in zip(scaled_with, scaled_without, strict=True)],
            scaled_with,
            scaled_without,
        )
    ]
    return PairedArms(
        with_arm=with_arm,
        without_arm=without_arm,
        tasks=tasks,
        level=rows[0].level,
        ids=rows[0].ids,
        sizes=rows[0].sizes,
        scale=scale,
        sums=np.stack([r.sums for r in rows]),
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


def _sign(x: float) -> int:
    return 1 if x > TOLERANCE else -1 if x < -TOLERANCE else 0


def _leave_one_out(cell: PairedArms) -> LeaveOneOut:
    gain = cell.mean(_DIFF)
    if len(cell.ids) < 2:
        return LeaveOneOut(unit=cell.level, min_gain=gain, max_gain=gain, sign_stable=False)
    sums = cell.sums[_DIFF]
    left = (sums.sum() - sums) / ((len(cell.tasks) - cell.sizes) * cell.scale)
    stable = _sign(gain) != 0 and all(_sign(float(x)) == _sign(gain) for x in left)
    return LeaveOneOut(
        unit=cell.level,
        min_gain=float(left.min()),
        max_gain=float(left.max()),
        sign_stable=stable,
    )


def _t_intervals(cell: PairedArms, confidence: float) -> list[Interval]:
    gain = cluster_t_interval(cell.clusters(_DIFF), confidence)
    scores = [
        cluster_t_interval(cell.clusters(row), confidence, SCORE_BOUNDS)
        for row in (_WITH, _WITHOUT)
    ]
    return [Interval(lo=lo, hi=hi) for lo, hi in (gain, *scores)]


def _intervals(
    cells: Sequence[PairedArms],
    keep: set[int],
    *,
    bootstrap: int,
    seed: int,
    confidence: float,
    rows: tuple[int, ...] = (_DIFF, _WITH, _WITHOUT),
) -> tuple[list[list[Interval]], dict[int, np.ndarray]]:
    """Every cell's intervals (gain, score with, score without; by the bootstrap only those of
    ``rows``), and the gain draws of the cells in ``keep``.

    Bootstrap draws are made only where used (a percentile interval, or a kept cell), with one
    counts matrix per distinct clustering and one product per block of columns.
    """
    bounds = [_t_intervals(c, confidence) if c.method == "cluster_t" else [] for c in cells]
    kept: dict[int, np.ndarray] = {}
    groups: dict[tuple[ClusterLevel, tuple[str, ...]], list[int]] = {}
    for i, c in enumerate(cells):
        if c.method == "percentile_bootstrap" or i in keep:
            groups.setdefault((c.level, c.ids), []).append(i)
    for (level, ids), members in groups.items():
        counts = resample_counts(seed, level, ids, bootstrap)
        columns = [
            (i, row)
            for i in members
            for row in (rows if cells[i].method == "percentile_bootstrap" else (_DIFF,))
        ]
        for start in range(0, len(columns), _BLOCK_COLUMNS):
            block = columns[start : start + _BLOCK_COLUMNS]
            draws, where = _draws(counts, [(cells[i], row) for i, row in block])
            ends = row_intervals(draws, confidence)
            for (i, row), j in zip(block, where, strict=True):
                if cells[i].method == "percentile_bootstrap":
                    bounds[i].append(Interval(lo=ends[j, 0], hi=ends[j, 1]))
                if row == _DIFF and i in keep:
                    kept[i] = draws[j].copy()
    return bounds, kept


def _draws(
    counts: np.ndarray, quantities: Sequence[tuple[PairedArms, int]]
) -> tuple[np.ndarray, list[int]]:
    """Bootstrap draws of each (cell, row) quantity under ``counts``: (counts @ scaled sums) /
    (counts @ scaled sizes), one row per distinct quantity (cells of one condition share
    their baseline's), and the row of each quantity."""
    distinct: dict[tuple[bytes, bytes], int] = {}
    numerators: list[np.ndarray] = []
    denominators: list[np.ndarray] = []
    where = []
    for cell, row in quantities:
        sizes = cell.sizes * cell.scale
        key = (cell.sums[row].tobytes(), sizes.tobytes())
        if key not in distinct:
            distinct[key] = len(numerators)
            numerators.append(cell.sums[row])
            denominators.append(sizes)
        where.append(distinct[key])
    sizes_distinct: dict[bytes, int] = {}
    size_columns: list[np.ndarray] = []
    size_of = []
    for sizes in denominators:
        if sizes.tobytes() not in sizes_distinct:
            sizes_distinct[sizes.tobytes()] = len(size_columns)
            size_columns.append(sizes)
        size_of.append(sizes_distinct[sizes.tobytes()])
    resampled_sizes = np.stack(size_columns) @ counts.T
    draws = (np.stack(numerators) @ counts.T) / resampled_sizes[size_of]
    return draws, where


def _retention(
    cell: PairedArms,
    source: PairedArms,
    draws: np.ndarray,
    source_draws: np.ndarray,
    source_ci: Interval,
    confidence: float,
) -> Retention | str:
    """Retention of ``cell`` against its ``source``, or the reason it is not reported."""
    source_gain = source.mean(_DIFF)
    if source_ci.lo <= TOLERANCE or source_gain <= TOLERANCE:
        return (
            f"source gain {source_gain:.3f} has interval [{source_ci.lo:.3f}, "
            f"{source_ci.hi:.3f}], not above 0"
        )
    ratios = np.divide(
        draws, source_draws, out=np.full_like(draws, np.nan), where=source_draws != 0
    )
    lo, hi = percentile_interval(ratios, confidence)
    return Retention(
        value=cell.mean(_DIFF) / source_gain,
        ci=Interval(lo=lo, hi=hi),
        source_gain=source_gain,
        source_gain_ci=source_ci,
        shared_draws=(cell.level, cell.ids) == (source.level, source.ids),
    )


def _p_negative(
    cells: Sequence[PairedArms], *, bootstrap: int, seed: int
) -> list[tuple[float, FlipMethod]]:
    """Each cell's sign-flip p-value: exact up to ``EXACT_LIMIT`` non-zero clusters, else Monte
    Carlo over the sign patterns shared by every cell with the same clusters."""
    out: list[tuple[float, FlipMethod] | None] = []
    groups: dict[tuple[ClusterLevel, tuple[str, ...]], list[int]] = {}
    for i, c in enumerate(cells):
        sums = c.sums[_DIFF]
        nonzero = sums[sums != 0.0]
        if len(nonzero) <= EXACT_LIMIT:
            out.append((exact_flip_p(nonzero, float(sums.sum()), bootstrap), "exact"))
        else:
            out.append(None)
            groups.setdefault((c.level, c.ids), []).append(i)
    for (level, ids), members in groups.items():
        flags = flip_patterns(seed, level, ids, bootstrap)
        for start in range(0, len(members), _BLOCK_COLUMNS):
            block = members[start : start + _BLOCK_COLUMNS]
            sums = np.stack([cells[i].sums[_DIFF] for i in block], axis=1)
            totals = sums.sum(axis=0)
            # A pattern's sum is the total less twice the flipped clusters' sums (exact).
            hits = np.count_nonzero(totals - 2.0 * (flags @ sums) <= totals, axis=0)
            for i, h in zip(block, hits, strict=True):
                out[i] = (monte_carlo_flip_p(int(h), bootstrap), "monte_carlo")
    return [x for x in out if x is not None]


def cells_metrics(
    cells: Sequence[PairedArms],
    sources: Sequence[int | None],
    *,
    bootstrap: int = 10_000,
    seed: int,
    confidence: float = 0.95,
) -> list[CellMetrics]:
    """Metrics of every cell; ``sources[i]`` is the index of cell i's source cell, or None.

    Cell i's numbers depend only on its own arms, its source cell's arms and the settings, never
    on the other cells: every draw comes from ``seed`` and the clusters it resamples.
    """
    _check_settings(bootstrap, seed, confidence)
    keep = {i for i, s in enumerate(sources) if s is not None}
    keep |= {s for s in sources if s is not None}
    bounds, draws = _intervals(cells, keep, bootstrap=bootstrap, seed=seed, confidence=confidence)
    flips = _p_negative(cells, bootstrap=bootstrap, seed=seed)
    summaries: dict[tuple[int, tuple[str, ...]], ArmSummary] = {}

    def summary(arm: ArmOutcomes, tasks: list[str]) -> ArmSummary:
        # Cells of one condition share their baseline arm and (mostly) its paired tasks.
        key = (id(arm), tuple(tasks))
        if key not in summaries:
            summaries[key] = summarise_arm(arm, tasks)
        return summaries[key]

    out = []
    for i, cell in enumerate(cells):
        s = sources[i]
        retention: Retention | str = "no source cell given"
        if s is not None:
            retention = _retention(cell, cells[s], draws[i], draws[s], bounds[s][0], confidence)
        arms = (summary(cell.with_arm, cell.tasks), summary(cell.without_arm, cell.tasks))
        out.append(
            _metrics(cell, bounds[i], flips[i], retention, arms, bootstrap, seed, confidence)
        )
    return out


def _metrics(
    cell: PairedArms,
    bounds: list[Interval],
    flip: tuple[float, FlipMethod],
    retention: Retention | str,
    arms: tuple[ArmSummary, ArmSummary],
    bootstrap: int,
    seed: int,
    confidence: float,
) -> CellMetrics:
    gain_ci, with_ci, without_ci = bounds
    score_with, score_without = cell.mean(_WITH), cell.mean(_WITHOUT)
    n_tasks = len(cell.tasks)
    ceiling = score_without >= CEILING - TOLERANCE
    return CellMetrics(
        seed=seed,
        bootstrap=bootstrap,
        confidence=confidence,
        n_tasks=n_tasks,
        n_dropped_tasks=cell.dropped,
        cluster_level=cell.level,
        n_clusters=len(cell.ids),
        few_clusters=cell.level == "family" and len(cell.ids) < FEW_FAMILIES,
        score_with=score_with,
        score_without=score_without,
        score_with_ci=with_ci,
        score_without_ci=without_ci,
        gain=cell.mean(_DIFF),
        gain_ci=gain_ci,
        interval_method=cell.method,
        p_negative=flip[0],
        p_negative_method=flip[1],
        sign_test=cell.sign_test,
        net_win=(cell.sign_test.wins - cell.sign_test.losses) / n_tasks,
        loo=_leave_one_out(cell),
        retention=retention if isinstance(retention, Retention) else None,
        retention_reason=retention if isinstance(retention, str) else None,
        obsolete=ceiling and max(-gain_ci.lo, gain_ci.hi) <= OBSOLETE_MARGIN + TOLERANCE,
        ceiling=ceiling,
        floor=score_with <= TOLERANCE and score_without <= TOLERANCE,
        provisional=n_tasks < PROVISIONAL_BELOW,
        with_arm=arms[0],
        without_arm=arms[1],
    )


def cell_metrics(
    with_arm: ArmOutcomes,
    without_arm: ArmOutcomes,
    *,
    bootstrap: int = 10_000,
    seed: int,
    source: tuple[ArmOutcomes, ArmOutcomes] | None = None,
    confidence: float = 0.95,
) -> CellMetrics:
    """Metrics of one cell: scores, gain with intervals and p-value, sign test, flags, per arm.

    ``source`` is the (with, without) pair of the same submission in the source condition;
    given it, retention is reported where the source cell's own gain interval lies above 0.
    The numbers are those ``cells_metrics`` gives the cell inside a whole matrix. Raises
    ``ReportError`` when no task has a valid trial in both arms.
    """
    _check_settings(bootstrap, seed, confidence)
    cells = [pair_arms(with_arm, without_arm)]
    if source is not None:
        cells.append(pair_arms(*source, what="source cell"))
    sources = [1, None] if source is not None else [None]
    return cells_metrics(cells, sources, bootstrap=bootstrap, seed=seed, confidence=confidence)[0]


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
        """True when the interval lies wholly above or below 0 (by more than the tolerance)."""
        return self.ci.lo > TOLERANCE or self.ci.hi < -TOLERANCE


def pair_for_difference(
    adapted: ArmOutcomes, frozen: ArmOutcomes, baseline: ArmOutcomes
) -> PairedArms:
    """The adapted arm paired with the frozen one over the tasks valid in all three arms.
    Raises ``ReportError`` when there is none."""
    valid = {t for t, x in baseline.tasks.items() if x.valid}
    frozen_valid = ArmOutcomes(tasks={t: x for t, x in frozen.tasks.items() if t in valid})
    return pair_arms(adapted, frozen_valid, what="adapted and frozen arms")


def gain_differences(
    pairs: Sequence[PairedArms],
    *,
    bootstrap: int = 10_000,
    seed: int,
    confidence: float = 0.95,
) -> list[GainDifference]:
    """Adapted gain minus frozen gain of each ``pair_for_difference`` pair; the bootstrap draws
    are the shared ones of each pair's clusters (``resample_counts``)."""
    _check_settings(bootstrap, seed, confidence)
    bounds, _ = _intervals(
        pairs, set(), bootstrap=bootstrap, seed=seed, confidence=confidence, rows=(_DIFF,)
    )
    return [
        GainDifference(
            value=p.mean(_DIFF),
            ci=b[0],
            interval_method=p.method,
            n_tasks=len(p.tasks),
        )
        for p, b in zip(pairs, bounds, strict=True)
    ]


def gain_difference(
    adapted: ArmOutcomes,
    frozen: ArmOutcomes,
    baseline: ArmOutcomes,
    *,
    bootstrap: int = 10_000,
    seed: int,
    confidence: float = 0.95,
) -> GainDifference:
    """Adapted gain minus frozen gain of one cell, paired by task (``gain_differences``).
    Raises ``ReportError`` when no task is valid in all three arms."""
    _check_settings(bootstrap, seed, confidence)
    pair = pair_for_difference(adapted, frozen, baseline)
    return gain_differences([pair], bootstrap=bootstrap, seed=seed, confidence=confidence)[0]
