"""Fail-closed accounting: planned versus stored trials of a phase, overall and per cell."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark import Outcome
from runner._records import Arm, Batch, TrialRecord

INVALID = "invalid"


class CellAccounting(BaseModel):
    """Planned trials of one cell (condition, arm, bundle) and what the store holds for them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    condition_id: str = Field(description="Condition id.")
    arm: Arm = Field(description="'with' or 'without' (the baseline).")
    bundle_hash: str | None = Field(description="Bundle hash of the 'with' arm; None: baseline.")
    planned: int = Field(description="Trials the plan calls for.")
    valid: int = Field(description="Planned trials with a valid record.")
    invalid: int = Field(description="Planned trials whose every stored attempt is invalid.")
    missing: int = Field(description="Planned trials without any stored attempt.")


class Accounting(BaseModel):
    """Planned and stored trials of a phase: valid, invalid (retry them) and missing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    phase: str = Field(description="The phase accounted for.")
    expected: int = Field(description="Trials the plan calls for.")
    observed: int = Field(description="Planned trials with a stored record (valid or invalid).")
    valid: int = Field(description="Planned trials with a valid record.")
    invalid: int = Field(description="Planned trials whose every stored attempt is invalid.")
    missing: int = Field(description="Planned trials without any stored attempt.")
    unexpected: int = Field(description="Stored trials of the phase that the plan lacks.")
    outcomes: dict[str, int] = Field(description="Observed trials by outcome of their record.")
    cells: tuple[CellAccounting, ...] = Field(
        default=(), description="The same per cell (condition, arm, bundle), in plan order."
    )

    @property
    def complete(self) -> bool:
        """True when every planned trial has a record and nothing else is there."""
        return self.missing == 0 and self.unexpected == 0

    @property
    def clean(self) -> bool:
        """True when complete and no planned trial is invalid."""
        return self.complete and self.invalid == 0

    def as_json(self) -> dict[str, Any]:
        """The fields as JSON plus ``complete`` and ``clean``: what the ledger and ``--json``
        show."""
        return {**self.model_dump(mode="json"), "complete": self.complete, "clean": self.clean}


def account(phase: str, batches: list[Batch], records: list[TrialRecord]) -> Accounting:
    """Compare the plan with ``records`` of ``phase``: one per key, its latest valid attempt if
    any (as :meth:`TrialStore.records` returns them)."""
    stored = {r.key: r for r in records if r.phase == phase}
    cells: dict[tuple[str, Arm, str | None], Counter[str]] = {}
    planned: set[str] = set()
    for b in batches:
        counts = cells.setdefault((b.condition_id, b.arm, b.bundle_hash), Counter())
        for t in b.trials:
            planned.add(t.key)
            record = stored.get(t.key)
            if record is None:
                counts["missing"] += 1
            else:
                counts[INVALID if record.outcome == INVALID else "valid"] += 1
            counts["planned"] += 1
    observed = planned & stored.keys()
    outcomes = Counter(stored[k].outcome for k in observed)
    invalid = outcomes.get(INVALID, 0)
    return Accounting(
        phase=phase,
        expected=len(planned),
        observed=len(observed),
        valid=len(observed) - invalid,
        invalid=invalid,
        missing=len(planned - stored.keys()),
        unexpected=len(stored.keys() - planned),
        outcomes={o.value: outcomes[o.value] for o in Outcome if outcomes[o.value]},
        cells=tuple(
            CellAccounting(
                condition_id=condition_id,
                arm=arm,
                bundle_hash=bundle_hash,
                planned=n["planned"],
                valid=n["valid"],
                invalid=n[INVALID],
                missing=n["missing"],
            )
            for (condition_id, arm, bundle_hash), n in cells.items()
        ),
    )
