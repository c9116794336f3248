"""What a release says about how its cycle ran: sandboxes used, operator overrides, and what
its trials cost."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from conditions import Cycle
from runner import TrialRecord

UNISOLATED_SANDBOX = "local"
"""The sandbox kind that runs trials without isolation."""


class WindowOverride(BaseModel):
    """A state transition the operator forced outside the committed window."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    at: str = Field(description="When it was recorded in the ledger (RFC 3339, UTC).")
    transition: str = Field(description="'from -> to' states.")
    override: str = Field(description="What was overridden, e.g. 'opens_at'.")
    note: str = Field(description="The operator's note on the transition.")


def window_overrides(cycle: Cycle) -> tuple[WindowOverride, ...]:
    """Every ledgered state transition that carries an ``override``, oldest first."""
    return tuple(
        WindowOverride(
            at=e.ts,
            transition=f"{e.payload.get('from')} -> {e.payload.get('to')}",
            override=str(e.payload["override"]),
            note=str(e.payload.get("note") or ""),
        )
        for e in cycle.history()
        if e.payload.get("override")
    )


def sandbox_counts(records: Iterable[TrialRecord]) -> dict[str, int]:
    """Trials per sandbox kind they ran in, by kind."""
    return dict(sorted(Counter(r.sandbox for r in records).items()))


class PhaseCost(BaseModel):
    """What one phase's released trials cost, from their records' ``cost_usd``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    phase: str = Field(description="'frozen' or 'adapted'.")
    usd: float | None = Field(
        description="US dollars of the trials with a cost (litellm's list prices; 0 for the "
        "sim's models); None when none has one."
    )
    trials: int = Field(ge=0, description="Released trials of the phase.")
    unpriced: int = Field(
        ge=0,
        description="Of those, trials without a cost (litellm has no price for their model, or "
        "they were recorded before costs were), not in usd.",
    )
    unpriced_models: tuple[str, ...] = Field(description="Models of the trials without a cost.")


def phase_costs(records: Iterable[TrialRecord], phases: Iterable[str]) -> tuple[PhaseCost, ...]:
    """The cost of each phase's ``records`` (released trial records: retried attempts are not
    released, so not counted)."""
    by_phase: dict[str, list[TrialRecord]] = {p: [] for p in phases}
    for r in records:
        by_phase.setdefault(r.phase, []).append(r)
    out = []
    for phase, rs in by_phase.items():
        priced = [r.cost_usd for r in rs if r.cost_usd is not None]
        out.append(
            PhaseCost(
                phase=phase,
                # fsum is exactly rounded, so the order records are read in does not matter.
                usd=math.fsum(priced) if priced else None,
                trials=len(rs),
                unpriced=len(rs) - len(priced),
                unpriced_models=tuple(sorted({r.model for r in rs if r.cost_usd is None})),
            )
        )
    return tuple(out)
