"""Fail-closed accounting: expected versus observed trials of a phase."""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict, Field

from runner._records import Batch, TrialRecord


class Accounting(BaseModel):
    """Expected and observed trials of a phase, by outcome."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    phase: str = Field(description="The phase accounted for.")
    expected: int = Field(description="Trials the plan calls for.")
    observed: int = Field(description="Planned trials with a stored record.")
    missing: int = Field(description="Planned trials without a record.")
    unexpected: int = Field(description="Stored trials of the phase that the plan lacks.")
    outcomes: dict[str, int] = Field(description="Observed trials by outcome.")

    @property
    def complete(self) -> bool:
        """True when every planned trial has a record and nothing else is there."""
        return self.missing == 0 and self.unexpected == 0


def account(phase: str, batches: list[Batch], records: list[TrialRecord]) -> Accounting:
    """Compare the plan with the stored records of ``phase``."""
    expected = {t.key for b in batches for t in b.trials}
    stored = {r.key: r for r in records if r.phase == phase}
    observed = expected & stored.keys()
    return Accounting(
        phase=phase,
        expected=len(expected),
        observed=len(observed),
        missing=len(expected - stored.keys()),
        unexpected=len(stored.keys() - expected),
        outcomes=dict(Counter(stored[k].outcome for k in observed)),
    )
