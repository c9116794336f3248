"""Verifier red team: the reference solution of every kind passes, planted wrong end states
fail with a reason naming what differs; effect keys tell apart what drift can change."""

from collections.abc import Callable
from datetime import datetime, timedelta

import pytest

from benchmark import Task
from benchmark.support_ops import KINDS, REFUND_KINDS, SupportOps
from benchmark.support_ops._backend import Backend
from drift import ToolCall

FAMILY = SupportOps()
TASKS = FAMILY.tasks("sealed", 2 * len(KINDS), 11)


def _task(kind: str) -> Task:
    return next(t for t in TASKS if t.kind == kind)


def _end_state(task: Task, calls: list[ToolCall]) -> dict:
    backend = Backend(task.initial_state)
    for c in calls:
        backend.call(c.name, dict(c.arguments))
    return backend.dump()


def _with(call: ToolCall, **change: object) -> ToolCall:
    return ToolCall(name=call.name, arguments={**call.arguments, **change})


def _shifted(callback: ToolCall, hours: int) -> ToolCall:
    """``callback`` at the same clock time read in a zone ``hours`` away (a missed zone change)."""
    at = datetime.fromisoformat(callback.arguments["callback_at"]) + timedelta(hours=hours)
    return _with(callback, callback_at=at.isoformat(timespec="seconds"))


def assert_fails_naming(task: Task, calls: list[ToolCall], part: str) -> None:
    """The verifier fails ``calls`` on ``task`` and some reason names ``part``."""
    verdict = FAMILY.verify(task, _end_state(task, calls))
    assert not verdict.passed
    assert any(part in r for r in verdict.reasons), verdict.reasons


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.kind)
def test_the_reference_solution_of_every_kind_passes(task: Task) -> None:
    assert FAMILY.verify(task, _end_state(task, list(task.reference_calls))).passed


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.kind)
def test_doing_nothing_fails_on_the_ticket(task: Task) -> None:
    assert_fails_naming(task, [], f"tickets: {task.reference_calls[-1].arguments['ticket_id']}")


Plant = Callable[[tuple[ToolCall, ...]], list[ToolCall]]

WRONG: list[tuple[str, Plant, str]] = [
    # refunds: amount, unit, reason, default, repetition, resolution, missing effect
    (
        "duplicate_charge",
        lambda r: [_with(r[0], amount_cents=r[0].arguments["amount_cents"] + 1), r[1]],
        "refunds",
    ),
    (
        "damaged_item",
        lambda r: [_with(r[0], amount_cents=r[0].arguments["amount_cents"] * 100), r[1]],
        "refunded_cents",
    ),
    ("late_delivery", lambda r: [_with(r[0], reason="goodwill"), r[1]], "refunds"),
    ("damaged_by_email", lambda r: [_with(r[0], notify_customer=False), r[1]], "refunds"),
    ("duplicate_charge", lambda r: [r[0], r[0], r[1]], "refunds"),
    ("damaged_item", lambda r: [r[0], _with(r[1], resolution="no_action")], "resolution"),
    ("late_delivery", lambda r: [r[1]], "refunds"),
    # account changes: email unchanged, wrong signs, wrong rate, wrong resolution
    ("change_email", lambda r: [r[1]], "email"),
    (
        "account_credit",
        lambda r: [_with(r[0], amount_cents=-r[0].arguments["amount_cents"]), r[1]],
        "balance_cents",
    ),
    (
        "account_debit",
        lambda r: [_with(r[0], amount_cents=-r[0].arguments["amount_cents"]), r[1]],
        "balance_cents",
    ),
    (
        "loyalty_discount",
        lambda r: [_with(r[0], rate=r[0].arguments["rate"] / 100), r[1]],
        "discount_rate",
    ),
    ("loyalty_discount", lambda r: [r[0], _with(r[1], resolution="refunded")], "resolution"),
    # ticket resolution: callback time, escalation, a refund on a withdrawn complaint
    ("escalate_callback", lambda r: [_shifted(r[0], hours=5), r[1]], "callbacks"),
    ("escalate_callback", lambda r: [r[0], _with(r[1], resolution="no_action")], "resolution"),
    ("escalate_callback", lambda r: [r[1]], "callbacks"),
]


@pytest.mark.parametrize(("kind", "plant", "part"), WRONG, ids=[f"{k}-{p}" for k, _, p in WRONG])
def test_planted_wrong_end_states_fail_naming_the_part(kind: str, plant: Plant, part: str) -> None:
    task = _task(kind)
    assert_fails_naming(task, plant(task.reference_calls), part)


def test_a_refund_on_a_withdrawn_complaint_fails_on_refunds() -> None:
    task = _task("withdrawn")
    order_id = task.initial_state["tickets"][task.reference_calls[0].arguments["ticket_id"]][
        "order_id"
    ]
    refund = ToolCall(
        name="issue_refund",
        arguments={"order_id": order_id, "amount_cents": 500, "reason": "damaged"},
    )
    assert_fails_naming(task, [refund, *task.reference_calls], "refunds")


@pytest.mark.parametrize("kind", REFUND_KINDS)
def test_a_refund_on_another_order_of_the_customer_fails(kind: str) -> None:
    task = _task(kind)
    refund, close = task.reference_calls
    other = next(o for o in task.initial_state["orders"] if o != refund.arguments["order_id"])
    assert_fails_naming(task, [_with(refund, order_id=other), close], f"orders: {other}")


def test_an_explicit_notify_true_is_the_default_and_passes() -> None:
    task = _task("damaged_item")
    refund, close = task.reference_calls
    calls = [_with(refund, notify_customer=True), close]
    assert FAMILY.verify(task, _end_state(task, calls)).passed


def test_effect_keys_fill_the_default_and_tell_apart_what_drift_can_change() -> None:
    key = FAMILY.effect_key
    refund = _task("duplicate_charge").reference_calls[0]
    assert key(refund) == key(_with(refund, notify_customer=True))
    assert key(refund) != key(_with(refund, notify_customer=False))
    assert key(refund) != key(_with(refund, reason="goodwill"))
    credit = _task("account_credit").reference_calls[0]
    assert key(credit) != key(_with(credit, amount_cents=-credit.arguments["amount_cents"]))
    discount = _task("loyalty_discount").reference_calls[0]
    assert key(discount) != key(_with(discount, rate=discount.arguments["rate"] / 100))
    callback = _task("escalate_callback").reference_calls[0]
    assert key(callback) != key(_with(callback, callback_at="2026-12-01T00:00:00"))
    update = _task("change_email").reference_calls[0]
    assert key(update) != key(_with(update, email="someone@else.example"))
    close = _task("withdrawn").reference_calls[0]
    assert key(close) != key(_with(close, resolution="escalated"))
    assert key(close) == key(_with(close, note="thanks"))  # a note changes no outcome
