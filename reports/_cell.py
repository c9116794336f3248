"""Metrics of transfer-matrix cells from their arms' trial outcomes, and the FDR decisions.

Every number of a cell is a closed-form function of its own trials (and its source cell's):
no random draw, so ``vwt report verify`` recomputes it exactly.

- Interval: the t-interval over tasks, stratified by family, with a floor on the standard
  error (``reports._stats_strata``); chosen by simulation (docs/statistics.md).
- Negative transfer: the one-sided t-test of the same estimate (so an interval wholly below 0
  is a p-value below (1 - confidence) / 2), decided by Benjamini-Hochberg across the artifact
  cells of the release.
- Critical drift failures: the exact one-sided test of the trial pairs where only one arm was
  critical (McNemar's), decided by Benjamini-Hochberg across the same cells.
- Retention: a Fieller interval adjusted for the gate that reports it (where the source gain
  is precise: ``reports._retention``, ``reports._stats_selective``).

Tolerance: every threshold gate (ceiling, floor, obsolescence, excludes zero, the retention
gate, the sign of a leave-one-out gain) compares with ``TOLERANCE`` of slack.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reports._interval import TOLERANCE, Interval
from reports._power import minimum_detectable_gain
from reports._retention import Retention, RetentionStatus, retention
from reports._stats import (
    benjamini_hochberg,
    binomial_sign_test,
    screened_benjamini_hochberg,
)
from reports._stats_arms import ArmOutcomes, ArmSummary, summarise_arm, task_families
from reports._stats_strata import Estimate, Stratum, stratified, stratified_covariance
from reports.errors import ReportError

OBSOLETE_MARGIN = 0.05
"""A gain interval inside +-this margin (with a baseline at the ceiling) marks obsolescence."""
CEILING = 0.9
"""A baseline score at or above this is at the ceiling."""
PROVISIONAL_BELOW = 3
"""A cell with fewer paired tasks than this is provisional."""
GAIN_BOUNDS = (-1.0, 1.0)
"""A gain is a difference of two success rates: its interval is clipped to these bounds."""
SCORE_BOUNDS = (0.0, 1.0)
"""An arm's score is a success rate: its interval is clipped to these bounds."""

IntervalMethod = Literal["t", "stratified_t"]
"""How an interval is computed: the t-interval over tasks (one family), or over tasks within
each family, family means weighted by their task counts; both with the floored standard error."""

METHOD_TEXT: dict[str, str] = {
    "t": "t over tasks",
    "stratified_t": "t over tasks within families",
}
"""How each interval method is named wherever an interval is shown."""

Variation = Literal["varied", "no_variation", "identical"]
"""Whether the cell's task gains vary: ``identical`` when every trial with the artifacts had
its paired baseline trial's outcome; ``no_variation`` when every task of each family has the
same gain (the standard error is the floor alone)."""

CellVersion = Literal[4, 5]
"""The ``CellMetrics`` schemas this vwt computes: 5 (release format 8) and, to verify older
releases, 4 (formats 6 and 7), whose retention interval is plain Fieller."""

