"""The support-operations tool interface: base version and the generated versions.

Every changing drift operator has a natural target among these fields: a unit
(``amount_cents``), a default (``notify_customer``), a sign convention (``adjust_balance``'s
``amount_cents``), a fraction scale (``rate``), enum meanings (``reason``, ``resolution``), a
time zone (``callback_at``) and identifier meanings (``order_id``, ``ticket_id``,
``customer_id``). The descriptions state the conventions: the sim reads them, and the drift
operators rewrite them.

Four versions model changes seen in real releases (docs/drift.md): a refund that becomes store
credit unless told otherwise (a new option whose default is not what the handler did), an
order whose amounts come back in dollars unless cents are asked for (a new output-format
default), a refund whose ``order_id`` counts a customer's orders from 0 (schema-silent), and a
customer lookup listing only the three most recent orders, newest first (order and cut stated
only in prose). The backend takes the new options as parameters of its own, which
support-ops@1 never sends.
"""

from __future__ import annotations

from typing import Any

from drift import (
    AnyOperator,
    FormatDefault,
    IndexBase,
    InterfaceVersion,
    NewDefaultParam,
    OrderCut,
    RenameField,
    Tool,
    ToolSet,
    UnitChange,
)

ENV_ID = "support-ops"
REFUND_REASONS = ("damaged", "duplicate_charge", "late_delivery", "goodwill")
RESOLUTIONS = ("refunded", "account_updated", "escalated", "no_action")
EFFECTFUL_TOOLS = (
    "issue_refund",
    "close_ticket",
    "update_account",
    "adjust_balance",
    "set_discount",
    "schedule_callback",
)

_ORDER_ID = {"type": "string", "description": "Order identifier, e.g. 'ORD-10001-1'."}
_TICKET_ID = {"type": "string", "description": "Ticket id, e.g. 'TCK-2001'."}
_CUSTOMER_ID = {"type": "string", "description": "Customer identifier, e.g. 'CUS-10001'."}


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
    return (
        _tool(
            "find_customer",
            "Find customer",
            "Look up a customer by email. Returns the customer id, contact details, balance, "
            "discount and order ids, oldest first.",
            _obj(
                {"email": {"type": "string", "description": "Customer email address."}}, ["email"]
            ),
        ),
        _tool(
            "get_order",
            "Get order",
            "Fetch an order: line items with unit prices in cents, shipping fee in cents, total "
            "and amount already refunded.",
            _obj({"order_id": _ORDER_ID}, ["order_id"]),
        ),
    )


def _refund_and_ticket_tools() -> tuple[Tool, ...]:
    refund = {
        "order_id": _ORDER_ID,
        "amount_cents": {
            "type": "integer",
            "minimum": 1,
            "description": "Amount to refund, in cents.",
        },
        "reason": {
            "type": "string",
            "enum": list(REFUND_REASONS),
            "description": "Why the refund is issued.",
        },
        "notify_customer": {
            "type": "boolean",
            "default": True,
            "description": "Email the customer a refund confirmation. Defaults to true.",
        },
    }
    close = {
        "ticket_id": _TICKET_ID,
        "resolution": {
            "type": "string",
            "enum": list(RESOLUTIONS),
            "description": "How the ticket was resolved.",
        },
        "note": {"type": "string", "description": "Optional note to the customer."},
    }
    return (
        _tool(
            "issue_refund",
            "Issue refund",
            "Refund money to the customer's original payment method. Irreversible.",
            _obj(refund, ["order_id", "amount_cents", "reason"]),
        ),
        _tool(
            "close_ticket",
            "Close ticket",
            "Close a support ticket with a resolution code.",
            _obj(close, ["ticket_id", "resolution"]),
        ),
    )


