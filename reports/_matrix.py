"""The transfer matrix: one cell per (submission, condition, phase), from trial records alone."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from conditions import Condition
from reports._adapted import AdaptedCell, ReleasedAdaptation, cost_to_restore
from reports._cell import (
    CellMetrics,
    CellVersion,
    GainDifference,
    PairedArms,
    TestFamily,
    apply_fdr,
    cells_metrics,
    gain_differences,
    pair_arms,
    pair_for_difference,
)
from reports._stats_arms import ArmOutcomes
from reports.errors import ReportError
from runner import TrialRecord
from submissions import Bundle


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


def noise_check_bundles(bundles: Iterable[Bundle]) -> frozenset[str]:
    """Hashes of the ``bundles`` that hold no artifacts: their cells are the A/A noise check."""
    return frozenset(b.hash for b in bundles if not b.manifest.artifacts)


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


@dataclass(frozen=True)
class _Planned:
    """A cell to compute: where it is, its paired arms and its trials."""

    phase: str
    condition: str
    bundle: str
    paired: PairedArms
    invalid_trials: int
    adaptation: ReleasedAdaptation | None = None


def build_matrix(
    records: list[TrialRecord],
    *,
    conditions: Mapping[str, Condition],
    source_id: str,
    fdr_q: float = 0.05,
    adaptations: Sequence[ReleasedAdaptation] = (),
    noise_checks: Collection[str] = (),
    version: CellVersion = 5,
) -> list[Cell]:
    """Every cell with both arms recorded, its tests decided by BH across the artifact cells.

    Frozen cells pair each submission's trials with the baseline's in the same condition.
    Adapted cells, one per adaptation whose frozen cell exists, pair the adapted bundle's
    trials (the frozen ones when it is unchanged: ``reused``) with the frozen baseline's, and
    carry the adaptation (``AdaptedCell``); they are keyed by the submission's bundle hash.
    A target cell's retention is against the frozen cell of its bundle in ``source_id``.

    A cell's numbers follow from its own trials (and its source cell's) and do not depend on
    which other cells are in the release, nor on the keyed condition ids; only the BH decisions
    look across cells. The cells of ``noise_checks`` (bundle hashes of submissions with no
    artifacts) are the A/A check, tested in their own family; an adapted cell that reuses its
    frozen trials is a duplicate, decided with its frozen cell. Each arm's outcomes are built
    once, however many cells share it. ``conditions`` maps every condition id of ``records`` to
    its condition. ``version`` is the ``CellMetrics`` schema to compute: 5, or 4 to verify a
    release of format 6 or 7.
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
    outcomes = {key: _arm(recs) for key, recs in arms.items()}
    planned: list[_Planned] = []
    for phase, condition, bundle in sorted(arms):
        if phase == "adapted" or not bundle or (phase, condition, "") not in arms:
            continue
        planned.append(_plan(arms, outcomes, names, (phase, condition, bundle)))
    frozen = {(p.condition, p.bundle) for p in planned if p.phase == "frozen"}
    for a in adaptations:
        if (a.target, a.parent) in frozen:
            planned.append(_plan_adapted(arms, outcomes, names, a))
    index = {(p.phase, p.condition, p.bundle): i for i, p in enumerate(planned)}
    sources = [
        index.get(("frozen", source_id, p.bundle)) if p.condition != source_id else None
        for p in planned
    ]
    metrics = cells_metrics([p.paired for p in planned], sources, version=version)
    adapted = [(i, p, p.adaptation) for i, p in enumerate(planned) if p.adaptation is not None]
    pairs = [_difference_pair(p, a, outcomes) for _, p, a in adapted]
    differences = dict(
        zip(
            (i for i, _, _ in adapted),
            gain_differences(pairs),
            strict=True,
        )
    )
    cells = [
        _cell(p, m, names, differences.get(i), frozen=metrics, index=index)
        for i, (p, m) in enumerate(zip(planned, metrics, strict=True))
    ]
    families, duplicate_of = _test_families(planned, index, noise_checks)
    decided = apply_fdr(
        [c.metrics for c in cells], fdr_q, families=families, duplicate_of=duplicate_of
    )
    return [c.model_copy(update={"metrics": m}) for c, m in zip(cells, decided, strict=True)]


