"""The transfer matrix: one cell per (submission, condition, phase), from trial records alone."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field

from benchmark import stable_int
from conditions import Condition
from reports._adapted import AdaptedCell, ReleasedAdaptation, cost_to_restore
from reports._cell import CellMetrics, apply_fdr, cell_metrics, gain_difference
from reports._stats_arms import ArmOutcomes
from reports.errors import ReportError
from runner import TrialRecord


class Cell(BaseModel):
    """One cell of the matrix."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    phase: str = Field(description="'frozen' or 'adapted'.")
    condition_id: str = Field(description="Condition id.")
    submission: str = Field(description="name@version of the submission.")
    bundle_hash: str = Field(description="Bundle hash of the submission.")
    metrics: CellMetrics = Field(description="Gain, intervals, failures, pass^k, flags.")
    invalid_trials: int = Field(
        description="Invalid trials in the cell's two arms (non-zero only when accepted)."
    )
    dropped_tasks: int = Field(
        description="Tasks left out of the cell because their trials in one arm were invalid."
    )
    adaptation: AdaptedCell | None = Field(
        default=None,
        description="Adapted cells: the adaptation, the frozen gain, the difference and cost.",
    )


def _arm(records: Iterable[TrialRecord]) -> ArmOutcomes:
    ordered = sorted(records, key=lambda r: (r.task_id, r.trial))
    return ArmOutcomes.from_trials((r.task_id, r.family, r.outcome) for r in ordered)


def _dropped_for_invalid(with_arm: ArmOutcomes, without_arm: ArmOutcomes) -> int:
    """Tasks of either arm without a valid trial in both, that had an invalid trial."""
    arms = (with_arm.tasks, without_arm.tasks)
    return sum(
        1
        for t in arms[0].keys() | arms[1].keys()
        if not all(t in a and a[t].valid for a in arms)
        and any("invalid" in a[t].outcomes for a in arms if t in a)
    )


def build_matrix(
    records: list[TrialRecord],
    *,
    conditions: Mapping[str, Condition],
    source_id: str,
    seed: int,
    bootstrap: int = 10_000,
    fdr_q: float = 0.05,
    adaptations: Sequence[ReleasedAdaptation] = (),
) -> list[Cell]:
    """Every cell with both arms recorded, negative transfer decided by BH across all cells.

    Frozen cells pair each submission's trials with the baseline's in the same condition.
    Adapted cells, one per adaptation whose frozen cell exists, pair the adapted bundle's
    trials (the frozen ones when it is unchanged: ``reused``) with the frozen baseline's, and
    carry the adaptation (``AdaptedCell``); they are keyed by the submission's bundle hash.

    Each cell's random draws are seeded from (``seed``, phase, condition, bundle), so a cell's
    numbers do not depend on which other cells are in the release. ``conditions`` maps every
    condition id of ``records`` to its condition: the seed takes the condition's content, not
    its id, which is keyed per cycle — the same trials give the same cell in any cycle.
    """
    unknown = sorted({r.condition_id for r in records} - conditions.keys())
    if unknown:
        raise ReportError(f"trial records of unknown conditions: {', '.join(unknown)}")
    arms: dict[tuple[str, str, str], list[TrialRecord]] = defaultdict(list)
    names: dict[str, str] = {}
    for r in records:
        arms[(r.phase, r.condition_id, r.bundle_hash or "")].append(r)
        if r.bundle_hash and r.submission:
            names[r.bundle_hash] = r.submission
    cells = []
    for phase, condition, bundle in sorted(arms):
        if phase == "adapted" or not bundle or (phase, condition, "") not in arms:
            continue
        cells.append(
            _cell(arms, names, conditions, source_id, seed, bootstrap, phase, condition, bundle)
        )
    frozen = {(c.condition_id, c.bundle_hash): c for c in cells if c.phase == "frozen"}
    for a in adaptations:
        if (a.target, a.parent) in frozen:
            cells.append(
                _adapted_cell(arms, names, conditions, source_id, seed, bootstrap, a, frozen)
            )
    decided = apply_fdr([c.metrics for c in cells], fdr_q) if cells else []
    return [c.model_copy(update={"metrics": m}) for c, m in zip(cells, decided, strict=True)]


Arms = dict[tuple[str, str, str], list[TrialRecord]]


def _cell(
    arms: Arms,
    names: dict[str, str],
    conditions: Mapping[str, Condition],
    source_id: str,
    seed: int,
    bootstrap: int,
    phase: str,
    condition: str,
    bundle: str,
    *,
    recs: list[TrialRecord] | None = None,
) -> Cell:
    """The ``phase`` cell of ``bundle`` in ``condition``: its ``recs`` (default: its trials of
    that phase) with the baseline's, retention against its source cell. An adapted cell's
    baseline and source are the frozen ones."""
    run = "frozen" if phase == "adapted" else phase
    recs = arms[(run, condition, bundle)] if recs is None else recs
    baseline = arms[(run, condition, "")]
    source = None
    if condition != source_id and (run, source_id, bundle) in arms:
        source = (_arm(arms[(run, source_id, bundle)]), _arm(arms[(run, source_id, "")]))
    with_arm, without_arm = _arm(recs), _arm(baseline)
    try:
        metrics = cell_metrics(
            with_arm,
            without_arm,
            bootstrap=bootstrap,
            seed=_seed(seed, phase, conditions[condition], bundle),
            source=source,
        )
    except ReportError as e:
        where = f"{names[bundle]} ({bundle[:12]}…) in condition {condition}, {phase} phase"
        raise ReportError(f"{e}: {where}", e.hint) from None
    return Cell(
        phase=phase,
        condition_id=condition,
        submission=names[bundle],
        bundle_hash=bundle,
        metrics=metrics,
        invalid_trials=sum(r.outcome == "invalid" for r in (*recs, *baseline)),
        dropped_tasks=_dropped_for_invalid(with_arm, without_arm),
    )


def _seed(seed: int, phase: str, condition: Condition, bundle: str) -> int:
    return stable_int(seed, phase, condition.canonical().decode(), bundle) % (2**32)


def _adapted_cell(
    arms: Arms,
    names: dict[str, str],
    conditions: Mapping[str, Condition],
    source_id: str,
    seed: int,
    bootstrap: int,
    a: ReleasedAdaptation,
    frozen: dict[tuple[str, str], Cell],
) -> Cell:
    recs = arms[("frozen" if a.reused else "adapted", a.target, a.adapted)]
    if not recs:
        raise ReportError(
            f"the adaptation of {a.submission} to {a.target} ({a.adapted[:12]}…) has no "
            "adapted trials",
            "run `vwt run adapted` before building the release",
        )
    cell = _cell(
        arms,
        names,
        conditions,
        source_id,
        seed,
        bootstrap,
        "adapted",
        a.target,
        a.parent,
        recs=recs,
    )
    try:
        difference = gain_difference(
            _arm(recs),
            _arm(arms[("frozen", a.target, a.parent)]),
            _arm(arms[("frozen", a.target, "")]),
            bootstrap=bootstrap,
            seed=cell.metrics.seed,
        )
    except ReportError as e:
        raise ReportError(f"{e}: {a.submission} adapted to {a.target}", e.hint) from None
    return cell.model_copy(
        update={
            "adaptation": AdaptedCell(
                adapted_hash=a.adapted,
                procedure=a.procedure,
                reused=a.reused,
                frozen_gain=frozen[(a.target, a.parent)].metrics.gain,
                difference=difference,
                cost=a.cost,
                cost_to_restore=cost_to_restore(difference, a.cost),
                leak_flagged=a.leak.flagged,
            )
        }
    )
