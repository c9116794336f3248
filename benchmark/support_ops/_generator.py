"""Seeded generator of support-operations refund tasks."""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmark._task import Task, stable_int
from drift import ToolCall

GENERATOR_VERSION = "support_ops-gen-1"
KINDS = ("duplicate_charge", "damaged_item", "late_delivery", "damaged_by_email")

_FIRST = ("Ada", "Bo", "Chen", "Dara", "Eli", "Fatima", "Goran", "Hana", "Ivo", "Jun", "Kemi")
_LAST = ("Okafor", "Lindqvist", "Moreau", "Nakamura", "Petrov", "Quinn", "Rossi", "Silva")
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

_TEMPLATES: dict[str, tuple[str, ...]] = {
    "duplicate_charge": (
        "Ticket {ticket}: {name} <{email}> was charged twice for order {order}. "
        "Refund the duplicate charge of ${dollars} and close the ticket.",
        "Customer {name} ({email}) writes in on ticket {ticket}: order {order} shows two "
        "identical charges. Please refund the extra ${dollars}, then close the ticket.",
    ),
    "damaged_item": (
        "Ticket {ticket}: the {item} on order {order} arrived damaged. Refund that item in "
        "full (all units) and close the ticket.",
        "On ticket {ticket}, {name} reports that the {item} from order {order} was broken on "
        "arrival. Refund the full price of every {item} on the order and close the ticket.",
    ),
    "late_delivery": (
        "Ticket {ticket}: order {order} arrived late. Refund the shipping fee and close the "
        "ticket.",
        "{name} complains on ticket {ticket} that order {order} was delivered days late. Give "
        "back the shipping charge and close the ticket.",
    ),
    "damaged_by_email": (
        "Ticket {ticket}: the customer with email {email} says the {item} in their most recent "
        "order arrived damaged. Refund that item in full and close the ticket.",
        "A customer ({email}) reports on ticket {ticket} that the {item} in their latest order "
        "was broken. Refund every {item} on that order and close the ticket.",
    ),
}
_REASON = {
    "duplicate_charge": "duplicate_charge",
    "damaged_item": "damaged",
    "late_delivery": "late_delivery",
    "damaged_by_email": "damaged",
}


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


def generate(family_id: str, split: str, split_base: int, index: int, seed: int) -> Task:
    """Task ``index`` of ``split``; ids start at ``split_base`` so splits never share one."""
    rng = np.random.default_rng([seed, index])
    kind = KINDS[index % len(KINDS)]
    first, last = _FIRST[int(rng.integers(len(_FIRST)))], _LAST[int(rng.integers(len(_LAST)))]
    number = split_base + index
    customer_id, ticket_id = f"CUS-{number}", f"TCK-{number}"
    email = f"{first.lower()}.{last.lower()}{int(rng.integers(10, 99))}@example.com"
    n_orders = int(rng.integers(1, 4))
    orders = [_order(rng, f"ORD-{number}{j}", customer_id) for j in range(n_orders)]
    target = orders[-1] if kind == "damaged_by_email" else orders[int(rng.integers(n_orders))]
    item = target["items"][int(rng.integers(len(target["items"])))]
    amount = {
        "duplicate_charge": item["unit_price_cents"],
        "damaged_item": item["unit_price_cents"] * item["quantity"],
        "late_delivery": target["shipping_cents"],
        "damaged_by_email": item["unit_price_cents"] * item["quantity"],
    }[kind]
    template = _TEMPLATES[kind][int(rng.integers(len(_TEMPLATES[kind])))]
    instruction = template.format(
        ticket=ticket_id,
        name=f"{first} {last}",
        email=email,
        order=target["order_id"],
        item=item["name"],
        dollars=f"{amount / 100:.2f}",
    )
    state = {
        "customers": {
            customer_id: {
                "customer_id": customer_id,
                "name": f"{first} {last}",
                "email": email,
                "order_ids": [o["order_id"] for o in orders],
            }
        },
        "orders": {o["order_id"]: o for o in orders},
        "tickets": {
            ticket_id: {
                "ticket_id": ticket_id,
                "customer_id": customer_id,
                "order_id": target["order_id"],
                "status": "open",
                "resolution": None,
                "note": None,
            }
        },
        "refunds": [],
    }
    reference = (
        ToolCall(
            name="issue_refund",
            arguments={
                "order_id": target["order_id"],
                "amount_cents": amount,
                "reason": _REASON[kind],
            },
        ),
        ToolCall(name="close_ticket", arguments={"ticket_id": ticket_id, "resolution": "refunded"}),
    )
    digest = f"{stable_int(instruction, seed) % 16**8:08x}"
    return Task(
        id=f"{family_id}/{split}/{index:04d}-{digest}",
        family=family_id,
        split=split,
        index=index,
        seed=seed,
        generator_version=GENERATOR_VERSION,
        kind=kind,
        instruction=instruction,
        initial_state=state,
        reference_calls=reference,
    )
