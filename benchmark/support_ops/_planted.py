"""Planted wrong answers to support-ops tasks: the mistakes the verifier must catch.

Each is the reference solution with one thing wrong: a field of one call (amount, unit, reason,
notification, order, resolution, email, sign, discount scale, callback time zone), a step left
out, or a side effect added (a call repeated, a refund on a ticket that needs none). Over the
kinds they cover every check of the verifier: refunds, tickets, orders, customers, callbacks.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from benchmark._task import Planted, Task
from benchmark.support_ops._generator import ORDERS_PER_CUSTOMER
from benchmark.support_ops._tools import REFUND_REASONS, RESOLUTIONS
from drift import ToolCall

CHECKS = ("refunds", "tickets", "orders", "customers", "callbacks")
"""The parts of the end state the verifier compares."""

_CHECK_OF_TOOL = {
    "issue_refund": "refunds",
    "close_ticket": "tickets",
    "update_account": "customers",
    "adjust_balance": "customers",
    "set_discount": "customers",
    "schedule_callback": "callbacks",
}
_REPEATABLE = ("issue_refund", "adjust_balance", "schedule_callback")
"""Tools whose second identical call has a second effect (so repeating it is a mistake)."""

Args = dict[str, Any]


def _other(values: tuple[str, ...], value: str) -> str:
    """The value after ``value`` in ``values``, cyclically: always a different one."""
    return values[(values.index(value) + 1) % len(values)]


def _swapped_order(order_id: str) -> str:
    """Another order of the same customer: the trailing digit mirrored (1↔4, 2↔3)."""
    stem, last = order_id.rsplit("-", 1)
    return f"{stem}-{ORDERS_PER_CUSTOMER + 1 - int(last)}"


def _current_email(task: Task, args: Args) -> str:
    return str(task.initial_state["customers"][args["customer_id"]]["email"])


def _two_hours_early(at: str) -> str:
    """A local time read as UTC+02:00 and sent as if it were UTC."""
    return (datetime.fromisoformat(at) - timedelta(hours=2)).isoformat()


_Change = Callable[[Task, Args], Args]

_FIELD_MISTAKES: dict[str, tuple[tuple[str, str, _Change], ...]] = {
    "issue_refund": (
        ("wrong amount", "refunds", lambda t, a: {"amount_cents": a["amount_cents"] + 100}),
        ("wrong unit", "refunds", lambda t, a: {"amount_cents": a["amount_cents"] * 100}),
        ("wrong reason", "refunds", lambda t, a: {"reason": _other(REFUND_REASONS, a["reason"])}),
        ("customer not notified", "refunds", lambda t, a: {"notify_customer": False}),
        ("wrong order", "orders", lambda t, a: {"order_id": _swapped_order(a["order_id"])}),
    ),
    "close_ticket": (
        (
            "wrong resolution",
            "tickets",
            lambda t, a: {"resolution": _other(RESOLUTIONS, a["resolution"])},
        ),
    ),
    "update_account": (("wrong email", "customers", lambda t, a: {"email": _current_email(t, a)}),),
    "adjust_balance": (
        ("wrong balance sign", "customers", lambda t, a: {"amount_cents": -a["amount_cents"]}),
        ("wrong unit", "customers", lambda t, a: {"amount_cents": a["amount_cents"] * 100}),
    ),
    "set_discount": (
        ("wrong discount scale", "customers", lambda t, a: {"rate": a["rate"] / 100}),
    ),
    "schedule_callback": (
        (
            "wrong callback zone",
            "callbacks",
            lambda t, a: {"callback_at": _two_hours_early(a["callback_at"])},
        ),
    ),
}


def _field_mistakes(task: Task) -> list[Planted]:
    calls = task.reference_calls
    out = []
    for i, call in enumerate(calls):
        for name, check, change in _FIELD_MISTAKES.get(call.name, ()):
            args = {**call.arguments, **change(task, dict(call.arguments))}
            wrong = ToolCall(name=call.name, arguments=args)
            out.append(Planted(name=name, check=check, calls=(*calls[:i], wrong, *calls[i + 1 :])))
    return out


def _missing_steps(task: Task) -> list[Planted]:
    calls = task.reference_calls
    out = []
    for i, call in enumerate(calls):
        name = "ticket left open" if call.name == "close_ticket" else f"{call.name} step missing"
        rest = (*calls[:i], *calls[i + 1 :])
        out.append(Planted(name=name, check=_CHECK_OF_TOOL[call.name], calls=rest))
    return out


def _extra_effects(task: Task) -> list[Planted]:
    calls = task.reference_calls
    out = [
        Planted(
            name=f"{call.name} repeated",
            check=_CHECK_OF_TOOL[call.name],
            calls=(*calls[: i + 1], call, *calls[i + 1 :]),
        )
        for i, call in enumerate(calls)
        if call.name in _REPEATABLE
    ]
    (ticket,) = task.initial_state["tickets"].values()
    refunds = any(c.name == "issue_refund" for c in calls)
    if ticket["order_id"] is not None and not refunds:
        order = task.initial_state["orders"][ticket["order_id"]]
        refund = ToolCall(
            name="issue_refund",
            arguments={
                "order_id": order["order_id"],
                "amount_cents": order["items"][0]["unit_price_cents"],
                "reason": "goodwill",
            },
        )
        out.append(Planted(name="refund nobody asked for", check="refunds", calls=(refund, *calls)))
    return out


def planted(task: Task) -> list[Planted]:
    """The wrong answers planted for ``task``: its reference with one field wrong, one step
    missing, or one side effect added."""
    return [*_field_mistakes(task), *_missing_steps(task), *_extra_effects(task)]
