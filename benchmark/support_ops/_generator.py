"""Seeded generator of support-operations tasks: refunds, account changes, ticket resolution.

Every task has one customer ``CUS-<n>`` with exactly four orders ``ORD-<n>-1`` (oldest) to
``ORD-<n>-4`` (most recent) and one open ticket ``TCK-<n>``, where ``n`` is the split's base
plus the task index. Four orders per customer make an identifier-meaning swap of the trailing
digit with pivot 5 (1↔4, 2↔3) land on another real order of the same customer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import partial
from typing import Any

import numpy as np

from benchmark._family_kit import numbered_task
from benchmark._task import Task
from benchmark.support_ops._phrasings import PHRASINGS
from drift import ToolCall

GENERATOR_VERSION = "support_ops-gen-2"
REFUND_KINDS = ("duplicate_charge", "damaged_item", "late_delivery", "damaged_by_email")
ACCOUNT_KINDS = ("change_email", "account_credit", "account_debit", "loyalty_discount")
TICKET_KINDS = ("escalate_callback", "withdrawn")
KINDS = REFUND_KINDS + ACCOUNT_KINDS + TICKET_KINDS
ORDERS_PER_CUSTOMER = 4

_FIRST = ("Ada", "Bo", "Chen", "Dara", "Eli", "Fatima", "Goran", "Hana", "Ivo", "Jun", "Kemi")
_LAST = ("Okafor", "Lindqvist", "Moreau", "Nakamura", "Petrov", "Quinn", "Rossi", "Silva")
_MAIL_DOMAINS = ("mailbox.org", "fastmail.com", "proton.me", "posteo.net")
_PRODUCTS = (
    ("Blue Kettle", 1800, 4500),
    ("Desk Lamp", 2200, 6900),
    ("Wool Scarf", 1500, 3900),
    ("Ceramic Mug Set", 1200, 3200),
    ("Trail Backpack", 4500, 12900),
    ("Noise-Cancelling Headphones", 7900, 24900),
    ("Cast Iron Pan", 2500, 7900),
    ("Yoga Mat", 1900, 5400),
    ("Espresso Grinder", 6900, 18900),
    ("Linen Sheets", 3900, 11900),
)
_REASON = {
    "duplicate_charge": "duplicate_charge",
    "damaged_item": "damaged",
    "late_delivery": "late_delivery",
    "damaged_by_email": "damaged",
}
_DISCOUNT_PERCENTS = (5, 10, 15, 20, 25)
_FIRST_CALLBACK_DAY = date(2026, 12, 1)


@dataclass(frozen=True)
class _Case:
    """What a kind's plan draws on: the seeded stream, the ticket and the customer."""

    rng: np.random.Generator
    ticket_id: str
    customer: dict[str, Any]
    orders: list[dict[str, Any]]


@dataclass(frozen=True)
class _Plan:
    """A kind's instruction slots, the order its ticket is about, and its reference calls."""

    slots: dict[str, str]
    ticket_order: str | None
    calls: tuple[ToolCall, ...]


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


def _dollars(cents: int) -> str:
    return f"{cents / 100:.2f}"


def _pick(rng: np.random.Generator, seq: list[Any] | tuple[Any, ...]) -> Any:
    return seq[int(rng.integers(len(seq)))]


