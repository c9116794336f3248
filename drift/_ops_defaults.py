"""Changing operators that expose a behaviour the old handler fixed, with another default.

Both add an optional input field whose default is not what the tool used to do: a new option
(``new_default``: a refund now goes to store credit unless told otherwise) or a new output
format (``format_default``: amounts now come back in another form unless the old one is asked
for). The backend behind the previous interface must take the field as a parameter of its own,
with the old behaviour when it is absent — the knob the old interface never showed; that is why
neither operator can be drawn from a schema alone.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field, model_validator

from drift._operator import DriftClass, Operator
from drift._schema import JSON, is_number, require_free, require_tool, with_args, with_input_schema
from drift._tools import ToolCall, ToolSet
from drift.errors import DriftError


def _added(tools: ToolSet, tool_name: str, field: str, prop: JSON) -> ToolSet:
    """``tools`` with optional input ``field`` (schema ``prop``) added to ``tool_name``."""
    tool = require_tool(tools, tool_name)
    require_free(tool, field)
    schema = {**tool.input_schema, "properties": {**tool.properties(), field: dict(prop)}}
    return tools.replace(with_input_schema(tool, schema))


def _named_only(kind: str, needs: str) -> DriftError:
    return DriftError(
        f"{kind} cannot be drawn from a schema: it needs {needs}",
        f"name them: --op {kind}:tool=…,field=…",
    )


class NewDefaultParam(Operator):
    """A new optional input field whose default is not what the handler used to do.

    Calls that omit it — every call written for the previous interface — now get ``default``;
    before, the handler always did ``old_value`` (a refund always went back to the original
    payment method; now it becomes store credit unless ``store_credit`` is false). The schema
    shows a new field with a default, never what the tool did without it.
    """

    op: Literal["new_default"] = "new_default"
    drift_class: ClassVar[DriftClass] = "changing"
    drawn: ClassVar[bool] = False
    tool: str = Field(description="Tool that gains the field.")
    field: str = Field(description="The new optional input field (a parameter of the backend).")
    prop: JSON = Field(
        description="JSON Schema of the new field; its 'default' is the new behaviour."
    )
    old_value: Any = Field(description="What the handler always did: the field's old value.")

    @model_validator(mode="after")
    def _defaulted(self) -> Self:
        if "default" not in self.prop:
            raise ValueError("the new field's schema needs a 'default'")
        if self.prop["default"] == self.old_value:
            raise ValueError("a default equal to the old behaviour changes nothing")
        return self

    @property
    def default(self) -> Any:
        """The new field's default: what an omitted field means now."""
        return self.prop["default"]

    def apply(self, tools: ToolSet) -> ToolSet:
        return _added(tools, self.tool, self.field, self.prop)

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        if call.name != self.tool or self.field in call.arguments:
            return call
        return with_args(call, **{self.field: self.default})

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        if prev_call.name != self.tool or self.field in prev_call.arguments:
            return prev_call
        return with_args(prev_call, **{self.field: self.old_value})

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        if prev_call.name != self.tool:
            return None
        if prev_call.arguments.get(self.field, self.old_value) != self.old_value:
            return None
        return with_args(prev_call, **{self.field: ...})

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        if call.name != self.tool or self.field in call.arguments:
            return None
        return with_args(call, **{self.field: self.old_value})

    def describe(self) -> str:
        return (
            f"{self.tool}: new optional '{self.field}' defaults to {self.default!r}; "
            f"the handler always did {self.old_value!r}"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        raise _named_only("new_default", "the backend's parameter and what it always did")


class FormatDefault(Operator):
    """A new output-format option whose default is not the format the tool used to return.

    Calls that omit ``field`` now get results in ``default``; before, the tool always returned
    ``old_value``'s format (an order's amounts were whole cents; now decimal dollars unless
    ``amount_format`` asks for minor units). Where a number read from these results is copied
    into another tool's field (``feeds``, each 'tool.field'), an agent that reads the new
    format as the old one sends that number ``scale`` times too small: that is the old reading
    the oracle knows.
    """

    op: Literal["format_default"] = "format_default"
    drift_class: ClassVar[DriftClass] = "changing"
    drawn: ClassVar[bool] = False
    tool: str = Field(description="Tool whose results change format.")
    field: str = Field(description="The new format option (a parameter of the backend).")
    values: tuple[str, ...] = Field(min_length=2, description="The formats the option offers.")
    default: str = Field(description="The format an omitted option gives now.")
    old_value: str = Field(description="The format the tool always returned.")
    description: str = Field(description="Description of the option.")
    tool_description: str | None = Field(
        default=None, description="The tool's new description, stating the new format."
    )
    feeds: tuple[str, ...] = Field(
        default=(), description="'tool.field' inputs that numbers read from the results go into."
    )
    scale: float = Field(
        default=1.0,
        gt=0,
        description="Old-format units per new-format unit (cents → dollars: 100).",
    )

    @model_validator(mode="after")
    def _formats(self) -> Self:
        if self.default not in self.values or self.old_value not in self.values:
            raise ValueError("default and old_value must be among values")
        if self.default == self.old_value:
            raise ValueError("a default equal to the old format changes nothing")
        if any(f.count(".") != 1 for f in self.feeds):
            raise ValueError("each feed is 'tool.field'")
        return self

    def apply(self, tools: ToolSet) -> ToolSet:
        prop = {
            "type": "string",
            "enum": list(self.values),
            "default": self.default,
            "description": self.description,
        }
        out = _added(tools, self.tool, self.field, prop)
        if self.tool_description is None:
            return out
        tool = require_tool(out, self.tool)
        return out.replace(tool.model_copy(update={"description": self.tool_description}))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        if call.name != self.tool or self.field in call.arguments:
            return call
        return with_args(call, **{self.field: self.default})

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        if prev_call.name != self.tool or self.field in prev_call.arguments:
            return prev_call
        return with_args(prev_call, **{self.field: self.old_value})

    def _fed(self, call: ToolCall) -> str | None:
        """The field of ``call`` these results feed, if any (and it holds a number)."""
        for feed in self.feeds:
            tool, _, field = feed.partition(".")
            if call.name == tool and is_number(call.arguments.get(field)):
                return field
        return None

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        field = self._fed(prev_call)
        if field is None:
            return None
        return with_args(prev_call, **{field: round(prev_call.arguments[field] / self.scale, 2)})

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        field = self._fed(call)
        if field is None or self.scale == 1:
            return None
        sent = call.arguments[field]
        meant = sent * self.scale
        return with_args(call, **{field: round(meant) if isinstance(sent, int) else meant})

    def describe(self) -> str:
        return (
            f"{self.tool}: results now in {self.default!r} format unless '{self.field}' asks "
            f"for {self.old_value!r}, the format it always returned"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        raise _named_only("format_default", "the backend's format parameter and its formats")
