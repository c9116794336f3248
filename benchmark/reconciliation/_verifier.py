"""The reconciliation verifier: end state against expected state, check by check; effect keys.

Every reason starts with the name of the check that found it (one of ``CHECKS``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

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


def _records(
    check: str, got: Counter[tuple[Any, ...]], want: Counter[tuple[Any, ...]]
) -> list[str]:
    """A reason naming the records that are extra or missing, if any."""
    extra, missing = sorted((got - want).elements()), sorted((want - got).elements())
    if not extra and not missing:
        return []
    return [f"{check}: unexpected {extra}, missing {missing}"]


def _fields(
    check: str,
    got: dict[str, dict[str, Any]],
    want: dict[str, dict[str, Any]],
    fields: tuple[str, ...],
) -> list[str]:
    """One reason per field of a record (by id) that differs from the expected one."""
    reasons = []
    for key, expected in sorted(want.items()):
        actual = got.get(key)
        if actual is None:
            reasons.append(f"{check}: {key} missing")
            continue
        reasons += [
            f"{check}: {key} {f} {actual.get(f)!r} != expected {expected.get(f)!r}"
            for f in fields
            if actual.get(f) != expected.get(f)
        ]
    return reasons


def compare_states(want: dict[str, Any], got: dict[str, Any]) -> VerifierResult:
    """Whether end state ``got`` is the expected state ``want``, one reason per difference."""
    reasons = [
        *_records("matches", _matches(got), _matches(want)),
        *_fields(
            "invoices",
            got["invoices"],
            want["invoices"],
            ("status", "paid_cents", "discount_cents"),
        ),
        *_fields("customers", got["customers"], want["customers"], ("status", "merged_into")),
        *_records("adjustments", _adjustments(got), _adjustments(want)),
        *_fields("accounts", got["accounts"], want["accounts"], ("balance_cents",)),
        *_fields("flags", got["payments"], want["payments"], ("flag",)),
        *_fields("flags", got["statement_lines"], want["statement_lines"], ("flag",)),
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