def _test_families(
    planned: Sequence[_Planned],
    index: Mapping[tuple[str, str, str], int],
    noise_checks: Collection[str],
) -> tuple[list[TestFamily], list[int | None]]:
    """Each cell's BH family, and for a duplicate the cell whose decisions it takes."""
    families: list[TestFamily] = []
    duplicate_of: list[int | None] = []
    for p in planned:
        if p.adaptation is not None and p.adaptation.reused:
            families.append("duplicate")
            duplicate_of.append(index[("frozen", p.condition, p.bundle)])
            continue
        families.append("noise_check" if p.bundle in noise_checks else "artifacts")
        duplicate_of.append(None)
    return families, duplicate_of


Arms = dict[tuple[str, str, str], list[TrialRecord]]
Outcomes = dict[tuple[str, str, str], ArmOutcomes]


def _where(names: dict[str, str], phase: str, condition: str, bundle: str) -> str:
    return f"{names[bundle]} ({bundle[:12]}…) in condition {condition}, {phase} phase"


def _plan(
    arms: Arms,
    outcomes: Outcomes,
    names: dict[str, str],
    key: tuple[str, str, str],
    *,
    with_key: tuple[str, str, str] | None = None,
    adaptation: ReleasedAdaptation | None = None,
) -> _Planned:
    """The cell ``key`` = (phase, condition, bundle): its trials (those of ``with_key``, default
    ``key``) against the baseline's. An adapted cell's baseline is the frozen one."""
    phase, condition, bundle = key
    run = "frozen" if phase == "adapted" else phase
    with_key = with_key or key
    baseline = (run, condition, "")
    try:
        paired = pair_arms(outcomes[with_key], outcomes[baseline])
    except ReportError as e:
        raise ReportError(f"{e}: {_where(names, phase, condition, bundle)}", e.hint) from None
    return _Planned(
        phase=phase,
        condition=condition,
        bundle=bundle,
        paired=paired,
        invalid_trials=sum(r.outcome == "invalid" for r in (*arms[with_key], *arms[baseline])),
        adaptation=adaptation,
    )


def _plan_adapted(
    arms: Arms, outcomes: Outcomes, names: dict[str, str], a: ReleasedAdaptation
) -> _Planned:
    with_key = ("frozen" if a.reused else "adapted", a.target, a.adapted)
    if with_key not in arms:
        raise ReportError(
            f"the adaptation of {a.submission} to {a.target} ({a.adapted[:12]}…) has no "
            "adapted trials",
            "run `vwt run adapted` before building the release",
        )
    return _plan(
        arms, outcomes, names, ("adapted", a.target, a.parent), with_key=with_key, adaptation=a
    )


def _difference_pair(p: _Planned, a: ReleasedAdaptation, outcomes: Outcomes) -> PairedArms:
    """The adapted cell's arm paired with its frozen arm, over tasks valid in the baseline."""
    try:
        return pair_for_difference(
            p.paired.with_arm, outcomes[("frozen", a.target, a.parent)], p.paired.without_arm
        )
    except ReportError as e:
        raise ReportError(f"{e}: {a.submission} adapted to {a.target}", e.hint) from None


def _cell(
    p: _Planned,
    metrics: CellMetrics,
    names: dict[str, str],
    difference: GainDifference | None,
    *,
    frozen: list[CellMetrics],
    index: dict[tuple[str, str, str], int],
) -> Cell:
    cell = Cell(
        phase=p.phase,
        condition_id=p.condition,
        submission=names[p.bundle],
        bundle_hash=p.bundle,
        metrics=metrics,
        invalid_trials=p.invalid_trials,
        dropped_tasks=_dropped_for_invalid(p.paired.with_arm, p.paired.without_arm),
    )
    a = p.adaptation
    if a is None or difference is None:
        return cell
    return cell.model_copy(
        update={
            "adaptation": AdaptedCell(
                adapted_hash=a.adapted,
                procedure=a.procedure,
                reused=a.reused,
                frozen_gain=frozen[index[("frozen", a.target, a.parent)]].gain,
                difference=difference,
                cost=a.cost,
                cost_to_restore=cost_to_restore(difference, a.cost),
                leak_flagged=a.leak.flagged,
            )
        }
    )
