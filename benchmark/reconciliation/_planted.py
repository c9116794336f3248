"""Planted wrong answers to reconciliation tasks: the mistakes the verifier must catch.

Each is the reference solution with one thing wrong: a field of one call (amount, unit,
invoice, discount scale, merge direction, merged record, sign, flag, flagged record), a step
left out, or a side effect added (a payment applied or an adjustment posted twice, a payment
that should only be flagged applied to an invoice). Over the kinds they cover every check of
the verifier (``CHECKS``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchmark._task import Planted, Task
from benchmark.reconciliation._generator import INVOICES_PER_CUSTOMER
from benchmark.reconciliation._tools import FLAGS
from drift import ToolCall

_CHECK_OF_TOOL = {
    "match_payment": "matches",
    "merge_customers": "customers",
    "post_adjustment": "adjustments",
    "flag_record": "flags",
}
_MISSING = {
    "match_payment": "payment not applied",
    "merge_customers": "duplicate not merged",
    "post_adjustment": "adjustment not posted",
    "flag_record": "record not flagged",
}
_REPEATABLE = {
    "match_payment": "payment applied twice",
    "post_adjustment": "adjustment posted twice",
}
"""Tools whose second identical call has a second effect, and what repeating one is called."""

Args = dict[str, Any]


def _other(values: list[str] | tuple[str, ...], value: str) -> str:
    """The value after ``value`` in ``values``, cyclically: always a different one."""
    return values[(values.index(value) + 1) % len(values)]


def _swapped_invoice(invoice_id: str) -> str:
    """Another invoice of the same customer: the trailing digit mirrored (1↔4, 2↔3)."""
    stem, last = invoice_id.rsplit("-", 1)
    return f"{stem}-{INVOICES_PER_CUSTOMER + 1 - int(last)}"


def _lookalike(task: Task, args: Args) -> str:
    """A customer that is neither the one kept nor its duplicate."""
    named = {args["customer_id"], args["duplicate_id"]}
    return next(c for c in task.initial_state["customers"] if c not in named)


def _other_record(task: Task, args: Args) -> str:
    """Another payment (or statement line) than the one to flag."""
    table = "payments" if args["record_id"].startswith("PAY-") else "statement_lines"
    return _other(sorted(task.initial_state[table]), args["record_id"])


_Change = Callable[[Task, Args], Args]

_FIELD_MISTAKES: dict[str, tuple[tuple[str, str, _Change], ...]] = {
    "match_payment": (
        ("wrong amount", "matches", lambda t, a: {"amount_cents": a["amount_cents"] + 100}),
        ("wrong unit", "invoices", lambda t, a: {"amount_cents": a["amount_cents"] * 100}),
        (
            "wrong invoice",
            "invoices",
            lambda t, a: {"invoice_id": _swapped_invoice(a["invoice_id"])},
        ),
    ),
    "merge_customers": (
        (
            "merge reversed",
            "customers",
            lambda t, a: {"customer_id": a["duplicate_id"], "duplicate_id": a["customer_id"]},
        ),
        ("wrong duplicate merged", "customers", lambda t, a: {"duplicate_id": _lookalike(t, a)}),
    ),
    "post_adjustment": (
        ("wrong sign", "accounts", lambda t, a: {"amount_cents": -a["amount_cents"]}),
        ("wrong unit", "adjustments", lambda t, a: {"amount_cents": a["amount_cents"] * 100}),
    ),
    "flag_record": (
        ("wrong flag", "flags", lambda t, a: {"flag": _other(FLAGS, a["flag"])}),
        ("wrong record flagged", "flags", lambda t, a: {"record_id": _other_record(t, a)}),
    ),
}
_DISCOUNT_MISTAKES: tuple[tuple[str, _Change], ...] = (
    ("wrong discount scale", lambda t, a: {**a, "discount_rate": a["discount_rate"] / 100}),
    ("discount left out", lambda t, a: {k: v for k, v in a.items() if k != "discount_rate"}),
)


def _replaced(calls: tuple[ToolCall, ...], i: int, args: Args) -> tuple[ToolCall, ...]:
    wrong = ToolCall(name=calls[i].name, arguments=args)
    return (*calls[:i], wrong, *calls[i + 1 :])


def _field_mistakes(task: Task) -> list[Planted]:
    calls = task.reference_calls
    out = []
    for i, call in enumerate(calls):
        args = dict(call.arguments)
        for name, check, change in _FIELD_MISTAKES[call.name]:
            wrong = _replaced(calls, i, {**args, **change(task, args)})
            out.append(Planted(name=name, check=check, calls=wrong))
        if "discount_rate" in args:
            for name, drop_or_scale in _DISCOUNT_MISTAKES:
                wrong = _replaced(calls, i, drop_or_scale(task, args))
                out.append(Planted(name=name, check="invoices", calls=wrong))
    return out


def _missing_steps(task: Task) -> list[Planted]:
    calls = task.reference_calls
    return [
        Planted(
            name=_MISSING[call.name],
            check=_CHECK_OF_TOOL[call.name],
            calls=(*calls[:i], *calls[i + 1 :]),
        )
        for i, call in enumerate(calls)
    ]


def _extra_effects(task: Task) -> list[Planted]:
    calls = task.reference_calls
    out = [
        Planted(
            name=_REPEATABLE[call.name],
            check=_CHECK_OF_TOOL[call.name],
            calls=(*calls[: i + 1], call, *calls[i + 1 :]),
        )
        for i, call in enumerate(calls)
        if call.name in _REPEATABLE
    ]
    for call in calls:
        record = call.arguments.get("record_id", "")
        if call.name == "flag_record" and record.startswith("PAY-"):
            payment = task.initial_state["payments"][record]
            apply = ToolCall(
                name="match_payment",
                arguments={
                    "invoice_id": min(task.initial_state["invoices"]),
                    "payment_id": record,
                    "amount_cents": payment["amount_cents"],
                },
            )
            out.append(
                Planted(name="flagged payment applied", check="matches", calls=(*calls, apply))
            )
    return out


def planted(task: Task) -> list[Planted]:
    """The wrong answers planted for ``task``: its reference with one field wrong, one step
    missing, or one side effect added."""
    return [*_field_mistakes(task), *_missing_steps(task), *_extra_effects(task)]
