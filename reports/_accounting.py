"""What a release records about its evaluation: the planned size and every arm's accounting.

The builder refuses a release while a planned trial is missing, or invalid unless the operator
accepts invalid trials (``vwt report build --accept-invalid``); the release records both, so
``report verify`` can check completeness from the published files alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reports.errors import ReportError
from runner import Accounting, TrialRecord

RELEASED_PHASES = ("frozen", "adapted")
"""The phases of a cycle a release accounts for, in order."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EvaluationSize(_Frozen):
    """How many trials every arm of every condition runs, fixed when the cycle is committed."""

    tasks_per_split: int = Field(ge=1, description="Tasks of the condition's split per arm.")
    k: int = Field(ge=1, description="Trials per task.")

    @property
    def per_arm(self) -> int:
        """Planned trials of one arm of one single-family condition in one phase (times the
        number of families for a family set)."""
        return self.tasks_per_split * self.k


class ArmAccounting(_Frozen):
    """Planned and released trials of one arm of one condition in one phase."""

    condition_id: str = Field(description="Condition id.")
    arm: Literal["with", "without"] = Field(description="'with' a submission or 'without'.")
    bundle_hash: str | None = Field(description="Submission bundle hash; None for the baseline.")
    planned: int = Field(ge=0, description="Trials the plan calls for.")
    valid: int = Field(ge=0, description="Released trials with a valid outcome.")
    invalid: int = Field(ge=0, description="Released trials that are invalid (accepted).")


class PhaseAccounting(_Frozen):
    """Totals of one phase and the accounting of each of its arms."""

    phase: str = Field(description="'frozen' or 'adapted'.")
    expected: int = Field(ge=0, description="Trials the plan calls for.")
    valid: int = Field(ge=0, description="Planned trials with a valid record.")
    invalid: int = Field(ge=0, description="Planned trials whose every attempt was invalid.")
    missing: int = Field(ge=0, description="Planned trials without a record (always 0).")
    unexpected: int = Field(ge=0, description="Stored trials the plan lacks (always 0).")
    cells: tuple[ArmAccounting, ...] = Field(description="Per (condition, arm, bundle).")


def _problem(acc: Accounting) -> str | None:
    if acc.missing or acc.unexpected:
        extra = f", {acc.unexpected} stored trials the plan lacks" if acc.unexpected else ""
        return (
            f"the {acc.phase} phase is incomplete: {acc.missing} of {acc.expected} planned "
            f"trials missing{extra}"
        )
    return None


def require_complete(accounting: list[Accounting], home: Path, *, accept_invalid: bool) -> None:
    """Refuse (ReportError) unless every phase is complete, and clean or its invalids accepted.

    Missing trials are never accepted: they are run by resuming the phase.
    """
    for acc in accounting:
        run = f"vwt run {acc.phase} --home {home}"
        if problem := _problem(acc):
            raise ReportError(
                f"cannot build the release: {problem} ({acc.valid} valid, {acc.invalid} invalid)",
                f"run `{run}` to resume it (it runs the missing trials and retries invalid "
                "ones); missing trials cannot be accepted",
            )
    for acc in accounting:
        if acc.invalid and not accept_invalid:
            raise ReportError(
                f"cannot build the release: {acc.invalid} of {acc.expected} planned "
                f"{acc.phase} trials are invalid",
                f"run `vwt run {acc.phase} --home {home}` (it retries invalid trials), or "
                "accept them with `vwt report build --accept-invalid` (recorded in the release "
                "and shown on every affected cell)",
            )


def release_accounting(
    acc: Accounting, records: list[TrialRecord], conditions: Collection[str]
) -> PhaseAccounting:
    """The release's accounting of a complete phase: the plan's arms in ``conditions`` (the
    released ones), counted in ``records``."""
    counts: Counter[tuple[str, str, str | None, bool]] = Counter(
        (r.condition_id, r.arm, r.bundle_hash, r.outcome != "invalid")
        for r in records
        if r.phase == acc.phase
    )
    cells = tuple(
        ArmAccounting(
            condition_id=c.condition_id,
            arm=c.arm,
            bundle_hash=c.bundle_hash,
            planned=c.planned,
            valid=counts[(c.condition_id, c.arm, c.bundle_hash, True)],
            invalid=counts[(c.condition_id, c.arm, c.bundle_hash, False)],
        )
        for c in acc.cells
        if c.condition_id in conditions
    )
    return PhaseAccounting(
        phase=acc.phase,
        expected=sum(c.planned for c in cells),
        valid=sum(c.valid for c in cells),
        invalid=sum(c.invalid for c in cells),
        missing=acc.missing,
        unexpected=acc.unexpected,
        cells=cells,
    )
