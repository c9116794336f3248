"""Completeness of a release, from its files alone: every planned trial is there, once.

The frozen grid is every released condition × (the baseline and each released submission);
the adapted grid is each released adaptation that changed its bundle, in its target (no
baseline: adapted cells pair with the frozen one; an unchanged adaptation runs nothing). Each
arm plans ``tasks_per_split`` tasks of its condition's split (recomputed from the cycle seed) ×
``k`` trials. The frozen phase must cover its whole grid, the adapted phase exactly its grid
(in a format-3 release, which has no adaptations, the frozen grid or nothing). Invalid trials
are allowed only in a release that says it accepted them.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from benchmark import family
from benchmark.errors import BenchmarkError
from reports._accounting import RELEASED_PHASES, ArmAccounting, PhaseAccounting
from reports._release import ReleaseStatement
from reports.errors import ReportError
from runner import TrialRecord

_INCOMPLETE = (
    "an incomplete release does not report what was committed: get the complete release from "
    "the operator, or treat this one as untrustworthy"
)

ArmKey = tuple[str, str, str, str | None]
"""(phase, condition id, arm, bundle hash) of one arm of one condition in one phase."""


def _label(key: ArmKey) -> str:
    phase, condition, arm, bundle = key
    return f"{phase}/{condition}/{arm}" + (f"/{bundle[:12]}…" if bundle else "")


def _grid(r: ReleaseStatement, phase: str) -> set[tuple[str, str, str | None]]:
    if phase == "adapted":
        return {(a.target, "with", a.adapted) for a in r.adaptations if not a.reused}
    arms: list[tuple[str, str | None]] = [("without", None)]
    arms += [("with", s.bundle_hash) for s in r.submissions]
    return {(c.id, arm, bundle) for c in r.conditions for arm, bundle in arms}


def _check_phase(r: ReleaseStatement, acc: PhaseAccounting) -> dict[ArmKey, ArmAccounting]:
    grid = _grid(r, acc.phase)
    cells: dict[ArmKey, ArmAccounting] = {}
    for c in acc.cells:
        key: ArmKey = (acc.phase, c.condition_id, c.arm, c.bundle_hash)
        if key[1:] not in grid or (c.arm == "without") != (c.bundle_hash is None):
            raise ReportError(
                f"the release accounts for arm {_label(key)}, not released", _INCOMPLETE
            )
        if key in cells:
            raise ReportError(f"the release accounts for arm {_label(key)} twice", _INCOMPLETE)
        cells[key] = c
    if len(cells) != len(grid):
        raise ReportError(
            f"the release accounts for {len(cells)} of the {len(grid)} arms of the {acc.phase} "
            "phase (the frozen phase: every condition × the baseline and every submission; the "
            "adapted phase: every adaptation that changed its bundle)",
            _INCOMPLETE,
        )
    n_families = {c.id: len(c.condition.task_family.families) for c in r.conditions}
    for key in cells:
        n = n_families.get(key[1], 1)
        planned = r.evaluation.per_arm * n
        if (c := cells[key]).planned != planned:
            per = " × families" if n > 1 else ""
            raise ReportError(
                f"arm {_label(key)} plans {c.planned} trials, not tasks_per_split × k{per} = "
                f"{planned}",
                _INCOMPLETE,
            )
    totals = (
        sum(c.planned for c in cells.values()),
        sum(c.valid for c in cells.values()),
        sum(c.invalid for c in cells.values()),
    )
    if (acc.expected, acc.valid, acc.invalid, acc.missing, acc.unexpected) != (*totals, 0, 0):
        raise ReportError(
            f"the {acc.phase} phase's totals (expected {acc.expected}, valid {acc.valid}, "
            f"invalid {acc.invalid}, missing {acc.missing}, unexpected {acc.unexpected}) are not "
            f"its arms' ({totals[0]}, {totals[1]}, {totals[2]}, 0, 0)",
            _INCOMPLETE,
        )
    return cells


def _planned_tasks(r: ReleaseStatement) -> dict[str, set[str]]:
    tasks = {}
    for c in r.conditions:
        tf = c.condition.task_family
        try:
            planned = [
                t
                for f in tf.families
                for t in family(f).tasks(tf.split, r.evaluation.tasks_per_split, r.seed)
            ]
        except BenchmarkError as e:
            raise ReportError(f"condition {c.id}: {e}", e.hint) from None
        tasks[c.id] = {t.id for t in planned}
    return tasks


def _check_arm(key: ArmKey, acc: ArmAccounting, records: list[TrialRecord], k: int) -> None:
    outcomes = Counter(rec.outcome == "invalid" for rec in records)
    if (len(records), outcomes[False], outcomes[True]) != (acc.planned, acc.valid, acc.invalid):
        raise ReportError(
            f"arm {_label(key)} has {len(records)} trial records ({outcomes[False]} valid, "
            f"{outcomes[True]} invalid); the release accounts for {acc.planned} "
            f"({acc.valid} valid, {acc.invalid} invalid)",
            _INCOMPLETE,
        )
    for rec in records:
        if not 0 <= rec.trial < k:
            raise ReportError(
                f"trial {rec.key[:12]}… of arm {_label(key)} has index {rec.trial}, not below "
                f"k = {k}",
                _INCOMPLETE,
            )


def check_complete(r: ReleaseStatement, records: list[TrialRecord]) -> None:
    """Raise ReportError unless the records are exactly the accounted, complete plan.

    ``records`` have distinct keys, each the hash of its parts (checked before).
    """
    phases = [a.phase for a in r.accounting]
    if len(set(phases)) != len(phases) or not set(phases) <= set(RELEASED_PHASES):
        raise ReportError(f"the release accounts for phases {phases}", _INCOMPLETE)
    if "frozen" not in phases:
        raise ReportError("the release has no accounting of the frozen phase", _INCOMPLETE)
    cells: dict[ArmKey, ArmAccounting] = {}
    for acc in r.accounting:
        cells |= _check_phase(r, acc)
    invalid = sum(a.invalid for a in r.accounting)
    if invalid and not r.accepted_invalid:
        raise ReportError(
            f"the release holds {invalid} invalid trials but does not say it accepted them",
            _INCOMPLETE,
        )
    by_arm: dict[ArmKey, list[TrialRecord]] = defaultdict(list)
    for rec in records:
        key: ArmKey = (rec.phase, rec.condition_id, rec.arm, rec.bundle_hash)
        if key not in cells:
            raise ReportError(
                f"trial {rec.key[:12]}… is in arm {_label(key)}, which the release does not "
                "account for",
                _INCOMPLETE,
            )
        by_arm[key].append(rec)
    for key, arm in cells.items():
        _check_arm(key, arm, by_arm[key], r.evaluation.k)
    # the counts match the records, so the planned tasks are no more than the records
    tasks = _planned_tasks(r)
    for key in cells:
        if (got := {rec.task_id for rec in by_arm[key]}) != tasks[key[1]]:
            raise ReportError(
                f"arm {_label(key)} ran {len(got - tasks[key[1]])} tasks outside and "
                f"{len(tasks[key[1]] - got)} short of the {len(tasks[key[1]])} planned ones",
                _INCOMPLETE,
            )