def _account_tools() -> tuple[Tool, ...]:
    email = {"type": "string", "description": "The customer's new email address."}
    amount = {
        "type": "integer",
        "description": "Balance adjustment in cents. Positive values credit the customer; "
        "negative values debit them.",
    }
    rate = {
        "type": "number",
        "minimum": 0,
        "maximum": 1,
        "description": "Loyalty discount on future orders, as a fraction between 0 and 1.",
    }
    memo = {"type": "string", "description": "Optional internal memo for the adjustment."}
    return (
        _tool(
            "update_account",
            "Update account",
            "Change the email address on a customer's account.",
            _obj({"customer_id": _CUSTOMER_ID, "email": email}, ["customer_id", "email"]),
        ),
        _tool(
            "adjust_balance",
            "Adjust balance",
            "Credit or debit a customer's account balance.",
            _obj(
                {"customer_id": _CUSTOMER_ID, "amount_cents": amount, "memo": memo},
                ["customer_id", "amount_cents"],
            ),
        ),
        _tool(
            "set_discount",
            "Set discount",
            "Set the loyalty discount a customer gets on future orders.",
            _obj({"customer_id": _CUSTOMER_ID, "rate": rate}, ["customer_id", "rate"]),
        ),
    )


def _callback() -> Tool:
    callback_at = {
        "type": "string",
        "description": "When to call the customer back: local time YYYY-MM-DDTHH:MM:SS, in UTC.",
    }
    return _tool(
        "schedule_callback",
        "Schedule callback",
        "Schedule a phone call back to the customer about a ticket.",
        _obj({"ticket_id": _TICKET_ID, "callback_at": callback_at}, ["ticket_id", "callback_at"]),
    )


def base_tools() -> ToolSet:
    """The canonical support-ops tool set (version ``support-ops@1``), in MCP form."""
    return ToolSet(tools=(*_lookups(), *_refund_and_ticket_tools(), *_account_tools(), _callback()))


def interface_versions() -> dict[str, InterfaceVersion]:
    """Every built-in support-ops interface version, by id."""
    versions = [
        InterfaceVersion(id="support-ops@1", env=ENV_ID, label="1"),
        InterfaceVersion(
            id="support-ops@2-rename",
            env=ENV_ID,
            label="2",
            parent="support-ops@1",
            ops=(RenameField(tool="issue_refund", field="order_id", new_name="order_number"),),
        ),
        InterfaceVersion(
            id="support-ops@2-units",
            env=ENV_ID,
            label="2",
            parent="support-ops@1",
            ops=(
                UnitChange(
                    tool="issue_refund",
                    field="amount_cents",
                    new_name="amount",
                    old_unit="cents",
                    new_unit="dollars",
                    scale=100,
                ),
            ),
        ),
        *_real_versions(),
    ]
    return {v.id: v for v in versions}


def _changed(suffix: str, *ops: AnyOperator) -> InterfaceVersion:
    return InterfaceVersion(
        id=f"{ENV_ID}@2-{suffix}", env=ENV_ID, label="2", parent=f"{ENV_ID}@1", ops=ops
    )


def _real_versions() -> list[InterfaceVersion]:
    """The versions modelled on real releases' changes."""
    credit = {
        "type": "boolean",
        "default": True,
        "description": "Refund as store credit on the customer's account instead of to the "
        "original payment method. Defaults to true.",
    }
    amount_format = FormatDefault(
        tool="get_order",
        field="amount_format",
        values=("decimal", "minor_units"),
        default="decimal",
        old_value="minor_units",
        description="How amounts are written: 'decimal' (two decimals, e.g. 12.5) or "
        "'minor_units' (whole hundredths). Defaults to 'decimal'.",
        tool_description="Fetch an order: line items with unit prices, the shipping fee, the "
        "total and the amount already refunded, all in dollars.",
        feeds=("issue_refund.amount_cents",),
        scale=100,
    )
    recent = OrderCut(
        tool="find_customer",
        rows="order_ids",
        limit=3,
        old_text="order ids, oldest first",
        new_text="the ids of the 3 most recent orders, newest first",
    )
    return [
        _changed(
            "credit",
            NewDefaultParam(
                tool="issue_refund", field="store_credit", prop=credit, old_value=False
            ),
        ),
        _changed("format", amount_format),
        _changed("base0", IndexBase(tool="issue_refund", field="order_id")),
        _changed("recent", recent),
    ]
