"""Small helpers the operators share: looking up tools and fields, editing schemas and calls."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from drift._tools import JSON, Tool, ToolCall, ToolSet
from drift.errors import DriftError

FieldTest = Callable[[Tool, str, JSON], bool]


def require_tool(tools: ToolSet, name: str) -> Tool:
    """The tool ``name`` or a DriftError naming the available tools."""
    tool = tools.get(name)
    if tool is None:
        raise DriftError(
            f"no tool named {name!r} to drift", f"available tools: {', '.join(tools.names())}"
        )
    return tool


def require_field(tool: Tool, field: str) -> JSON:
    """The property schema of ``field`` in ``tool``'s input, or a DriftError."""
    prop = tool.properties().get(field)
    if prop is None:
        raise DriftError(
            f"tool {tool.name!r} has no input field {field!r}",
            f"fields: {', '.join(tool.properties()) or '(none)'}",
        )
    return prop


def require_free(tool: Tool, name: str) -> None:
    """A DriftError if ``tool`` already has an input field ``name``."""
    if name in tool.properties():
        raise DriftError(f"tool {tool.name!r} already has a field {name!r}", "pick another name")


def with_input_schema(tool: Tool, schema: JSON) -> Tool:
    """A copy of ``tool`` with a new input schema."""
    return tool.model_copy(update={"input_schema": schema})


def rename_property(schema: JSON, old: str, new: str, prop: JSON | None = None) -> JSON:
    """A copy of an object schema with property ``old`` renamed to ``new`` (order kept)."""
    out = copy.deepcopy(schema)
    props = out.get("properties", {})
    out["properties"] = {
        (new if k == old else k): (copy.deepcopy(prop) if k == old and prop is not None else v)
        for k, v in props.items()
    }
    if "required" in out:
        out["required"] = [new if r == old else r for r in out["required"]]
    return out


def replace_property(tools: ToolSet, tool: Tool, field: str, prop: JSON) -> ToolSet:
    """``tools`` with ``tool``'s input property ``field`` replaced by ``prop``."""
    return tools.replace(
        with_input_schema(tool, rename_property(tool.input_schema, field, field, prop))
    )


def rename_arg(call: ToolCall, old: str, new: str) -> ToolCall:
    """A copy of ``call`` with argument ``old`` renamed to ``new`` (if present)."""
    if old not in call.arguments:
        return call
    args = {(new if k == old else k): v for k, v in call.arguments.items()}
    return call.model_copy(update={"arguments": args})


def with_args(call: ToolCall, **changes: Any) -> ToolCall:
    """A copy of ``call`` with arguments set (a value of ``...`` removes the argument)."""
    args = dict(call.arguments)
    for key, value in changes.items():
        if value is ...:
            args.pop(key, None)
        else:
            args[key] = value
    return call.model_copy(update={"arguments": args})


def map_arg(call: ToolCall, tool: str, field: str, fn: Callable[[Any], Any]) -> ToolCall:
    """``call`` with ``fn`` applied to argument ``field`` when it is a call of ``tool``."""
    if call.name != tool or field not in call.arguments:
        return call
    return with_args(call, **{field: fn(call.arguments[field])})


def map_key(data: Any, key: str, fn: Callable[[Any], Any]) -> Any:
    """A copy of JSON ``data`` with ``fn`` applied to every value stored under ``key``."""
    if isinstance(data, dict):
        return {k: fn(v) if k == key else map_key(v, key, fn) for k, v in data.items()}
    if isinstance(data, list):
        return [map_key(v, key, fn) for v in data]
    return data


def is_number(value: Any) -> bool:
    """Whether ``value`` is a JSON number (bools excluded)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def append_sentence(text: str | None, sentence: str) -> str:
    """``text`` with one more sentence."""
    base = (text or "").strip()
    if base and not base.endswith((".", "!", "?")):
        base += "."
    return f"{base} {sentence}".strip()


def pick_target(
    tools: ToolSet, rng: np.random.Generator, given: dict[str, Any], fits: FieldTest, what: str
) -> tuple[Tool, str]:
    """A (tool, field) drawn from those passing ``fits``, honouring ``given`` tool/field."""
    found = [
        (tool, name)
        for tool in tools.tools
        if given.get("tool", tool.name) == tool.name
        for name, prop in tool.properties().items()
        if given.get("field", name) == name and isinstance(prop, dict) and fits(tool, name, prop)
    ]
    if not found:
        where = f" in tool {given['tool']!r}" if "tool" in given else ""
        raise DriftError(f"no {what}{where} to apply this operator to", "pick another operator")
    return found[int(rng.integers(len(found)))]


def pick_tool(tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Tool:
    """A tool drawn from ``tools`` (or the one named in ``given``)."""
    if "tool" in given:
        return require_tool(tools, str(given["tool"]))
    return tools.tools[int(rng.integers(len(tools.tools)))]
