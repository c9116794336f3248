"""The drift-operator contract: a schema transform plus the adapters that undo it."""

from __future__ import annotations

import copy
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict

from drift._tools import JSON, Tool, ToolCall, ToolSet
from drift.errors import DriftError

DriftClass = Literal["preserving", "changing"]


class Operator(BaseModel):
    """One drift step from a previous interface to a new one.

    ``apply`` turns the previous tool set into the new one. ``call_to_prev`` maps a call made
    against the new interface onto the previous interface (so one canonical backend serves every
    version), and ``result_to_new`` maps a previous-interface result into the new form. Changing
    operators also give ``old_reading``: the previous-interface call that an agent still using
    the old meaning intended when it sent ``call`` — the drift oracle flags effects that match it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    drift_class: ClassVar[DriftClass] = "preserving"

    def apply(self, tools: ToolSet) -> ToolSet:
        """The new tool set."""
        raise NotImplementedError

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        """Map a new-interface call onto the previous interface."""
        return call

    def result_to_new(self, prev_call: ToolCall, result: Any) -> Any:
        """Map the previous interface's result of ``prev_call`` into the new interface's form."""
        return result

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        """For changing operators: the previous-interface call meant under the old semantics."""
        return None

    def describe(self) -> str:
        """One changelog line."""
        raise NotImplementedError


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


def rename_arg(call: ToolCall, old: str, new: str) -> ToolCall:
    """A copy of ``call`` with argument ``old`` renamed to ``new`` (if present)."""
    if old not in call.arguments:
        return call
    args = {(new if k == old else k): v for k, v in call.arguments.items()}
    return call.model_copy(update={"arguments": args})