TestFamily = Literal["artifacts", "noise_check", "duplicate"]
"""Which Benjamini-Hochberg family a cell's tests belong to: ``artifacts`` (every distinct cell
of a submission with artifacts), ``noise_check`` (a submission with no artifacts: an A/A
comparison with the baseline, tested on its own), ``duplicate`` (an adapted cell that reuses
its frozen cell's trials: decided with that cell, counted once)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SignTest(_Frozen):
    """Paired sign test over tasks: does the artifact arm beat the baseline more often?"""

    wins: int = Field(description="Tasks where the artifact arm scored higher.")
    losses: int = Field(description="Tasks where the artifact arm scored lower.")
    ties: int = Field(description="Tasks with equal scores (excluded from the test).")
    p: float = Field(description="Exact one-sided binomial p-value of wins among wins + losses.")


class LeaveOneOut(_Frozen):
    """How far the gain moves when any one task is left out."""

    min_gain: float = Field(
        description="Smallest gain over leaving out each single task (the gain itself when "
        "the cell has one task)."
    )
    max_gain: float = Field(description="Largest gain over leaving out each single task.")
    sign_stable: bool = Field(
        description="True when the gain is non-zero (beyond the tolerance) and keeps its sign "
        "whichever one task is left out; False with a single task."
    )


class CriticalTest(_Frozen):
    """Did the artifacts cause critical drift failures? The exact paired test over trials."""

    pairs: int = Field(
        description="Trial pairs: the same task and trial index, valid in both arms."
    )
    with_only: int = Field(description="Pairs critical with the artifacts, not in the baseline.")
    baseline_only: int = Field(description="Pairs critical in the baseline, not with them.")
    p: float = Field(
        description="Exact one-sided p-value of P(X >= with_only), X ~ Binomial(with_only + "
        "baseline_only, 1/2): McNemar's test that the artifacts add critical failures."
    )


class CellMetrics(_Frozen):
    """Everything the transfer matrix reports about one cell (artifact arm vs baseline)."""

    v: CellVersion = Field(
        default=5,
        description="Schema version: 5 adjusts retention's interval for the gate that reports "
        "it; 4 has closed-form stratified t statistics, the critical test, plain Fieller "
        "retention and the test families (3 had bootstrap intervals).",
    )
    confidence: float = Field(description="Coverage of the reported intervals, e.g. 0.95.")
    n_tasks: int = Field(description="Tasks with at least one valid trial in both arms.")
    n_dropped_tasks: int = Field(description="Tasks of either arm left out for lack of one.")
    n_families: int = Field(description="Task families of the paired tasks (the strata).")
    score_with: float = Field(description="Mean per-task success rate with artifacts.")
    score_without: float = Field(description="Mean per-task success rate of the baseline.")
    score_with_ci: Interval = Field(
        description="Interval of score_with by interval_method, clipped to [0, 1]."
    )
    score_without_ci: Interval = Field(
        description="Interval of score_without, as score_with_ci (the baseline arm's score)."
    )
    gain: float = Field(description="Mean over tasks of (score with - score without).")
    gain_ci: Interval = Field(description="Interval of the gain by interval_method.")
    gain_se: float = Field(description="Standard error of the gain (floored, stratified).")
    df: int = Field(description="Degrees of freedom of the gain's t (Welch-Satterthwaite).")
    interval_method: IntervalMethod = Field(
        description="t (one family) or stratified_t (several): see IntervalMethod."
    )
    mde: float = Field(
        description="Minimum detectable gain: the true gain whose interval would exclude 0 "
        "with 80% probability at this cell's standard error."
    )
    variation: Variation = Field(description="Whether the task gains vary (see Variation).")
    p_negative: float = Field(
        description="One-sided t-test p-value of H0 gain >= 0 against gain < 0, by the gain's "
        "standard error and degrees of freedom."
    )
    critical: CriticalTest = Field(description="The paired test of critical drift failures.")
    sign_test: SignTest = Field(description="Paired sign test over tasks.")
    net_win: float = Field(description="(wins - losses) / n_tasks.")
    loo: LeaveOneOut = Field(description="Leave-one-task-out sensitivity of the gain.")
    retention: Retention | None = Field(description="Retention, where it may be reported.")
    retention_status: RetentionStatus = Field(
        description="reported, or why not: identical_trials, unstable, no_source_gain, "
        "no_source_cell."
    )
    retention_reason: str | None = Field(description="Why retention is not reported, if not.")
    obsolete: bool = Field(description="Gain interval inside +-0.05 and baseline >= 0.9.")
    ceiling: bool = Field(
        description="Baseline >= 0.9 and the gain's interval not wholly below 0: little room "
        "for a gain (a reliably negative gain is not explained by the ceiling)."
    )
    floor: bool = Field(description="Both arms scored 0.")
    provisional: bool = Field(description="Fewer than 3 paired tasks.")
    with_arm: ArmSummary = Field(description="Drift failures, stops, invalids, pass^k: artifacts.")
    without_arm: ArmSummary = Field(description="The same for the baseline arm.")
    test_family: TestFamily | None = Field(
        default=None, description="The cell's Benjamini-Hochberg family; None until decided."
    )
    negative_transfer: bool | None = Field(
        default=None,
        description="BH decision on p_negative across the artifact cells; None for a noise "
        "check, or until apply_fdr runs.",
    )
    critical_excess: bool | None = Field(
        default=None,
        description="BH decision on critical.p across the artifact cells whose discordant "
        "pairs could reach q at all (2^-pairs <= q): the artifacts caused significantly more "
        "critical failures. None for a noise check, or until decided.",
    )
    noise_differs: bool | None = Field(
        default=None,
        description="Noise checks only: BH across the noise-check cells (two-sided gain and "
        "critical tests) found the no-artifacts arm differing from the baseline.",
    )
    fdr_q: float | None = Field(default=None, description="FDR level of the decisions.")


def method_text(m: CellMetrics) -> str:
    """How a cell's interval was computed, e.g. '95% t over tasks, 23 df'."""
    return f"{m.confidence:.0%} {METHOD_TEXT[m.interval_method]}, {m.df} df"


