"""The support-ops backend: what each canonical tool does to the state, and what it refuses."""

import pytest

from benchmark.support_ops import SupportOps
from benchmark.support_ops._backend import Backend, BackendError

TASK = SupportOps().tasks("sealed", 1, 11)[0]
(CUSTOMER,) = TASK.initial_state["customers"].values()
CUSTOMER_ID = CUSTOMER["customer_id"]
(TICKET_ID,) = TASK.initial_state["tickets"]
ORDER_ID = CUSTOMER["order_ids"][0]


def _backend() -> Backend:
    return Backend(TASK.initial_state)


def test_adjust_balance_adds_signed_amounts_and_records_each() -> None:
    backend = _backend()
    start = CUSTOMER["balance_cents"]
    for amount in (500, -1200, 300):
        backend.call("adjust_balance", {"customer_id": CUSTOMER_ID, "amount_cents": amount})
    state = backend.dump()
    assert state["customers"][CUSTOMER_ID]["balance_cents"] == start - 400
    assert [a["amount_cents"] for a in state["adjustments"]] == [500, -1200, 300]
    assert len({a["adjustment_id"] for a in state["adjustments"]}) == 3


def test_a_refund_notifies_the_customer_unless_told_not_to() -> None:
    backend = _backend()
    args = {"order_id": ORDER_ID, "amount_cents": 250, "reason": "goodwill"}
    backend.call("issue_refund", args)
    backend.call("issue_refund", {**args, "notify_customer": False})
    state = backend.dump()
    assert [r["notified"] for r in state["refunds"]] == [True, False]
    assert state["orders"][ORDER_ID]["refunded_cents"] == 500


def test_update_account_changes_the_email_find_customer_looks_up() -> None:
    backend = _backend()
    backend.call("update_account", {"customer_id": CUSTOMER_ID, "email": "new@mail.example"})
    assert (
        backend.call("find_customer", {"email": "NEW@mail.example"})["customer_id"] == CUSTOMER_ID
    )
    with pytest.raises(BackendError, match="no customer with email"):
        backend.call("find_customer", {"email": CUSTOMER["email"]})
    with pytest.raises(BackendError, match="not an email address"):
        backend.call("update_account", {"customer_id": CUSTOMER_ID, "email": "nobody"})


def test_set_discount_takes_a_fraction_only() -> None:
    backend = _backend()
    backend.call("set_discount", {"customer_id": CUSTOMER_ID, "rate": 0.15})
    assert backend.dump()["customers"][CUSTOMER_ID]["discount_rate"] == 0.15
    with pytest.raises(BackendError, match="between 0 and 1"):
        backend.call("set_discount", {"customer_id": CUSTOMER_ID, "rate": 15})


def test_schedule_callback_records_a_local_timestamp() -> None:
    backend = _backend()
    backend.call(
        "schedule_callback", {"ticket_id": TICKET_ID, "callback_at": "2026-12-03T14:00:00"}
    )
    assert backend.dump()["callbacks"] == [
        {"ticket_id": TICKET_ID, "callback_at": "2026-12-03T14:00:00"}
    ]


@pytest.mark.parametrize(
    "when",
    [
        "2026-12-03T14:00:00Z",
        "2026-12-03T14:00:00+01:00",
        "2026-12-03 14:00:00",
        "2026-12-03T14:00",
        "2026-13-03T14:00:00",
        "tomorrow at 2pm",
    ],
)
def test_schedule_callback_rejects_anything_but_a_valid_local_timestamp(when: str) -> None:
    backend = _backend()
    with pytest.raises(BackendError, match="callback_at"):
        backend.call("schedule_callback", {"ticket_id": TICKET_ID, "callback_at": when})
    assert backend.dump()["callbacks"] == []


@pytest.mark.parametrize(
    ("tool", "args", "message"),
    [
        ("get_order", {"order_id": "ORD-0-1"}, "no order"),
        (
            "issue_refund",
            {"order_id": "ORD-0-1", "amount_cents": 1, "reason": "damaged"},
            "no order",
        ),
        ("close_ticket", {"ticket_id": "TCK-0", "resolution": "refunded"}, "no ticket"),
        (
            "schedule_callback",
            {"ticket_id": "TCK-0", "callback_at": "2026-12-03T14:00:00"},
            "no ticket",
        ),
        ("update_account", {"customer_id": "CUS-0", "email": "a@b.example"}, "no customer"),
        ("adjust_balance", {"customer_id": "CUS-0", "amount_cents": 5}, "no customer"),
        ("set_discount", {"customer_id": "CUS-0", "rate": 0.1}, "no customer"),
        ("delete_everything", {}, "unknown tool"),
    ],
)
def test_unknown_ids_and_tools_are_refused(tool: str, args: dict, message: str) -> None:
    with pytest.raises(BackendError, match=message):
        _backend().call(tool, args)


def test_a_closed_ticket_cannot_be_closed_again() -> None:
    backend = _backend()
    close = {"ticket_id": TICKET_ID, "resolution": "escalated"}
    backend.call("close_ticket", close)
    with pytest.raises(BackendError, match="already closed"):
        backend.call("close_ticket", close)
    assert backend.dump()["tickets"][TICKET_ID]["resolution"] == "escalated"
