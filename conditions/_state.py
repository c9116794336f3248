"""The release-cycle state machine: its states, their order, and what to do in each."""

from __future__ import annotations

from enum import StrEnum


class CycleState(StrEnum):
    """Where a release cycle is; it only ever moves one step forward."""

    draft = "draft"
    committed = "committed"
    open = "open"
    frozen_run = "frozen_run"
    adaptation = "adaptation"
    adapted_run = "adapted_run"
    revealed = "revealed"
    released = "released"

    def next(self) -> CycleState | None:
        """The state after this one, or None for the last."""
        order = list(CycleState)
        i = order.index(self)
        return order[i + 1] if i + 1 < len(order) else None


NEXT_STEP: dict[CycleState, str] = {
    CycleState.draft: (
        "generate target conditions (`vwt conditions generate`), check them "
        "(`vwt conditions list`), then commit (`vwt conditions commit`)"
    ),
    CycleState.committed: (
        "publish commitment.json, then open submissions: `vwt cycle advance open`"
    ),
    CycleState.open: (
        "collect submissions; when they close, `vwt cycle advance frozen_run` and run them"
    ),
    CycleState.frozen_run: "when the frozen runs are final, `vwt cycle advance adaptation`",
    CycleState.adaptation: (
        "adapt every submission to every target (`vwt adapt`), then `vwt cycle advance adapted_run`"
    ),
    CycleState.adapted_run: "when the adapted runs are final, `vwt conditions reveal`",
    CycleState.revealed: "build and publish the release (`vwt report build`)",
    CycleState.released: (
        "this cycle is finished; start the next one with `vwt cycle init` in another --home"
    ),
}
"""What the operator does next, per state: the hint of every refused move."""

GUARDED: dict[CycleState, str] = {
    CycleState.committed: "`vwt conditions commit` (Cycle.commit) moves there",
    CycleState.revealed: "`vwt conditions reveal` (Cycle.reveal) moves there",
}
"""States only reached through the action that produces their evidence."""
