"""The reconciliation tool interface: base version and the built-in changed versions.

Three changing drift operators have a natural target here, and the descriptions state the
conventions they change (the sim reads them, the drift operators rewrite them): the sign of a
ledger adjustment (``post_adjustment.amount_cents``: "Positive values are credits …"), the
scale of an early-payment discount (``match_payment.discount_rate``: "as a fraction between 0
and 1") and the kind of identifier an invoice field takes (``match_payment.invoice_id``: every
customer has four invoices ``INV-<n>-1`` … ``INV-<n>-4``, so an identifier swap with pivot 5
lands on another invoice of the same customer).

Two versions model changes seen in real releases (docs/drift.md): the two customer fields of a
merge trade roles (the record to keep becomes the one merged away), and the customer search's
terms match if any of them does instead of all (schema-silent; the backend takes the
combination as a parameter reconciliation@1 never sends).
"""

from __future__ import annotations

from typing import Any

from drift import (
    AnyOperator,
    FilterSemantics,
    FractionPercent,
    IdentifierSwap,
    InterfaceVersion,
    RenameField,
    RoleSwap,
    SignConvention,
    Tool,
    ToolSet,
)

ENV_ID = "reconciliation"
FLAGS = ("reconciled", "duplicate", "unidentified", "needs_review")
LOOKUP_TOOLS = ("find_customers", "get_invoice", "get_statement_line")
EFFECTFUL_TOOLS = ("match_payment", "merge_customers", "post_adjustment", "flag_record")
ID_PIVOT = 5
"""The identifier-swap pivot under which every invoice id lands on another invoice of its
customer (1↔4, 2↔3)."""

_INVOICE_ID = {"type": "string", "description": "Invoice number, e.g. 'INV-10001-1'."}


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def _tool(name: str, title: str, description: str, schema: dict[str, Any]) -> Tool:
    return Tool(name=name, title=title, description=description, input_schema=schema)


def _lookups() -> tuple[Tool, ...]:
    query = {"type": "string", "description": "Name or email address to search for."}
    line_id = {"type": "string", "description": "Statement line id, e.g. 'BSL-10001-3'."}
    return (
        _tool(
            "find_customers",
            "Find customers",
            "Search customer records by name or email (case-insensitive; part of either "
            "matches). Returns the matching customer ids, oldest record first, and the records.",
            _obj({"query": query}, ["query"]),
        ),
        _tool(
            "get_invoice",
            "Get invoice",
            "Fetch an invoice: its customer, the amount due, paid and discounted (in cents), the "
            "open balance, its status and the payments applied to it.",
            _obj({"invoice_id": _INVOICE_ID}, ["invoice_id"]),
        ),
        _tool(
            "get_statement_line",
            "Get statement line",
            "Fetch one line of the bank statement: account, date, description, direction "
            "(credit or debit), amount in cents and its reconciliation flag.",
            _obj({"line_id": line_id}, ["line_id"]),
        ),
    )


def _match() -> Tool:
    props = {
        "invoice_id": _INVOICE_ID,
        "payment_id": {"type": "string", "description": "Payment id, e.g. 'PAY-10001-2'."},
        "amount_cents": {
            "type": "integer",
            "minimum": 1,
            "description": "Amount of the payment to apply, in cents.",
        },
        "discount_rate": {
            "type": "number",
            "minimum": 0,
            "maximum": 1,
            "description": "Early-payment discount the customer took, as a fraction between 0 "
            "and 1 of the amount due. Leave it out when no discount was taken.",
        },
    }
    return _tool(
        "match_payment",
        "Match payment",
        "Apply a received payment (or part of it) to an invoice, with the early-payment "
        "discount the customer took, if any. The invoice is paid once its payments and "
        "discount cover the amount due.",
        _obj(props, ["invoice_id", "payment_id", "amount_cents"]),
    )


def _merge() -> Tool:
    props = {
        "customer_id": {
            "type": "string",
            "description": "The customer record to keep, e.g. 'CUS-10001-1'.",
        },
        "duplicate_id": {
            "type": "string",
            "description": "The duplicate customer record to merge into it.",
        },
    }
    return _tool(
        "merge_customers",
        "Merge customers",
        "Merge a duplicate customer record into the record to keep: the duplicate is marked "
        "merged and points at the kept record. Cannot be undone.",
        _obj(props, ["customer_id", "duplicate_id"]),
    )


def _adjust() -> Tool:
    props = {
        "account_id": {"type": "string", "description": "Ledger account id, e.g. 'ACC-10001'."},
        "amount_cents": {
            "type": "integer",
            "description": "Adjustment amount in cents. Positive values are credits (money "
            "in); negative values are debits (money out).",
        },
        "memo": {"type": "string", "description": "Optional memo for the ledger entry."},
    }
    return _tool(
        "post_adjustment",
        "Post adjustment",
        "Post an adjustment to a ledger account, e.g. a bank fee or interest the ledger is "
        "missing.",
        _obj(props, ["account_id", "amount_cents"]),
    )


def _flag() -> Tool:
    props = {
        "record_id": {
            "type": "string",
            "description": "A payment id ('PAY-…') or a statement line id ('BSL-…').",
        },
        "flag": {
            "type": "string",
            "enum": list(FLAGS),
            "description": "'reconciled': the statement line agrees with the ledger now; "
            "'duplicate': the payment was imported twice; 'unidentified': no customer or "
            "invoice can be traced to the payment; 'needs_review': anything else a person "
            "must look at.",
        },
    }
    return _tool(
        "flag_record",
        "Flag record",
        "Set the reconciliation flag of a payment or of a bank statement line.",
        _obj(props, ["record_id", "flag"]),
    )


def base_tools() -> ToolSet:
    """The canonical reconciliation tool set (version ``reconciliation@1``), in MCP form."""
    return ToolSet(tools=(*_lookups(), _match(), _merge(), _adjust(), _flag()))


def interface_versions() -> dict[str, InterfaceVersion]:
    """Every built-in reconciliation interface version, by id: the base, a preserving rename,
    and one version per changing operator the family is built for (sign, percent scale,
    identifier meaning)."""

    def changed(suffix: str, *ops: AnyOperator) -> InterfaceVersion:
        parent = f"{ENV_ID}@1"
        return InterfaceVersion(
            id=f"{ENV_ID}@2-{suffix}", env=ENV_ID, label="2", parent=parent, ops=ops
        )

    versions = [
        InterfaceVersion(id=f"{ENV_ID}@1", env=ENV_ID, label="1"),
        changed(
            "rename", RenameField(tool="match_payment", field="payment_id", new_name="payment_ref")
        ),
        changed("sign", SignConvention(tool="post_adjustment", field="amount_cents")),
        changed("percent", FractionPercent(tool="match_payment", field="discount_rate")),
        changed(
            "ids",
            IdentifierSwap(
                tool="match_payment", field="invoice_id", pivot=ID_PIVOT, result_key="invoice_id"
            ),
        ),
        changed("roles", RoleSwap(tool="merge_customers", a="customer_id", b="duplicate_id")),
        changed("any", FilterSemantics(tool="find_customers", field="query")),
    ]
    return {v.id: v for v in versions}
