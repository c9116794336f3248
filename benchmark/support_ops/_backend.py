"""The canonical support-ops backend. Standard library only: it also runs inside sandboxes.

Like many internal refund tools it does not cap a refund at the order total, which is what
makes a silent unit mistake dangerous.
"""

from __future__ import annotations

import copy
from typing import Any


class BackendError(Exception):
    """A call the backend refuses (unknown id, closed ticket, ...)."""


class Backend:
    """The state of one simulated support system, and the canonical tools acting on it."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = copy.deepcopy(state)
        self.state.setdefault("refunds", [])

    def dump(self) -> dict[str, Any]:
        """A deep copy of the current state."""
        return copy.deepcopy(self.state)

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        """Run canonical tool ``tool`` with ``args``."""
        handler = getattr(self, "_tool_" + tool, None)
        if handler is None:
            raise BackendError(f"unknown tool {tool!r}")
        return handler(**args)

    def _order(self, order_id: str) -> dict[str, Any]:
        order = self.state["orders"].get(order_id)
        if order is None:
            raise BackendError(f"no order {order_id!r}")
        return order

    def _tool_find_customer(self, email: str) -> dict[str, Any]:
        for c in self.state["customers"].values():
            if c["email"].lower() == email.strip().lower():
                return copy.deepcopy(c)
        raise BackendError(f"no customer with email {email!r}")

    def _tool_get_order(self, order_id: str) -> dict[str, Any]:
        order = copy.deepcopy(self._order(order_id))
        items = sum(i["unit_price_cents"] * i["quantity"] for i in order["items"])
        order["total_cents"] = items + order["shipping_cents"]
        return order

    def _tool_issue_refund(self, order_id: str, amount_cents: int, reason: str) -> dict[str, Any]:
        order = self._order(order_id)
        refund = {
            "refund_id": f"RF-{len(self.state['refunds']) + 1:04d}",
            "order_id": order_id,
            "amount_cents": amount_cents,
            "reason": reason,
        }
        self.state["refunds"].append(refund)
        order["refunded_cents"] += amount_cents
        return {**refund, "status": "issued"}

    def _tool_close_ticket(
        self, ticket_id: str, resolution: str, note: str | None = None
    ) -> dict[str, Any]:
        ticket = self.state["tickets"].get(ticket_id)
        if ticket is None:
            raise BackendError(f"no ticket {ticket_id!r}")
        if ticket["status"] == "closed":
            raise BackendError(f"ticket {ticket_id} is already closed")
        ticket.update(status="closed", resolution=resolution, note=note)
        return {"ticket_id": ticket_id, "status": "closed", "resolution": resolution}
