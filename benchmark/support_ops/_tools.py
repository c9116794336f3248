"""The support-operations tool interface: base version and the generated versions."""

from __future__ import annotations

from typing import Any

from drift import InterfaceVersion, RenameField, Tool, ToolSet, UnitChange

ENV_ID = "support-ops"
REFUND_REASONS = ("damaged", "duplicate_charge", "late_delivery", "goodwill")
RESOLUTIONS = ("refunded", "no_action", "escalated")
EFFECTFUL_TOOLS = ("issue_refund", "close_ticket")


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }


def base_tools() -> ToolSet:
    """The canonical support-ops tool set (version ``support-ops@1``), in MCP form."""
    order_id = {"type": "string", "description": "Order identifier, e.g. 'ORD-10001'."}
    return ToolSet(
        tools=(
            Tool(
                name="find_customer",
                title="Find customer",
                description="Look up a customer by email. Returns the customer and order ids, "
                "oldest first.",
                input_schema=_obj(
                    {"email": {"type": "string", "description": "Customer email address."}},
                    ["email"],
                ),
            ),
            Tool(
                name="get_order",
                title="Get order",
                description="Fetch an order: line items with unit prices in cents, shipping "
                "fee in cents, total and amount already refunded.",
                input_schema=_obj({"order_id": order_id}, ["order_id"]),
            ),
            Tool(
                name="issue_refund",
                title="Issue refund",
                description="Refund money to the customer's original payment method. Irreversible.",
                input_schema=_obj(
                    {
                        "order_id": order_id,
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
                    },
                    ["order_id", "amount_cents", "reason"],
                ),
            ),
            Tool(
                name="close_ticket",
                title="Close ticket",
                description="Close a support ticket with a resolution code.",
                input_schema=_obj(
                    {
                        "ticket_id": {
                            "type": "string",
                            "description": "Ticket id, e.g. 'TCK-2001'.",
                        },
                        "resolution": {
                            "type": "string",
                            "enum": list(RESOLUTIONS),
                            "description": "How the ticket was resolved.",
                        },
                        "note": {"type": "string", "description": "Optional note to the customer."},
                    },
                    ["ticket_id", "resolution"],
                ),
            ),
        )
    )


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
    ]
    return {v.id: v for v in versions}
