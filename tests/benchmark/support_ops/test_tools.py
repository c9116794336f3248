"""The support-ops tools: one interface for every kind, with a natural target for every
changing drift operator, and the built-in versions still apply."""

import re

import numpy as np
import pytest

from benchmark import served_interface
from benchmark.support_ops import base_tools, interface_versions
from benchmark.support_ops._tools import EFFECTFUL_TOOLS
from drift import KINDS, ToolSet

TOOLS = base_tools()


def test_the_interface_serves_lookups_and_every_effectful_tool_in_mcp_form() -> None:
    assert TOOLS.names() == [
        "find_customer",
        "get_order",
        "issue_refund",
        "close_ticket",
        "update_account",
        "adjust_balance",
        "set_discount",
        "schedule_callback",
    ]
    assert set(EFFECTFUL_TOOLS) == set(TOOLS.names()) - {"find_customer", "get_order"}
    for tool in TOOLS.to_mcp():
        schema = tool["inputSchema"]
        assert schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])


def _properties(tools: ToolSet, tool: str) -> dict:
    return next(t for t in tools.tools if t.name == tool).properties()


def _description_after(changed: ToolSet, tool: str, field: str) -> str:
    """The description of ``field`` of ``tool`` in ``changed``, under its new name if renamed."""
    before, after = _properties(TOOLS, tool), _properties(changed, tool)
    added = set(after) - set(before)
    return str(after[added.pop() if added else field]["description"])


# (operator, tool, field, what the field's description says after the change)
TARGETS = [
    ("unit_change", "issue_refund", "amount_cents", r"in dollars\."),
    ("unit_change", "adjust_balance", "amount_cents", r"in dollars\."),
    ("default_flip", "issue_refund", "notify_customer", r"Defaults to false\."),
    ("sign_flip", "adjust_balance", "amount_cents", r"Negative values credit the customer"),
    ("fraction_percent", "set_discount", "rate", r"percent"),
    ("timezone", "schedule_callback", "callback_at", r"in UTC[+-]\d\d:\d\d\."),
    ("enum_meaning", "issue_refund", "reason", r"now means what"),
    ("enum_meaning", "close_ticket", "resolution", r"now means what"),
    ("id_swap", "get_order", "order_id", r"Takes the internal key"),
    ("id_swap", "close_ticket", "ticket_id", r"Takes the internal key"),
    ("id_swap", "adjust_balance", "customer_id", r"Takes the internal key"),
]


@pytest.mark.parametrize(
    ("op", "tool", "field", "says"), TARGETS, ids=[f"{t[0]}-{t[1]}" for t in TARGETS]
)
def test_every_changing_operator_finds_its_natural_target(
    op: str, tool: str, field: str, says: str
) -> None:
    operator = KINDS[op].draw(TOOLS, np.random.default_rng(0), {"tool": tool, "field": field})
    assert operator.drift_class == "changing"
    assert re.search(says, _description_after(operator.apply(TOOLS), tool, field))


def test_the_built_in_versions_apply() -> None:
    for version_id in interface_versions():
        served = served_interface("support-ops", version_id)
        assert served.tools.names() == TOOLS.names()
    refund = served_interface("support-ops", "support-ops@2-units").tools.get("issue_refund")
    assert refund is not None and "amount" in refund.properties()
