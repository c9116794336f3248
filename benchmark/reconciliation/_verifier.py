"""The reconciliation verifier: end state against expected state, check by check; effect keys.

Every reason starts with the name of the check that found it (one of ``CHECKS``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from benchmark._family_kit import field_diff, record_diff
from benchmark._task import VerifierResult
from drift import ToolCall

CHECKS = ("matches", "invoices", "customers", "adjustments", "accounts", "flags")
"""What the verifier compares: payments applied to invoices (records), invoices (status, paid,
discounted), customers (status, merged into), ledger adjustments (records), account balances
and the flags of payments and statement lines."""


def _matches(state: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter(
        (m["invoice_id"], m["payment_id"], m["amount_cents"], m["discount_rate"])
        for m in state.get("matches", [])
    )


def _adjustments(state: dict[str, Any]) -> Counter[tuple[Any, ...]]:
    return Counter((a["account_id"], a["amount_cents"]) for a in state.get("adjustments", []))


def compare_states(want: dict[str, Any], got: dict[str, Any]) -> VerifierResult:
    """Whether end state ``got`` is the expected state ``want``, one reason per difference."""
    reasons = [
        *record_diff("matches", _matches(got), _matches(want)),
        *field_diff(
            "invoices",
            got["invoices"],
            want["invoices"],
            ("status", "paid_cents", "discount_cents"),
        ),
        *field_diff("customers", got["customers"], want["customers"], ("status", "merged_into")),
        *record_diff("adjustments", _adjustments(got), _adjustments(want)),
        *field_diff("accounts", got["accounts"], want["accounts"], ("balance_cents",)),
        *field_diff("flags", got["payments"], want["payments"], ("flag",)),
        *field_diff("flags", got["statement_lines"], want["statement_lines"], ("flag",)),
    ]
    return VerifierResult(passed=not reasons, reasons=tuple(reasons))


_EFFECT_FIELDS = {
    "match_payment": ("invoice_id", "payment_id", "amount_cents", "discount_rate"),
    "merge_customers": ("customer_id", "duplicate_id"),
    "post_adjustment": ("account_id", "amount_cents"),
    "flag_record": ("record_id", "flag"),
}
_DEFAULTS = {("match_payment", "discount_rate"): 0.0}


def effect_key(call: ToolCall) -> tuple[Any, ...]:
    """The canonical call's effect: its tool and every field its effect depends on, defaults
    filled in (an omitted ``discount_rate`` is the 0 it means)."""
    fields = _EFFECT_FIELDS.get(call.name, ())
    return (
        call.name,
        *(call.arguments.get(f, _DEFAULTS.get((call.name, f))) for f in fields),
    )
