"""The canonical support-ops backend. Standard library only: it also runs inside sandboxes.

Like many internal support tools it does not cap a refund at the order total nor a debit at
the balance, which is what makes a silent unit or sign mistake dangerous.
"""

from __future__ import annotations

import copy
import re
from datetime import datetime
from typing import Any

_LOCAL_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
_RECORDS = ("refunds", "adjustments", "callbacks")


class BackendError(Exception):
    """A call the backend refuses (unknown id, closed ticket, malformed value, ...)."""


def _decimal(value: Any) -> Any:
    """``value`` with every ``…_cents`` amount written as decimal dollars under the name
    without the unit (``shipping_cents: 799`` → ``shipping: 7.99``)."""
    if isinstance(value, list):
        return [_decimal(v) for v in value]
    if not isinstance(value, dict):
        return value
    return {
        (k.removesuffix("_cents") if k.endswith("_cents") else k): (
            round(v / 100, 2) if k.endswith("_cents") and isinstance(v, int) else _decimal(v)
        )
        for k, v in value.items()
    }


class Backend:
    """The state of one simulated support system, and the canonical tools acting on it.

    State: ``customers``, ``orders`` and ``tickets`` by id, and the ``refunds``,
    ``adjustments`` and ``callbacks`` recorded so far.
    """

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = copy.deepcopy(state)
        for records in _RECORDS:
            self.state.setdefault(records, [])

    def dump(self) -> dict[str, Any]:
        """A deep copy of the current state."""
        return copy.deepcopy(self.state)

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        """Run canonical tool ``tool`` with ``args``."""
        handler = getattr(self, "_tool_" + tool, None)
        if handler is None:
            raise BackendError(f"unknown tool {tool!r}")
        return handler(**args)

    def _get(self, table: str, key: str, what: str) -> dict[str, Any]:
        record = self.state[table].get(key)
        if record is None:
            raise BackendError(f"no {what} {key!r}")
        return record

    def _tool_find_customer(self, email: str) -> dict[str, Any]:
        for c in self.state["customers"].values():
            if c["email"].lower() == email.strip().lower():
                return copy.deepcopy(c)
        raise BackendError(f"no customer with email {email!r}")

    def _tool_get_order(self, order_id: str, amount_format: str = "minor_units") -> dict[str, Any]:
        # amount_format: a parameter no support-ops@1 call sends (the format drift exposes it)
        order = copy.deepcopy(self._get("orders", order_id, "order"))
        items = sum(i["unit_price_cents"] * i["quantity"] for i in order["items"])
        order["total_cents"] = items + order["shipping_cents"]
        if amount_format == "decimal":
            return _decimal(order)
        if amount_format != "minor_units":
            raise BackendError(f"unknown amount_format {amount_format!r}")
        return order

    def _tool_issue_refund(
        self,
        order_id: str,
        amount_cents: int,
        reason: str,
        notify_customer: bool = True,
        store_credit: bool = False,
    ) -> dict[str, Any]:
        # store_credit: a parameter no support-ops@1 call sends (the default drift exposes it)
        order = self._get("orders", order_id, "order")
        refund = {
            "refund_id": f"RF-{len(self.state['refunds']) + 1:04d}",
            "order_id": order_id,
            "amount_cents": amount_cents,
            "reason": reason,
            "notified": notify_customer,
        }
        if store_credit:  # kept out otherwise, so support-ops@1 states are what they were
            refund["store_credit"] = True
        self.state["refunds"].append(refund)
        order["refunded_cents"] += amount_cents
        return {**refund, "status": "issued"}

    def _tool_close_ticket(
        self, ticket_id: str, resolution: str, note: str | None = None
    ) -> dict[str, Any]:
        ticket = self._get("tickets", ticket_id, "ticket")
        if ticket["status"] == "closed":
            raise BackendError(f"ticket {ticket_id} is already closed")
        ticket.update(status="closed", resolution=resolution, note=note)
        return {"ticket_id": ticket_id, "status": "closed", "resolution": resolution}

    def _tool_update_account(self, customer_id: str, email: str) -> dict[str, Any]:
        customer = self._get("customers", customer_id, "customer")
        if "@" not in email:
            raise BackendError(f"{email!r} is not an email address")
        customer["email"] = email
        return {"customer_id": customer_id, "email": email}

    def _tool_adjust_balance(
        self, customer_id: str, amount_cents: int, memo: str | None = None
    ) -> dict[str, Any]:
        customer = self._get("customers", customer_id, "customer")
        adjustment = {
            "adjustment_id": f"ADJ-{len(self.state['adjustments']) + 1:04d}",
            "customer_id": customer_id,
            "amount_cents": amount_cents,
            "memo": memo,
        }
        self.state["adjustments"].append(adjustment)
        customer["balance_cents"] += amount_cents
        return {**adjustment, "balance_cents": customer["balance_cents"]}

    def _tool_set_discount(self, customer_id: str, rate: float) -> dict[str, Any]:
        customer = self._get("customers", customer_id, "customer")
        if not 0 <= rate <= 1:
            raise BackendError(f"discount rate {rate} is not a fraction between 0 and 1")
        customer["discount_rate"] = rate
        return {"customer_id": customer_id, "discount_rate": rate}

    def _tool_schedule_callback(self, ticket_id: str, callback_at: str) -> dict[str, Any]:
        self._get("tickets", ticket_id, "ticket")
        if not _LOCAL_TIME.fullmatch(callback_at):
            raise BackendError(
                f"callback_at {callback_at!r} is not a local time YYYY-MM-DDTHH:MM:SS "
                "(no offset, no 'Z')"
            )
        try:
            datetime.fromisoformat(callback_at)
        except ValueError:
            raise BackendError(f"callback_at {callback_at!r} is not a valid time") from None
        callback = {"ticket_id": ticket_id, "callback_at": callback_at}
        self.state["callbacks"].append(callback)
        return {**callback, "status": "scheduled"}
