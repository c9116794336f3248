"""The transfer matrix: one cell per (submission, condition, phase), from trial records alone."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from benchmark import stable_int
from conditions import Condition
from reports._cell import CellMetrics, apply_fdr, cell_metrics
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
) -> list[Cell]:
    """Every cell with both arms recorded, negative transfer decided by BH across all cells.

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
    for (phase, condition, bundle), recs in sorted(arms.items()):
        baseline = arms.get((phase, condition, ""))
        if not bundle or not baseline:
            continue
        source = None
        if condition != source_id and (phase, source_id, bundle) in arms:
            source = (_arm(arms[(phase, source_id, bundle)]), _arm(arms[(phase, source_id, "")]))
        with_arm, without_arm = _arm(recs), _arm(baseline)
        try:
            metrics = cell_metrics(
                with_arm,
                without_arm,
                bootstrap=bootstrap,
                seed=stable_int(seed, phase, conditions[condition].canonical().decode(), bundle)
                % (2**32),
                source=source,
            )
        except ReportError as e:
            where = f"{names[bundle]} ({bundle[:12]}…) in condition {condition}, {phase} phase"
            raise ReportError(f"{e}: {where}", e.hint) from None
        cells.append(
            Cell(
                phase=phase,
                condition_id=condition,
                submission=names[bundle],
                bundle_hash=bundle,
                metrics=metrics,
                invalid_trials=sum(r.outcome == "invalid" for r in (*recs, *baseline)),
                dropped_tasks=_dropped_for_invalid(with_arm, without_arm),
            )
        )
    decided = apply_fdr([c.metrics for c in cells], fdr_q) if cells else []
    return [c.model_copy(update={"metrics": m}) for c, m in zip(cells, decided, strict=True)]
