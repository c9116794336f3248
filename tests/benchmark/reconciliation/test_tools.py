"""The reconciliation tools: lookups and four effectful tools in MCP form, fields that state
the conventions the family's changing drift operators rewrite, and built-in versions that
apply."""

import re

import numpy as np
import pytest

from benchmark import served_interface
from benchmark.reconciliation import ENV_ID, Reconciliation, base_tools, interface_versions
from benchmark.reconciliation._backend import _FLAGS
from benchmark.reconciliation._tools import EFFECTFUL_TOOLS, FLAGS, LOOKUP_TOOLS
from drift import KINDS, ToolSet, read_convention

TOOLS = base_tools()


def test_the_interface_serves_lookups_and_every_effectful_tool_in_mcp_form() -> None:
    assert TOOLS.names() == [*LOOKUP_TOOLS, *EFFECTFUL_TOOLS]
    assert 5 <= len(TOOLS.names()) <= 7
    assert Reconciliation().effectful_tools == EFFECTFUL_TOOLS
    for tool in TOOLS.to_mcp():
        schema = tool["inputSchema"]
        assert schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])


def test_the_backend_accepts_the_flags_the_schema_offers() -> None:
    flag = next(t for t in TOOLS.tools if t.name == "flag_record").properties()["flag"]
    assert tuple(flag["enum"]) == FLAGS == _FLAGS


def _properties(tools: ToolSet, tool: str) -> dict:
    return next(t for t in tools.tools if t.name == tool).properties()


def test_the_base_fields_state_the_conventions_drift_changes() -> None:
    adjust = _properties(TOOLS, "post_adjustment")["amount_cents"]
    sign = read_convention("amount_cents", adjust)
    assert (sign.unit, sign.positive, sign.negative) == (
        "cents",
        "credits (money in)",
        "debits (money out)",
    )
    rate = _properties(TOOLS, "match_payment")["discount_rate"]
    assert read_convention("discount_rate", rate).scale == "fraction"
    invoice = _properties(TOOLS, "match_payment")["invoice_id"]
    assert read_convention("invoice_id", invoice).takes is None


# (operator, tool, field, what the field's description says after the change)
TARGETS = [
    ("sign_flip", "post_adjustment", "amount_cents", r"Negative values are credits"),
    ("fraction_percent", "match_payment", "discount_rate", r"as a percent 0–100"),
    ("id_swap", "match_payment", "invoice_id", r"Takes the internal key, not the display number"),
    ("enum_meaning", "flag_record", "flag", r"now means what"),
    ("unit_change", "match_payment", "amount_cents", r"in dollars\."),
]


@pytest.mark.parametrize(
    ("op", "tool", "field", "says"), TARGETS, ids=[f"{t[0]}-{t[1]}" for t in TARGETS]
)
def test_every_changing_operator_finds_its_natural_target(
    op: str, tool: str, field: str, says: str
) -> None:
    operator = KINDS[op].draw(TOOLS, np.random.default_rng(0), {"tool": tool, "field": field})
    assert operator.drift_class == "changing"
    changed = _properties(operator.apply(TOOLS), tool)
    renamed = set(changed) - set(_properties(TOOLS, tool))
    assert re.search(says, str(changed[renamed.pop() if renamed else field]["description"]))


def test_the_built_in_versions_apply_and_change_what_they_name(registered: Reconciliation) -> None:
    versions = interface_versions()
    assert f"{ENV_ID}@1" in versions
    changing = {
        vid: v for vid, v in versions.items() if any(op.drift_class == "changing" for op in v.ops)
    }
    assert {op.op for v in changing.values() for op in v.ops} == {
        "sign_flip",
        "fraction_percent",
        "id_swap",
        "role_swap",
        "filter_semantics",
    }
    for version_id in versions:
        served = served_interface(ENV_ID, version_id)
        assert served.tools.names() == TOOLS.names()
    sign = _properties(served_interface(ENV_ID, f"{ENV_ID}@2-sign").tools, "post_adjustment")
    assert read_convention("amount_cents", sign["amount_cents"]).positive == "debits (money out)"
