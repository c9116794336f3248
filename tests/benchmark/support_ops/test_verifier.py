"""Verifier red team: the reference solution passes, planted wrong answers fail."""

import pytest

from benchmark.support_ops import SupportOps
from benchmark.support_ops._backend import Backend, BackendError
from drift import ToolCall

FAMILY = SupportOps()
TASK = FAMILY.tasks("sealed", 4, 11)[1]


def _end_state(calls: list[ToolCall]) -> dict:
    backend = Backend(TASK.initial_state)
    for c in calls:
        backend.call(c.name, dict(c.arguments))
    return backend.dump()


def _refund(**change: object) -> ToolCall:
    ref = TASK.reference_calls[0]
    return ToolCall(name=ref.name, arguments={**ref.arguments, **change})


CLOSE = TASK.reference_calls[1]


def test_reference_solution_passes() -> None:
    assert FAMILY.verify(TASK, _end_state(list(TASK.reference_calls))).passed


@pytest.mark.parametrize(
    "calls",
    [
        [],  # nothing done
        [CLOSE],  # ticket closed, no refund
        [_refund()],  # refund, ticket left open
        [_refund(amount_cents=_refund().arguments["amount_cents"] + 1), CLOSE],
        [_refund(amount_cents=_refund().arguments["amount_cents"] * 100), CLOSE],
        [_refund(reason="goodwill"), CLOSE],
        [_refund(), _refund(), CLOSE],  # refunded twice
        [
            _refund(),
            ToolCall(name="close_ticket", arguments={**CLOSE.arguments, "resolution": "no_action"}),
        ],
    ],
)
def test_planted_wrong_answers_fail(calls: list[ToolCall]) -> None:
    verdict = FAMILY.verify(TASK, _end_state(calls))
    assert not verdict.passed
    assert verdict.reasons


def test_refund_on_another_order_fails() -> None:
    task = next(t for t in FAMILY.tasks("sealed", 24, 11) if len(t.initial_state["orders"]) > 1)
    refund, close = task.reference_calls
    other = next(o for o in task.initial_state["orders"] if o != refund.arguments["order_id"])
    backend = Backend(task.initial_state)
    backend.call("issue_refund", {**refund.arguments, "order_id": other})
    backend.call(close.name, dict(close.arguments))
    assert not FAMILY.verify(task, backend.dump()).passed


def test_backend_refuses_unknown_ids_and_double_close() -> None:
    backend = Backend(TASK.initial_state)
    with pytest.raises(BackendError, match="no order"):
        backend.call("get_order", {"order_id": "ORD-0"})
    backend.call(CLOSE.name, dict(CLOSE.arguments))
    with pytest.raises(BackendError, match="already closed"):
        backend.call(CLOSE.name, dict(CLOSE.arguments))