RETENTION_METHOD_TEXT: dict[int, str] = {
    4: "Fieller",
    5: "Fieller, adjusted for the gate",
}
"""How each ``CellMetrics`` version computes retention's interval, as shown with it."""


def retention_method_text(m: CellMetrics) -> str:
    """How a cell's retention interval was computed: adjusted for its gate since v5."""
    return RETENTION_METHOD_TEXT[m.v]


_DIFF, _WITH, _WITHOUT = 0, 1, 2
"""The quantities of ``PairedArms.strata``: the gain's, the artifact arm's and the baseline's."""


@dataclass(frozen=True)
class PairedArms:
    """The tasks of a cell with a valid trial in both arms, in strata by family.

    Task scores are scaled by ``scale`` (the least common multiple of the valid trial counts),
    so every value is an integer and every sum exact.
    """

    with_arm: ArmOutcomes
    without_arm: ArmOutcomes
    tasks: list[str]
    scale: int
    strata: tuple[tuple[Stratum, ...], ...]
    """Per quantity (difference, score with, score without): one stratum per family, sorted."""
    sign_test: SignTest
    critical: CriticalTest
    identical: bool
    """Every trial of either arm has its paired trial's outcome in the other."""
    dropped: int

    def estimate(self, row: int) -> Estimate:
        """The stratified estimate of quantity ``row``."""
        return stratified(self.strata[row], self.scale)

    @property
    def method(self) -> IntervalMethod:
        """How this cell's intervals are computed (``interval_method``)."""
        return "t" if len(self.strata[_DIFF]) == 1 else "stratified_t"

    def gains(self) -> dict[str, Fraction]:
        """Each task's gain, exactly."""
        return {
            t: Fraction(v, self.scale)
            for s in self.strata[_DIFF]
            for t, v in zip(s.tasks, s.values, strict=True)
        }


def _critical_pairs(with_arm: ArmOutcomes, without_arm: ArmOutcomes) -> tuple[int, int, int]:
    """Trial pairs (same task, same trial position, both valid); those critical only with the
    artifacts; those critical only in the baseline."""
    pairs = with_only = baseline_only = 0
    for task in with_arm.tasks.keys() & without_arm.tasks.keys():
        xs, ys = with_arm.tasks[task].outcomes, without_arm.tasks[task].outcomes
        for x, y in zip(xs, ys, strict=False):
            if "invalid" in (x, y):
                continue
            pairs += 1
            with_only += x == "critical" and y != "critical"
            baseline_only += y == "critical" and x != "critical"
    return pairs, with_only, baseline_only


