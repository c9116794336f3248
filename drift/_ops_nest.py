"""Preserving operators that move fields into a nested object or out of one."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field

from drift._operator import DriftClass, Operator
from drift._schema import JSON, pick_target, require_field, require_free, require_tool, with_args
from drift._tools import Tool, ToolCall, ToolSet
from drift.errors import DriftError


def _schema(tool: Tool, props: dict[str, JSON], required: list[str]) -> Tool:
    schema = {**tool.input_schema, "properties": props}
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    return tool.model_copy(update={"input_schema": schema})


class Nest(Operator):
    """Move some top-level input fields of a tool into one new object field."""

    op: Literal["nest"] = "nest"
    drift_class: ClassVar[DriftClass] = "preserving"
    tool: str = Field(description="Tool whose fields are grouped.")
    fields: tuple[str, ...] = Field(min_length=1, description="Top-level fields to move.")
    into: str = Field(description="Name of the new object field holding them.")

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        for field in self.fields:
            require_field(tool, field)
        require_free(tool, self.into)
        required = list(tool.input_schema.get("required", []))
        inner_req = [f for f in self.fields if f in required]
        inner: JSON = {
            "type": "object",
            "description": f"Groups {', '.join(self.fields)}.",
            "properties": {f: tool.properties()[f] for f in self.fields},
        }
        if inner_req:
            inner["required"] = inner_req
        props: dict[str, JSON] = {}
        for name, prop in tool.properties().items():
            if name == self.fields[0]:
                props[self.into] = inner
            if name not in self.fields:
                props[name] = prop
        outer_req = [r for r in required if r not in self.fields]
        if inner_req:
            outer_req.append(self.into)
        return tools.replace(_schema(tool, props, outer_req))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        group = call.arguments.get(self.into)
        if call.name != self.tool or not isinstance(group, dict):
            return call
        return with_args(call, **{self.into: ...}, **group)

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        if prev_call.name != self.tool:
            return prev_call
        group = {f: prev_call.arguments[f] for f in self.fields if f in prev_call.arguments}
        if not group:
            return prev_call
        return with_args(prev_call, **dict.fromkeys(group, ...), **{self.into: group})

    def describe(self) -> str:
        return f"{self.tool}: fields {', '.join(self.fields)} moved into object '{self.into}'"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        eligible = [
            t
            for t in tools.tools
            if len(t.properties()) >= 2 and given.get("tool", t.name) == t.name
        ]
        if not eligible:
            raise DriftError("no tool with two or more fields to nest", "pick another operator")
        tool = eligible[int(rng.integers(len(eligible)))]
        names = list(tool.properties())
        count = min(len(names), 2)
        fields = [names[int(i)] for i in sorted(rng.choice(len(names), count, replace=False))]
        into = next(n for n in ("options", "params", "details", "group") if n not in names)
        return cls.model_validate({"tool": tool.name, "fields": fields, "into": into, **given})


class Flatten(Operator):
    """Lift the properties of one object input field to the top level as ``<field>_<name>``."""

    op: Literal["flatten"] = "flatten"
    drift_class: ClassVar[DriftClass] = "preserving"
    tool: str = Field(description="Tool whose object field is flattened.")
    field: str = Field(description="Object input field.")

    def _inner(self, tool: Tool) -> JSON:
        prop = require_field(tool, self.field)
        if prop.get("type") != "object" or not isinstance(prop.get("properties"), dict):
            raise DriftError(f"{self.tool}.{self.field} is not an object with properties")
        return prop

    def _flat(self, name: str) -> str:
        return f"{self.field}_{name}"

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        inner = self._inner(tool)
        clash = [n for n in tool.properties() if n.startswith(f"{self.field}_")]
        if clash:
            raise DriftError(f"{self.tool} already has fields named like '{self.field}_*': {clash}")
        required = list(tool.input_schema.get("required", []))
        props: dict[str, JSON] = {}
        for name, prop in tool.properties().items():
            if name != self.field:
                props[name] = prop
                continue
            for sub, sub_prop in inner["properties"].items():
                props[self._flat(sub)] = sub_prop
        outer_req = [r for r in required if r != self.field]
        if self.field in required:
            outer_req += [self._flat(r) for r in inner.get("required", [])]
        return tools.replace(_schema(tool, props, outer_req))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        if call.name != self.tool:
            return call
        prefix = f"{self.field}_"
        group = {k[len(prefix) :]: v for k, v in call.arguments.items() if k.startswith(prefix)}
        if not group:
            return call
        return with_args(call, **{f"{prefix}{k}": ... for k in group}, **{self.field: group})

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        group = prev_call.arguments.get(self.field)
        if prev_call.name != self.tool or not isinstance(group, dict):
            return prev_call
        flat = {self._flat(k): v for k, v in group.items()}
        return with_args(prev_call, **{self.field: ...}, **flat)

    def describe(self) -> str:
        return f"{self.tool}: object field '{self.field}' flattened into '{self.field}_*' fields"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        def fits(_tool: Tool, _field: str, prop: JSON) -> bool:
            return prop.get("type") == "object" and bool(prop.get("properties"))

        tool, field = pick_target(tools, rng, given, fits, "object field")
        return cls.model_validate({"tool": tool.name, "field": field, **given})
