"""Core drift operators: field rename (preserving) and unit change (changing)."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field

from drift._names import new_name, tokens
from drift._operator import DriftClass, Operator
from drift._schema import (
    JSON,
    is_number,
    map_key,
    pick_target,
    rename_arg,
    rename_property,
    require_field,
    require_free,
    require_tool,
    with_args,
    with_input_schema,
)
from drift._tools import Tool, ToolCall, ToolSet

UNIT_PAIRS: tuple[tuple[str, str, float], ...] = (
    ("cents", "dollars", 100.0),
    ("dollars", "cents", 0.01),
    ("seconds", "milliseconds", 0.001),
    ("milliseconds", "seconds", 1000.0),
    ("minutes", "seconds", 1 / 60),
)
"""(old unit, new unit, old units per new unit) that ``UnitChange.draw`` chooses from."""

UNIT_WORDS: dict[str, tuple[str, ...]] = {
    "cents": ("cents", "cent"),
    "dollars": ("dollars", "dollar", "usd"),
    "seconds": ("seconds", "second", "secs", "sec"),
    "milliseconds": ("milliseconds", "millisecond", "ms", "millis"),
    "minutes": ("minutes", "minute", "mins"),
}
"""Spellings of each unit in field names and descriptions."""


class RenameField(Operator):
    """Rename one input field of one tool; values keep their meaning."""

    op: Literal["rename_field"] = "rename_field"
    drift_class: ClassVar[DriftClass] = "preserving"
    tool: str = Field(description="Tool whose input field is renamed.")
    field: str = Field(description="Field name in the previous interface.")
    new_name: str = Field(description="Field name in the new interface.")

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        require_field(tool, self.field)
        require_free(tool, self.new_name)
        schema = rename_property(tool.input_schema, self.field, self.new_name)
        return tools.replace(with_input_schema(tool, schema))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        if call.name != self.tool:
            return call
        return rename_arg(call, self.new_name, self.field)

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        if prev_call.name != self.tool:
            return prev_call
        return rename_arg(prev_call, self.field, self.new_name)

    def describe(self) -> str:
        return f"{self.tool}: field '{self.field}' renamed to '{self.new_name}'"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        tool, field = pick_target(tools, rng, given, lambda *_: True, "input field")
        noun = tokens(tool.name)[-1]
        name = given.get("new_name") or new_name(field, set(tool.properties()), rng, noun)
        return cls(tool=tool.name, field=field, new_name=name)


def scale_value(value: Any, factor: float, integer: bool) -> Any:
    """``value`` × ``factor``, rounded to 9 places and to an int when ``integer`` and whole."""
    if not is_number(value):
        return value
    out = round(value * factor, 9)
    return round(out) if integer and float(out).is_integer() else out


def unit_of(field: str, prop: JSON) -> str | None:
    """The unit (a key of ``UNIT_WORDS``) a field's name or description states, if any."""
    words = set(tokens(field)) | set(tokens(str(prop.get("description", ""))))
    return next((u for u, spell in UNIT_WORDS.items() if words & set(spell)), None)


class UnitChange(Operator):
    """A numeric input field changes unit (e.g. cents → dollars), optionally with a new name.

    ``scale`` is how many old units one new unit holds (cents → dollars: 100).
    """

    op: Literal["unit_change"] = "unit_change"
    drift_class: ClassVar[DriftClass] = "changing"
    tool: str = Field(description="Tool whose input field changes unit.")
    field: str = Field(description="Field name in the previous interface.")
    new_name: str | None = Field(default=None, description="New field name, if renamed too.")
    old_unit: str = Field(description="Unit word in the previous interface, e.g. 'cents'.")
    new_unit: str = Field(description="Unit word in the new interface, e.g. 'dollars'.")
    scale: float = Field(gt=0, description="Old units per new unit (cents → dollars: 100).")
    integer_in_prev: bool = Field(
        default=True, description="Whether the previous field held whole numbers."
    )
    result_key: str | None = Field(
        default=None, description="Key in results whose values change unit too, if any."
    )

    @property
    def _new(self) -> str:
        return self.new_name or self.field

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = dict(require_field(tool, self.field))
        if self.new_name:
            require_free(tool, self.new_name)
        desc = str(prop.get("description", ""))
        spellings = UNIT_WORDS.get(self.old_unit, (self.old_unit,))
        pattern = re.compile(rf"\b({'|'.join(map(re.escape, spellings))})\b", re.IGNORECASE)
        new_desc = pattern.sub(self.new_unit, desc) if pattern.search(desc) else ""
        prop["description"] = new_desc or f"{desc} (in {self.new_unit})".strip()
        prop["type"] = "number"
        for bound in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if is_number(prop.get(bound)):
                prop[bound] = scale_value(prop[bound], 1 / self.scale, False)
        schema = rename_property(tool.input_schema, self.field, self._new, prop)
        return tools.replace(with_input_schema(tool, schema))

    def _convert(
        self, call: ToolCall, src: str, dst: str, factor: float, integer: bool
    ) -> ToolCall:
        if call.name != self.tool or src not in call.arguments:
            return call
        renamed = rename_arg(call, src, dst)
        return with_args(renamed, **{dst: scale_value(renamed.arguments[dst], factor, integer)})

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return self._convert(call, self._new, self.field, self.scale, self.integer_in_prev)

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        return self._convert(prev_call, self.field, self._new, 1 / self.scale, False)

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        if prev_call.name != self.tool or self.field not in prev_call.arguments:
            return None
        return rename_arg(prev_call, self.field, self._new)

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        if call.name != self.tool or self._new not in call.arguments:
            return None
        return self._convert(call, self._new, self.field, 1.0, self.integer_in_prev)

    def result_to_new(self, prev_call: ToolCall, result: Any) -> Any:
        if self.result_key is None or prev_call.name != self.tool:
            return result
        return map_key(result, self.result_key, lambda v: scale_value(v, 1 / self.scale, False))

    def result_to_prev(self, prev_call: ToolCall, result: Any) -> Any:
        if self.result_key is None or prev_call.name != self.tool:
            return result
        integer = self.integer_in_prev
        return map_key(result, self.result_key, lambda v: scale_value(v, self.scale, integer))

    def describe(self) -> str:
        rename = f" (renamed '{self._new}')" if self.new_name else ""
        return (
            f"{self.tool}: field '{self.field}'{rename} now in {self.new_unit}, "
            f"was {self.old_unit} (1 {self.new_unit} = {self.scale:g} {self.old_unit})"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        def fits(tool: Tool, field: str, prop: JSON) -> bool:
            return prop.get("type") in ("integer", "number") and unit_of(field, prop) in {
                p[0] for p in UNIT_PAIRS
            }

        tool, field = pick_target(tools, rng, given, fits, "numeric field with a stated unit")
        prop = tool.properties()[field]
        old = unit_of(field, prop)
        pairs = [p for p in UNIT_PAIRS if p[0] == old]
        _, new, scale = pairs[int(rng.integers(len(pairs)))]
        words = [w for w in tokens(field) if w not in UNIT_WORDS[str(old)]]
        renamed = "_".join(words) if words and words != tokens(field) else None
        if renamed in tool.properties():
            renamed = None
        params = {
            "tool": tool.name,
            "field": field,
            "new_name": renamed,
            "old_unit": old,
            "new_unit": new,
            "scale": scale,
            "integer_in_prev": prop.get("type") == "integer",
        }
        return cls.model_validate({**params, **given})