def _strata(
    tasks: list[str], family: dict[str, str], values: list[int], trials: list[int]
) -> tuple[Stratum, ...]:
    grouped: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(tasks):
        grouped[family[t]].append(i)
    return tuple(
        Stratum(
            family=f,
            tasks=tuple(tasks[i] for i in grouped[f]),
            values=tuple(values[i] for i in grouped[f]),
            trials=sum(trials[i] for i in grouped[f]),
        )
        for f in sorted(grouped)
    )


def pair_arms(with_arm: ArmOutcomes, without_arm: ArmOutcomes, what: str = "cell") -> PairedArms:
    """Pair two arms by task; raises ``ReportError`` when no task is valid in both."""
    family = dict(task_families(with_arm, without_arm))
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
    diffs = [x - y for x, y in zip(scaled_with, scaled_without, strict=True)]
    wins, losses = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    pairs, with_only, baseline_only = _critical_pairs(with_arm, without_arm)
    paired_trials = [min(counts[t][1], counts[t][3]) for t in tasks]
    return PairedArms(
        with_arm=with_arm,
        without_arm=without_arm,
        tasks=tasks,
        scale=scale,
        strata=(
            _strata(tasks, family, diffs, paired_trials),
            _strata(tasks, family, scaled_with, [counts[t][1] for t in tasks]),
            _strata(tasks, family, scaled_without, [counts[t][3] for t in tasks]),
        ),
        sign_test=SignTest(
            wins=wins,
            losses=losses,
            ties=len(tasks) - wins - losses,
            p=binomial_sign_test(wins, losses),
        ),
        critical=CriticalTest(
            pairs=pairs,
            with_only=with_only,
            baseline_only=baseline_only,
            p=binomial_sign_test(with_only, baseline_only),
        ),
        identical=with_arm.tasks == without_arm.tasks,
        dropped=len(family) - len(tasks),
    )


def _check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ReportError(f"confidence must be in (0, 1), got {confidence}", hint="e.g. 0.95")


def _sign(x: float) -> int:
    return 1 if x > TOLERANCE else -1 if x < -TOLERANCE else 0


def _leave_one_out(cell: PairedArms, gain: float) -> LeaveOneOut:
    values = [v for s in cell.strata[_DIFF] for v in s.values]
    if len(values) < 2:
        return LeaveOneOut(min_gain=gain, max_gain=gain, sign_stable=False)
    total, n = sum(values), len(values)
    left = [(total - v) / ((n - 1) * cell.scale) for v in values]
    stable = _sign(gain) != 0 and all(_sign(x) == _sign(gain) for x in left)
    return LeaveOneOut(min_gain=min(left), max_gain=max(left), sign_stable=stable)


def _interval(estimate: Estimate, confidence: float, bounds: tuple[float, float]) -> Interval:
    lo, hi = estimate.interval(confidence, bounds)
    return Interval(lo=lo, hi=hi)


def _retention(
    cell: PairedArms, source: PairedArms, confidence: float, version: CellVersion
) -> tuple[Retention | None, RetentionStatus, str | None]:
    target_gains, source_gains = cell.gains(), source.gains()
    shared = target_gains.keys() & source_gains.keys()
    covariance = stratified_covariance(
        cell.strata[_DIFF], cell.scale, source.strata[_DIFF], source.scale
    )
    return retention(
        cell.estimate(_DIFF),
        source.estimate(_DIFF),
        covariance,
        len(shared),
        identical=target_gains == source_gains,
        confidence=confidence,
        adjusted=version >= 5,
    )


