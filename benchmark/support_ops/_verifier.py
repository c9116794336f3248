"""The support-ops verifier: end state against expected state, part by part; effect keys."""

from __future__ import annotations

from collections import Counter
from typing import Any

from benchmark._task import VerifierResult
from drift import ToolCall

_CUSTOMER_FIELDS = ("email", "balance_cents", "discount_rate")


def _refunds(state: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter(
        (r["order_id"], r["amount_cents"], r["reason"], r["notified"])
        for r in state.get("refunds", [])
    )


def _callbacks(state: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter((c["ticket_id"], c["callback_at"]) for c in state.get("callbacks", []))


def _records(part: str, got: Counter[tuple[Any, ...]], want: Counter[tuple[Any, ...]]) -> list[str]:
    """A reason naming the records of ``part`` that are extra or missing, if any."""
    extra, missing = sorted((got - want).elements()), sorted((want - got).elements())
    if not extra and not missing:
        return []
    return [f"{part}: unexpected {extra}, missing {missing}"]


def _fields(
    what: str,
    got: dict[str, dict[str, Any]],
    want: dict[str, dict[str, Any]],
    fields: tuple[str, ...],
) -> list[str]:
    """One reason per field of a record (by id) that differs from the expected one."""
    reasons = []
    for key, expected in sorted(want.items()):
        actual = got.get(key)
        if actual is None:
            reasons.append(f"{what} {key}: missing")
            continue
        reasons += [
            f"{what} {key}: {f} {actual.get(f)!r} != expected {expected.get(f)!r}"
            for f in fields
            if actual.get(f) != expected.get(f)
        ]
    return reasons


def compare_states(want: dict[str, Any], got: dict[str, Any]) -> VerifierResult:
    """Whether end state ``got`` is the expected state ``want``, with one reason per difference:
    refunds (order, amount, reason, notified) and callbacks as records, tickets (status,
    resolution), orders (refunded_cents) and customers (email, balance, discount) by id."""
    reasons = [
        *_records("refunds", _refunds(got), _refunds(want)),
        *_fields("ticket", got["tickets"], want["tickets"], ("status", "resolution")),
        *_fields("order", got["orders"], want["orders"], ("refunded_cents",)),
        *_fields("customer", got["customers"], want["customers"], _CUSTOMER_FIELDS),
        *_records("callbacks", _callbacks(got), _callbacks(want)),
    ]
    return VerifierResult(passed=not reasons, reasons=tuple(reasons))


_EFFECT_FIELDS = {
    "issue_refund": ("order_id", "amount_cents", "reason", "notify_customer"),
    "close_ticket": ("ticket_id", "resolution"),
    "update_account": ("customer_id", "email"),
    "adjust_balance": ("customer_id", "amount_cents"),
    "set_discount": ("customer_id", "rate"),
    "schedule_callback": ("ticket_id", "callback_at"),
}
_DEFAULTS = {("issue_refund", "notify_customer"): True}


def effect_key(call: ToolCall) -> tuple[Any, ...]:
    """The canonical call's effect: its tool and every field a drift operator can change,
    defaults filled in (so an omitted ``notify_customer`` is the ``True`` it means)."""
    fields = _EFFECT_FIELDS.get(call.name, ())
    return (
        call.name,
        *(call.arguments.get(f, _DEFAULTS.get((call.name, f))) for f in fields),
    )
