"""The one refusal of a request the cycle's state does not allow (409 ``wrong_state``)."""

from __future__ import annotations

from conditions import Cycle, CycleState
from service.errors import ServiceError


def require_state(cycle: Cycle, state: CycleState, what: str) -> None:
    """Refuse (409 ``wrong_state``) unless ``cycle`` is in ``state``; ``what`` says why."""
    if cycle.state != state:
        raise ServiceError(
            f"cycle {cycle.id} is in state '{cycle.state.value}', not '{state.value}': {what}",
            "see GET /api/v1/cycle for the schedule and the state",
            status=409,
            code="wrong_state",
        )
