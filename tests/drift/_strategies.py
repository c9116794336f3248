"""Hypothesis strategies: realistic tool sets and valid calls of them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hypothesis import strategies as st

from drift import Tool, ToolCall, ToolSet

FIELD_KINDS: dict[str, tuple[str, dict[str, Any]]] = {
    "amount": ("amount_cents", {"type": "integer", "description": "Amount, in cents."}),
    "timeout": ("timeout_seconds", {"type": "integer", "description": "Wait, in seconds."}),
    "delay": ("delay_ms", {"type": "integer", "description": "Delay (ms)."}),
    "flag": ("notify", {"type": "boolean", "description": "Whether to notify."}),
    "flag_on": ("archive", {"type": "boolean", "default": True, "description": "Archive it."}),
    "status": ("status", {"type": "string", "enum": ["open", "on_hold", "closed"]}),
    "when": ("due_at", {"type": "string", "description": "Local time, in UTC."}),
    "ident": ("order_id", {"type": "string", "description": "Order id."}),
    "offset": ("offset", {"type": "integer", "minimum": 0, "description": "Items to skip."}),
    "limit": (
        "limit",
        {"type": "integer", "minimum": 1, "default": 20, "description": "Per page."},
    ),
    "rate": ("discount_rate", {"type": "number", "maximum": 1, "description": "As a fraction."}),
    "delta": ("delta", {"type": "number", "description": "Change of stock level."}),
    "note": ("note", {"type": "string", "description": "Free text."}),
    "contact": (
        "contact",
        {
            "type": "object",
            "properties": {"phone": {"type": "string"}, "name": {"type": "string"}},
            "required": ["phone"],
        },
    ),
}
"""Field archetypes: (name, property schema). Every operator kind finds a target among them."""


@st.composite
def tool_sets(draw: st.DrawFn) -> ToolSet:
    """1–3 tools, each with a random subset of the field archetypes."""
    count = draw(st.integers(1, 3))
    tools = []
    for i in range(count):
        kinds = draw(
            st.lists(st.sampled_from(sorted(FIELD_KINDS)), min_size=3, max_size=9, unique=True)
        )
        props = {FIELD_KINDS[k][0]: FIELD_KINDS[k][1] for k in kinds}
        required = draw(st.lists(st.sampled_from(sorted(props)), unique=True, max_size=3))
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if required:
            schema["required"] = required
        name = ["get_order", "update_ticket", "list_items"][i]
        tools.append(
            Tool.model_validate(
                {"name": name, "description": f"Tool {name}.", "inputSchema": schema}
            )
        )
    return ToolSet(tools=tuple(tools))


def _value(name: str, prop: dict[str, Any]) -> st.SearchStrategy[Any]:
    if "enum" in prop:
        return st.sampled_from(prop["enum"])
    kind = prop.get("type")
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(prop.get("minimum", 1) or 1, 10**6)
    if kind == "number":
        top = prop.get("maximum", 10**4)
        return st.integers(1, 100).map(lambda n: round(n * top / 100, 2))
    if kind == "object":
        inner = {k: _value(k, v) for k, v in prop["properties"].items()}
        return st.fixed_dictionaries(inner)
    if name.endswith("_at"):
        span = st.datetimes(datetime(2000, 1, 1), datetime(2100, 1, 1))
        return span.map(lambda d: d.replace(microsecond=0).isoformat(timespec="seconds"))
    if name.endswith("_id"):
        return st.integers(0, 99999).map(lambda n: f"ORD-{n:05d}")
    return st.text("abc ", min_size=1, max_size=8)


@st.composite
def calls(draw: st.DrawFn, tools: ToolSet) -> ToolCall:
    """A call of one of ``tools`` that its schema accepts (numbers non-zero)."""
    tool = draw(st.sampled_from(list(tools.tools)))
    required = set(tool.input_schema.get("required", []))
    args = {}
    for name, prop in tool.properties().items():
        if name in required or draw(st.booleans()):
            args[name] = draw(_value(name, prop))
    return ToolCall(name=tool.name, arguments=args)


def effect(tools: ToolSet, call: ToolCall) -> bytes:
    """What a call does on a backend serving ``tools``: arguments with defaults filled in.

    An absent boolean counts as false unless the schema states another default.
    """
    tool = tools.get(call.name)
    args = dict(call.arguments)
    for name, prop in (tool.properties() if tool else {}).items():
        if name not in args and "default" in prop:
            args[name] = prop["default"]
        elif name not in args and prop.get("type") == "boolean":
            args[name] = False
    return ToolCall(name=call.name, arguments=args).canonical()