def _order(rng: np.random.Generator, order_id: str, customer_id: str) -> dict[str, Any]:
    picks = rng.choice(len(_PRODUCTS), size=int(rng.integers(1, 4)), replace=False)
    items = []
    for p in picks:
        name, lo, hi = _PRODUCTS[int(p)]
        price = int(rng.integers(lo // 10, hi // 10)) * 10 - int(rng.choice([0, 1, 5]))
        items.append(
            {
                "sku": f"SKU-{int(p):03d}",
                "name": name,
                "quantity": int(rng.integers(1, 4)),
                "unit_price_cents": price,
            }
        )
    return {
        "order_id": order_id,
        "customer_id": customer_id,
        "status": "delivered",
        "items": items,
        "shipping_cents": int(rng.choice([499, 599, 799, 999, 1299])),
        "refunded_cents": 0,
    }


def _refund(kind: str, case: _Case) -> _Plan:
    rng = case.rng
    target = case.orders[-1] if kind == "damaged_by_email" else _pick(rng, case.orders)
    item = _pick(rng, target["items"])
    amount = {
        "duplicate_charge": item["unit_price_cents"],
        "damaged_item": item["unit_price_cents"] * item["quantity"],
        "late_delivery": target["shipping_cents"],
        "damaged_by_email": item["unit_price_cents"] * item["quantity"],
    }[kind]
    order_id = target["order_id"]
    slots = {"order": order_id, "item": item["name"], "dollars": _dollars(amount)}
    refund = _call("issue_refund", order_id=order_id, amount_cents=amount, reason=_REASON[kind])
    close = _call("close_ticket", ticket_id=case.ticket_id, resolution="refunded")
    return _Plan(slots, order_id, (refund, close))


def _change_email(case: _Case) -> _Plan:
    local = case.customer["name"].lower().replace(" ", ".")
    new_email = f"{local}@{_pick(case.rng, _MAIL_DOMAINS)}"
    update = _call("update_account", customer_id=case.customer["customer_id"], email=new_email)
    return _Plan({"new_email": new_email}, None, (update, _account_updated(case)))


def _balance(sign: int, case: _Case) -> _Plan:
    cents = int(case.rng.integers(4, 60)) * 50
    adjust = _call(
        "adjust_balance", customer_id=case.customer["customer_id"], amount_cents=sign * cents
    )
    return _Plan({"dollars": _dollars(cents)}, None, (adjust, _account_updated(case)))


def _loyalty_discount(case: _Case) -> _Plan:
    percent = int(_pick(case.rng, _DISCOUNT_PERCENTS))
    discount = _call("set_discount", customer_id=case.customer["customer_id"], rate=percent / 100)
    return _Plan({"percent": str(percent)}, None, (discount, _account_updated(case)))


def _account_updated(case: _Case) -> ToolCall:
    return _call("close_ticket", ticket_id=case.ticket_id, resolution="account_updated")


def _escalate_callback(case: _Case) -> _Plan:
    rng = case.rng
    order_id = _pick(rng, case.orders)["order_id"]
    day = (_FIRST_CALLBACK_DAY + timedelta(days=int(rng.integers(1, 60)))).isoformat()
    time = f"{int(rng.integers(8, 20)):02d}:{int(_pick(rng, (0, 15, 30, 45))):02d}"
    callback = _call("schedule_callback", ticket_id=case.ticket_id, callback_at=f"{day}T{time}:00")
    close = _call("close_ticket", ticket_id=case.ticket_id, resolution="escalated")
    return _Plan({"order": order_id, "day": day, "time": time}, order_id, (callback, close))


def _withdrawn(case: _Case) -> _Plan:
    target = _pick(case.rng, case.orders)
    item = _pick(case.rng, target["items"])["name"]
    close = _call("close_ticket", ticket_id=case.ticket_id, resolution="no_action")
    return _Plan({"order": target["order_id"], "item": item}, target["order_id"], (close,))


_PLANS: dict[str, Callable[[_Case], _Plan]] = {
    **{kind: partial(_refund, kind) for kind in REFUND_KINDS},
    "change_email": _change_email,
    "account_credit": partial(_balance, 1),
    "account_debit": partial(_balance, -1),
    "loyalty_discount": _loyalty_discount,
    "escalate_callback": _escalate_callback,
    "withdrawn": _withdrawn,
}


def _customer(rng: np.random.Generator, number: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    first, last = _pick(rng, _FIRST), _pick(rng, _LAST)
    customer_id = f"CUS-{number}"
    orders = [
        _order(rng, f"ORD-{number}-{j}", customer_id) for j in range(1, ORDERS_PER_CUSTOMER + 1)
    ]
    customer = {
        "customer_id": customer_id,
        "name": f"{first} {last}",
        "email": f"{first.lower()}.{last.lower()}{int(rng.integers(10, 99))}@example.com",
        "order_ids": [o["order_id"] for o in orders],
        "balance_cents": int(rng.integers(0, 81)) * 50,
        "discount_rate": 0.0,
    }
    return customer, orders


def generate(family_id: str, split: str, split_base: int, index: int, seed: int) -> Task:
    """Task ``index`` of ``split``; ids start at ``split_base`` so splits never share one.

    ``index`` picks the kind (cycling through ``KINDS``); successive tasks of one kind
    alternate between its phrasings.
    """
    rng = np.random.default_rng([seed, index])
    kind = KINDS[index % len(KINDS)]
    number = split_base + index
    customer, orders = _customer(rng, number)
    ticket_id = f"TCK-{number}"
    plan = _PLANS[kind](_Case(rng, ticket_id, customer, orders))
    phrasings = PHRASINGS[kind]
    template = phrasings[(seed + index // len(KINDS)) % len(phrasings)]
    instruction = template.format(
        ticket=ticket_id, name=customer["name"], email=customer["email"], **plan.slots
    )
    ticket = {
        "ticket_id": ticket_id,
        "customer_id": customer["customer_id"],
        "order_id": plan.ticket_order,
        "status": "open",
        "resolution": None,
        "note": None,
    }
    state = {
        "customers": {customer["customer_id"]: customer},
        "orders": {o["order_id"]: o for o in orders},
        "tickets": {ticket_id: ticket},
        "refunds": [],
        "adjustments": [],
        "callbacks": [],
    }
    return numbered_task(
        family=family_id,
        split=split,
        index=index,
        seed=seed,
        generator_version=GENERATOR_VERSION,
        kind=kind,
        instruction=instruction,
        initial_state=state,
        reference_calls=plan.calls,
    )
