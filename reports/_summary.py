"""What a release says about how its cycle ran: sandboxes used and operator overrides."""

from __future__ import annotations

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