def cells_metrics(
    cells: Sequence[PairedArms],
    sources: Sequence[int | None],
    *,
    confidence: float = 0.95,
    version: CellVersion = 5,
) -> list[CellMetrics]:
    """Metrics of every cell; ``sources[i]`` is the index of cell i's source cell, or None.

    Cell i's numbers depend only on its own arms, its source cell's arms and ``confidence``.
    ``version`` is the ``CellMetrics`` schema to compute (4 only to verify an older release).
    """
    _check_confidence(confidence)
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
        kept: tuple[Retention | None, RetentionStatus, str | None] = (
            None,
            "no_source_cell",
            "no source cell given",
        )
        if s is not None:
            kept = _retention(cell, cells[s], confidence, version)
        arms = (summary(cell.with_arm, cell.tasks), summary(cell.without_arm, cell.tasks))
        out.append(_metrics(cell, kept, arms, confidence, version))
    return out


def _variation(cell: PairedArms, gain: Estimate) -> Variation:
    if cell.identical:
        return "identical"
    return "varied" if gain.varied else "no_variation"


def _metrics(
    cell: PairedArms,
    kept: tuple[Retention | None, RetentionStatus, str | None],
    arms: tuple[ArmSummary, ArmSummary],
    confidence: float,
    version: CellVersion,
) -> CellMetrics:
    gain, with_, without = (cell.estimate(row) for row in (_DIFF, _WITH, _WITHOUT))
    gain_ci = _interval(gain, confidence, GAIN_BOUNDS)
    n_tasks = len(cell.tasks)
    at_ceiling = without.mean >= CEILING - TOLERANCE
    return CellMetrics(
        v=version,
        confidence=confidence,
        n_tasks=n_tasks,
        n_dropped_tasks=cell.dropped,
        n_families=len(cell.strata[_DIFF]),
        score_with=with_.mean,
        score_without=without.mean,
        score_with_ci=_interval(with_, confidence, SCORE_BOUNDS),
        score_without_ci=_interval(without, confidence, SCORE_BOUNDS),
        gain=gain.mean,
        gain_ci=gain_ci,
        gain_se=gain.se,
        df=gain.df,
        interval_method=cell.method,
        mde=minimum_detectable_gain(gain.se, gain.df, confidence=confidence),
        variation=_variation(cell, gain),
        p_negative=gain.p_below_zero(),
        critical=cell.critical,
        sign_test=cell.sign_test,
        net_win=(cell.sign_test.wins - cell.sign_test.losses) / n_tasks,
        loo=_leave_one_out(cell, gain.mean),
        retention=kept[0],
        retention_status=kept[1],
        retention_reason=kept[2],
        obsolete=at_ceiling and max(-gain_ci.lo, gain_ci.hi) <= OBSOLETE_MARGIN + TOLERANCE,
        ceiling=at_ceiling and gain_ci.hi >= -TOLERANCE,
        floor=with_.mean <= TOLERANCE and without.mean <= TOLERANCE,
        provisional=n_tasks < PROVISIONAL_BELOW,
        with_arm=arms[0],
        without_arm=arms[1],
    )


def cell_metrics(
    with_arm: ArmOutcomes,
    without_arm: ArmOutcomes,
    *,
    source: tuple[ArmOutcomes, ArmOutcomes] | None = None,
    confidence: float = 0.95,
) -> CellMetrics:
    """Metrics of one cell: scores, gain with intervals and p-value, tests, flags, per arm.

    ``source`` is the (with, without) pair of the same submission in the source condition;
    given it, retention is reported where the source gain is precise. The numbers are those
    ``cells_metrics`` gives the cell inside a whole matrix. Raises ``ReportError`` when no task
    has a valid trial in both arms.
    """
    _check_confidence(confidence)
    cells = [pair_arms(with_arm, without_arm)]
    if source is not None:
        cells.append(pair_arms(*source, what="source cell"))
    sources = [1, None] if source is not None else [None]
    return cells_metrics(cells, sources, confidence=confidence)[0]


def _smallest_p(c: CriticalTest) -> float:
    """The smallest p-value McNemar's test can give with this many discordant pairs."""
    return binomial_sign_test(c.with_only + c.baseline_only, 0)


