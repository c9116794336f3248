"""The support-ops verifier: end state against expected state, part by part; effect keys."""

from __future__ import annotations

from collections import Counter
from typing import Any

from benchmark._family_kit import field_diff, record_diff
from benchmark._task import VerifierResult
from drift import ToolCall

_CUSTOMER_FIELDS = ("email", "balance_cents", "discount_rate")


def _refunds(state: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter(
        (r["order_id"], r["amount_cents"], r["reason"], r["notified"], r.get("store_credit", False))
        for r in state.get("refunds", [])
    )


def _callbacks(state: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter((c["ticket_id"], c["callback_at"]) for c in state.get("callbacks", []))


def compare_states(want: dict[str, Any], got: dict[str, Any]) -> VerifierResult:
    """Whether end state ``got`` is the expected state ``want``, with one reason per difference:
    refunds (order, amount, reason, notified, store credit) and callbacks as records, tickets
    (status, resolution), orders (refunded_cents) and customers (email, balance, discount) by
    id."""
    reasons = [
        *record_diff("refunds", _refunds(got), _refunds(want)),
        *field_diff("tickets", got["tickets"], want["tickets"], ("status", "resolution")),
        *field_diff("orders", got["orders"], want["orders"], ("refunded_cents",)),
        *field_diff("customers", got["customers"], want["customers"], _CUSTOMER_FIELDS),
        *record_diff("callbacks", _callbacks(got), _callbacks(want)),
    ]
    return VerifierResult(passed=not reasons, reasons=tuple(reasons))


_EFFECT_FIELDS = {
    "issue_refund": ("order_id", "amount_cents", "reason", "notify_customer", "store_credit"),
    "close_ticket": ("ticket_id", "resolution"),
    "update_account": ("customer_id", "email"),
    "adjust_balance": ("customer_id", "amount_cents"),
    "set_discount": ("customer_id", "rate"),
    "schedule_callback": ("ticket_id", "callback_at"),
}
_DEFAULTS = {("issue_refund", "notify_customer"): True, ("issue_refund", "store_credit"): False}


def effect_key(call: ToolCall) -> tuple[Any, ...]:
    """The canonical call's effect: its tool and every field a drift operator can change,
    defaults filled in (so an omitted ``notify_customer`` is the ``True`` it means)."""
    fields = _EFFECT_FIELDS.get(call.name, ())
    return (
        call.name,
        *(call.arguments.get(f, _DEFAULTS.get((call.name, f))) for f in fields),
    )
