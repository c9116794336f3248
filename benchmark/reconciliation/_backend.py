"""The canonical reconciliation backend. Standard library only: it also runs inside sandboxes.

Like many bookkeeping tools it does not cap what is applied to an invoice at the amount due,
nor what a payment covers at its amount, nor an adjustment at anything: that is what makes a
silent unit, scale or sign mistake dangerous.
"""

from __future__ import annotations

import copy
from typing import Any

_RECORDS = ("matches", "adjustments")
_FLAGS = ("reconciled", "duplicate", "unidentified", "needs_review")


class BackendError(Exception):
    """A call the backend refuses (unknown id, malformed value, merging a record into itself)."""


class Backend:
    """The books of one simulated business, and the canonical tools acting on them.

    State: ``customers``, ``invoices``, ``payments``, ``accounts`` and ``statement_lines`` by
    id, and the ``matches`` and ``adjustments`` recorded so far. Payments and statement lines
    carry a reconciliation ``flag``.
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

    def _tool_find_customers(self, query: str, match: str = "all") -> dict[str, Any]:
        # match: a parameter no reconciliation@1 call sends (the filter drift changes it).
        # 'all': the query as a whole appears in the name or the email (what the tool always
        # did); 'any': one of its words does.
        if match not in ("all", "any"):
            raise BackendError(f"unknown match {match!r}")
        wanted = query.strip().lower()
        terms = [wanted] if match == "all" else wanted.split()

        def hit(c: dict[str, Any]) -> bool:
            return any(t in c["name"].lower() or t in c["email"].lower() for t in terms if t)

        found = sorted(
            (c for c in self.state["customers"].values() if wanted and hit(c)),
            key=lambda c: (c["created"], c["customer_id"]),
        )
        if not found:
            raise BackendError(f"no customer matches {query!r}")
        return {
            "query": query,
            "customer_ids": [c["customer_id"] for c in found],
            "customers": copy.deepcopy(found),
        }

    def _tool_get_invoice(self, invoice_id: str) -> dict[str, Any]:
        invoice = copy.deepcopy(self._get("invoices", invoice_id, "invoice"))
        covered = invoice["paid_cents"] + invoice["discount_cents"]
        invoice["balance_cents"] = invoice["amount_due_cents"] - covered
        invoice["payments"] = [
            {k: m[k] for k in ("payment_id", "amount_cents")}
            for m in self.state["matches"]
            if m["invoice_id"] == invoice_id
        ]
        return invoice

    def _tool_get_statement_line(self, line_id: str) -> dict[str, Any]:
        return copy.deepcopy(self._get("statement_lines", line_id, "statement line"))

    def _tool_match_payment(
        self, invoice_id: str, payment_id: str, amount_cents: int, discount_rate: float = 0.0
    ) -> dict[str, Any]:
        invoice = self._get("invoices", invoice_id, "invoice")
        payment = self._get("payments", payment_id, "payment")
        if not isinstance(amount_cents, int) or amount_cents < 1:
            raise BackendError(f"amount_cents {amount_cents!r} is not a positive whole number")
        if not 0 <= discount_rate <= 1:
            raise BackendError(f"discount_rate {discount_rate} is not a fraction between 0 and 1")
        match = {
            "match_id": f"M-{len(self.state['matches']) + 1:04d}",
            "invoice_id": invoice_id,
            "payment_id": payment_id,
            "amount_cents": amount_cents,
            "discount_rate": discount_rate,
        }
        self.state["matches"].append(match)
        invoice["paid_cents"] += amount_cents
        if discount_rate:
            invoice["discount_cents"] = round(invoice["amount_due_cents"] * discount_rate)
        covered = invoice["paid_cents"] + invoice["discount_cents"]
        due = invoice["amount_due_cents"]
        invoice["status"] = (
            "paid" if covered == due else "overpaid" if covered > due else "partially_paid"
        )
        payment["applied_cents"] += amount_cents
        payment["status"] = (
            "applied" if payment["applied_cents"] >= payment["amount_cents"] else "partly_applied"
        )
        return {**match, "invoice_status": invoice["status"]}

    def _tool_merge_customers(self, customer_id: str, duplicate_id: str) -> dict[str, Any]:
        keep = self._get("customers", customer_id, "customer")
        duplicate = self._get("customers", duplicate_id, "customer")
        if customer_id == duplicate_id:
            raise BackendError("cannot merge a customer record into itself")
        for record in (keep, duplicate):
            if record["status"] != "active":
                raise BackendError(f"customer {record['customer_id']} is already merged")
        duplicate.update(status="merged", merged_into=customer_id)
        return {"customer_id": customer_id, "merged": duplicate_id}

    def _tool_post_adjustment(
        self, account_id: str, amount_cents: int, memo: str | None = None
    ) -> dict[str, Any]:
        account = self._get("accounts", account_id, "account")
        if not isinstance(amount_cents, int) or amount_cents == 0:
            raise BackendError(f"amount_cents {amount_cents!r} is not a non-zero whole number")
        adjustment = {
            "adjustment_id": f"ADJ-{len(self.state['adjustments']) + 1:04d}",
            "account_id": account_id,
            "amount_cents": amount_cents,
            "memo": memo,
        }
        self.state["adjustments"].append(adjustment)
        account["balance_cents"] += amount_cents
        return {**adjustment, "balance_cents": account["balance_cents"]}

    def _tool_flag_record(self, record_id: str, flag: str) -> dict[str, Any]:
        table = "payments" if record_id.startswith("PAY-") else "statement_lines"
        record = self._get(table, record_id, "payment or statement line")
        if flag not in _FLAGS:
            raise BackendError(f"unknown flag {flag!r}; flags: {', '.join(_FLAGS)}")
        record["flag"] = flag
        return {"record_id": record_id, "flag": flag}
