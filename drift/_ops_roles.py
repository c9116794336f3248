"""A changing operator on which argument plays which part: two input fields trade roles."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field, model_validator

from drift._operator import DriftClass, Operator
from drift._schema import JSON, require_field, require_tool, with_input_schema
from drift._tools import Tool, ToolCall, ToolSet
from drift.errors import DriftError


def _swapped(call: ToolCall, a: str, b: str) -> ToolCall:
    """``call`` with the values of ``a`` and ``b`` exchanged (an absent one stays absent)."""
    args = {k: v for k, v in call.arguments.items() if k not in (a, b)}
    if a in call.arguments:
        args[b] = call.arguments[a]
    if b in call.arguments:
        args[a] = call.arguments[b]
    return call.model_copy(update={"arguments": args})


class RoleSwap(Operator):
    """Two input fields of one tool trade roles; their names stay.

    Field ``a`` now takes what ``b`` took and the other way round: each keeps its name and
    place, and takes the other's schema — description, constraints and whether it is required
    (a single time that was the ``start`` of a window becomes its ``end``; the record to keep of
    a merge becomes the one merged away). A call written for the previous interface now means
    the other assignment.
    """

    op: Literal["role_swap"] = "role_swap"
    drift_class: ClassVar[DriftClass] = "changing"
    drawn: ClassVar[bool] = False
    tool: str = Field(description="Tool whose two fields trade roles.")
    a: str = Field(description="One input field.")
    b: str = Field(description="The other input field.")

    @model_validator(mode="after")
    def _two(self) -> Self:
        if self.a == self.b:
            raise ValueError("a field cannot trade roles with itself")
        return self

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop_a, prop_b = require_field(tool, self.a), require_field(tool, self.b)
        if prop_a.get("type") != prop_b.get("type"):
            raise DriftError(
                f"'{self.a}' and '{self.b}' of {self.tool!r} differ in type: trading them is a "
                "rename any schema shows, not a change of roles",
                "pick two fields of one type",
            )
        props = {
            k: (prop_b if k == self.a else prop_a if k == self.b else v)
            for k, v in tool.properties().items()
        }
        schema: JSON = {**tool.input_schema, "properties": props}
        if "required" in schema:
            trade = {self.a: self.b, self.b: self.a}
            was = set(schema["required"])
            schema["required"] = [name for name in props if (trade.get(name, name) in was)]
        return tools.replace(with_input_schema(tool, schema))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return _swapped(call, self.a, self.b) if call.name == self.tool else call

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        return self.call_to_prev(prev_call)

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        return self.old_reading(prev_call)

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        if call.name != self.tool or not {self.a, self.b} & set(call.arguments):
            return None
        return call

    def describe(self) -> str:
        return f"{self.tool}: '{self.a}' and '{self.b}' trade roles"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        """Two fields of ``given['tool']`` of one type, neither an enum, both required: only
        then can a call meant for the old roles go through unnoticed."""
        if "tool" not in given:
            raise DriftError(
                "role_swap needs the tool whose fields trade roles",
                "name it: --op role_swap:tool=…",
            )
        tool: Tool = require_tool(tools, str(given["tool"]))
        required = set(tool.input_schema.get("required", []))
        pairs = [
            (a, b)
            for i, (a, pa) in enumerate(tool.properties().items())
            for b, pb in list(tool.properties().items())[i + 1 :]
            if a in required
            and b in required
            and pa.get("type") == pb.get("type")
            and "enum" not in pa
            and "enum" not in pb
            and given.get("a", a) == a
            and given.get("b", b) == b
        ]
        if not pairs:
            raise DriftError(
                f"tool {tool.name!r} has no two required fields of one type to swap",
                "name the fields: a=…,b=…",
            )
        a, b = pairs[int(rng.integers(len(pairs)))]
        return cls.model_validate({"tool": tool.name, "a": a, "b": b, **given})