def two_sided(p_below: float) -> float:
    """The two-sided p-value of a t-test from its lower-tail one."""
    return min(1.0, 2.0 * min(p_below, 1.0 - p_below))


def apply_fdr(
    cells: Sequence[CellMetrics],
    q: float = 0.05,
    *,
    families: Sequence[TestFamily] | None = None,
    duplicate_of: Sequence[int | None] | None = None,
) -> list[CellMetrics]:
    """Decide negative transfer and critical excess by Benjamini-Hochberg, per test family.

    ``families`` gives each cell's family (default: every cell an artifact cell). Artifact
    cells: one BH family of their p_negative values and another of their critical p-values,
    screened to the cells whose discordant pairs could reach q at all
    (``screened_benjamini_hochberg``).
    Noise checks: one BH family of their two-sided gain and critical p-values together, each
    cell's ``noise_differs`` true when either is rejected. Duplicates take the decisions of the
    cell ``duplicate_of[i]`` (which must not be a duplicate) and are not counted.
    """
    fams = list(families) if families is not None else ["artifacts"] * len(cells)
    dups = list(duplicate_of) if duplicate_of is not None else [None] * len(cells)
    if len(fams) != len(cells) or len(dups) != len(cells):
        raise ReportError("apply_fdr needs one family and one duplicate_of entry per cell")
    art = [i for i, f in enumerate(fams) if f == "artifacts"]
    noise = [i for i, f in enumerate(fams) if f == "noise_check"]
    negative = benjamini_hochberg([cells[i].p_negative for i in art], q)
    critical = screened_benjamini_hochberg(
        [cells[i].critical.p for i in art], [_smallest_p(cells[i].critical) for i in art], q
    )
    noisy = screened_benjamini_hochberg(
        [two_sided(cells[i].p_negative) for i in noise] + [cells[i].critical.p for i in noise],
        [0.0] * len(noise) + [_smallest_p(cells[i].critical) for i in noise],
        q,
    )
    update: dict[int, dict[str, object]] = {}
    for j, i in enumerate(art):
        update[i] = {"negative_transfer": negative[j], "critical_excess": critical[j]}
    for j, i in enumerate(noise):
        update[i] = {"noise_differs": noisy[j] or noisy[len(noise) + j]}
    out = []
    for i, c in enumerate(cells):
        if fams[i] == "duplicate":
            d = dups[i]
            if d is None or fams[d] == "duplicate":
                raise ReportError(f"cell {i} is a duplicate of no decided cell")
            decided = update[d]
        else:
            decided = update[i]
        out.append(c.model_copy(update={**decided, "test_family": fams[i], "fdr_q": q}))
    return out


class GainDifference(_Frozen):
    """Adapted gain minus frozen gain over the tasks valid in all three arms (adapted, frozen,
    baseline). The baseline is the same in both gains, so this is the mean over tasks of
    (adapted score - frozen score); its interval is computed as a gain's."""

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
    pairs: Sequence[PairedArms], *, confidence: float = 0.95
) -> list[GainDifference]:
    """Adapted gain minus frozen gain of each ``pair_for_difference`` pair."""
    _check_confidence(confidence)
    out = []
    for p in pairs:
        estimate = p.estimate(_DIFF)
        out.append(
            GainDifference(
                value=estimate.mean,
                ci=_interval(estimate, confidence, GAIN_BOUNDS),
                interval_method=p.method,
                n_tasks=len(p.tasks),
            )
        )
    return out


def gain_difference(
    adapted: ArmOutcomes,
    frozen: ArmOutcomes,
    baseline: ArmOutcomes,
    *,
    confidence: float = 0.95,
) -> GainDifference:
    """Adapted gain minus frozen gain of one cell, paired by task (``gain_differences``).
    Raises ``ReportError`` when no task is valid in all three arms."""
    pair = pair_for_difference(adapted, frozen, baseline)
    return gain_differences([pair], confidence=confidence)[0]
