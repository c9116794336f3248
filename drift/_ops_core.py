"""Core drift operators: field rename (preserving) and unit change (changing)."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from pydantic import Field

from drift._operator import (
    DriftClass,
    Operator,
    rename_arg,
    rename_property,
    require_field,
    require_tool,
    with_input_schema,
)
from drift._tools import ToolCall, ToolSet
from drift.errors import DriftError


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
        if self.new_name in tool.properties():
            raise DriftError(f"tool {self.tool!r} already has a field {self.new_name!r}")
        schema = rename_property(tool.input_schema, self.field, self.new_name)
        return tools.replace(with_input_schema(tool, schema))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        if call.name != self.tool:
            return call
        return rename_arg(call, self.new_name, self.field)

    def describe(self) -> str:
        return f"{self.tool}: field '{self.field}' renamed to '{self.new_name}'"


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

    @property
    def _new(self) -> str:
        return self.new_name or self.field

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = dict(require_field(tool, self.field))
        desc = str(prop.get("description", ""))
        pattern = re.compile(re.escape(self.old_unit), re.IGNORECASE)
        new_desc = pattern.sub(self.new_unit, desc) if pattern.search(desc) else ""
        prop["description"] = new_desc or f"{desc} (in {self.new_unit})".strip()
        prop["type"] = "number"
        schema = rename_property(tool.input_schema, self.field, self._new, prop)
        return tools.replace(with_input_schema(tool, schema))

    def _to_prev(self, value: Any, factor: float) -> Any:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return value
        out = round(value * factor, 9)
        return round(out) if self.integer_in_prev and float(out).is_integer() else out

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        if call.name != self.tool or self._new not in call.arguments:
            return call
        renamed = rename_arg(call, self._new, self.field)
        args = dict(renamed.arguments)
        args[self.field] = self._to_prev(args[self.field], self.scale)
        return renamed.model_copy(update={"arguments": args})

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        if call.name != self.tool or self._new not in call.arguments:
            return None
        renamed = rename_arg(call, self._new, self.field)
        args = dict(renamed.arguments)
        args[self.field] = self._to_prev(args[self.field], 1.0)
        return renamed.model_copy(update={"arguments": args})

    def describe(self) -> str:
        rename = f" (renamed '{self._new}')" if self.new_name else ""
        return (
            f"{self.tool}: field '{self.field}'{rename} now in {self.new_unit}, "
            f"was {self.old_unit} (1 {self.new_unit} = {self.scale:g} {self.old_unit})"
        )
