"""Enum operators: renamed values (preserving) and values that swap meaning (changing)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field, model_validator

from drift._names import camel, tokens
from drift._operator import DriftClass, Operator
from drift._schema import (
    JSON,
    append_sentence,
    map_arg,
    map_key,
    pick_target,
    replace_property,
    require_field,
    require_tool,
)
from drift._tools import Tool, ToolCall, ToolSet
from drift.errors import DriftError

STYLES: dict[str, Callable[[str], str]] = {
    "upper": str.upper,
    "kebab": lambda v: "-".join(tokens(v)),
    "camel": lambda v: camel(tokens(v)) if tokens(v) else v,
}
"""Spelling styles a value rename draws from."""


def _is_enum(_tool: Tool, _field: str, prop: JSON) -> bool:
    values = prop.get("enum")
    return isinstance(values, list) and len(values) >= 2 and all(isinstance(v, str) for v in values)


def _relabel(prop: JSON, mapping: dict[str, str]) -> JSON:
    """``prop`` with enum values, default and quoted mentions relabelled by ``mapping``."""
    out = dict(prop)
    out["enum"] = [mapping.get(v, v) for v in prop["enum"]]
    if prop.get("default") in mapping:
        out["default"] = mapping[prop["default"]]
    desc = str(prop.get("description", ""))
    for old, new in mapping.items():
        desc = re.sub(rf"(['\"]){re.escape(old)}\1", rf"\g<1>{new}\g<1>", desc)
    if desc:
        out["description"] = desc
    return out


class RenameEnumValues(Operator):
    """Enum values of one input field are respelled; each value keeps its meaning."""

    op: Literal["rename_enum"] = "rename_enum"
    drift_class: ClassVar[DriftClass] = "preserving"
    tool: str = Field(description="Tool whose enum field changes.")
    field: str = Field(description="Enum input field.")
    mapping: dict[str, str] = Field(description="Previous value → new value.")
    result_key: str | None = Field(
        default=None, description="Key in results whose values are relabelled too, if any."
    )

    @model_validator(mode="after")
    def _one_to_one(self) -> Self:
        if len(set(self.mapping.values())) != len(self.mapping):
            raise ValueError("mapping must give every value a distinct new value")
        return self

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = require_field(tool, self.field)
        missing = set(self.mapping) - set(prop.get("enum") or [])
        if missing:
            raise DriftError(f"{self.tool}.{self.field} has no enum values {sorted(missing)}")
        return replace_property(tools, tool, self.field, _relabel(prop, self.mapping))

    def _back(self) -> dict[str, str]:
        return {v: k for k, v in self.mapping.items()}

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        back = self._back()
        return map_arg(call, self.tool, self.field, lambda v: back.get(v, v))

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        return map_arg(prev_call, self.tool, self.field, lambda v: self.mapping.get(v, v))

    def _results(self, call: ToolCall, result: Any, mapping: dict[str, str]) -> Any:
        if self.result_key is None or call.name != self.tool:
            return result
        return map_key(result, self.result_key, lambda v: mapping.get(v, v))

    def result_to_new(self, prev_call: ToolCall, result: Any) -> Any:
        return self._results(prev_call, result, self.mapping)

    def result_to_prev(self, prev_call: ToolCall, result: Any) -> Any:
        return self._results(prev_call, result, self._back())

    def describe(self) -> str:
        pairs = ", ".join(f"'{k}' → '{v}'" for k, v in self.mapping.items())
        return f"{self.tool}: values of '{self.field}' renamed ({pairs})"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        tool, field = pick_target(tools, rng, given, _is_enum, "string enum field")
        values = tool.properties()[field]["enum"]
        styles = list(STYLES.values())
        for i in rng.permutation(len(styles)):
            mapping = {v: styles[int(i)](v) for v in values}
            if len(set(mapping.values())) == len(values) and mapping != {v: v for v in values}:
                break
        else:
            mapping = {v: f"{v}_v2" for v in values}
        params = {"tool": tool.name, "field": field, "mapping": mapping, "result_key": field}
        return cls.model_validate({**params, **given})


class EnumMeaningChange(Operator):
    """Two enum values of one input field exchange meanings; their spelling stays."""

    op: Literal["enum_meaning"] = "enum_meaning"
    drift_class: ClassVar[DriftClass] = "changing"
    tool: str = Field(description="Tool whose enum field changes meaning.")
    field: str = Field(description="Enum input field.")
    a: str = Field(description="One value of the swapped pair.")
    b: str = Field(description="The other value of the swapped pair.")

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        if self.a == self.b:
            raise ValueError("a and b must be two different values")
        return self

    def _swap(self, value: Any) -> Any:
        return {self.a: self.b, self.b: self.a}.get(value, value)

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = dict(require_field(tool, self.field))
        if not {self.a, self.b} <= set(prop.get("enum") or []):
            raise DriftError(f"{self.tool}.{self.field} lacks enum value {self.a!r} or {self.b!r}")
        prop["description"] = append_sentence(
            prop.get("description"),
            f"'{self.a}' now means what '{self.b}' meant before, and '{self.b}' what "
            f"'{self.a}' meant.",
        )
        return replace_property(tools, tool, self.field, prop)

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return map_arg(call, self.tool, self.field, self._swap)

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        return map_arg(prev_call, self.tool, self.field, self._swap)

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        if prev_call.name != self.tool or prev_call.arguments.get(self.field) not in (
            self.a,
            self.b,
        ):
            return None
        return prev_call

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        if call.name != self.tool or call.arguments.get(self.field) not in (self.a, self.b):
            return None
        return call

    def describe(self) -> str:
        return f"{self.tool}: values '{self.a}' and '{self.b}' of '{self.field}' swap meanings"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        tool, field = pick_target(tools, rng, given, _is_enum, "string enum field")
        values = tool.properties()[field]["enum"]
        a, b = (values[int(i)] for i in rng.choice(len(values), size=2, replace=False))
        return cls.model_validate({"tool": tool.name, "field": field, "a": a, "b": b, **given})
