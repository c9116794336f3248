"""Changing operators on values: default flip, sign convention, fraction ↔ percent."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field

from drift._names import tokens
from drift._operator import DriftClass, Operator
from drift._ops_core import scale_value
from drift._schema import (
    JSON,
    append_sentence,
    is_number,
    map_arg,
    pick_target,
    replace_property,
    require_field,
    require_tool,
    with_args,
)
from drift._tools import Tool, ToolCall, ToolSet


class DefaultFlip(Operator):
    """A boolean input field's default flips; calls that omit it now do the opposite."""

    op: Literal["default_flip"] = "default_flip"
    drift_class: ClassVar[DriftClass] = "changing"
    tool: str = Field(description="Tool whose boolean field changes default.")
    field: str = Field(description="Boolean input field.")
    old_default: bool = Field(default=False, description="Default in the previous interface.")

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = dict(require_field(tool, self.field))
        new = not self.old_default
        prop["default"] = new
        desc = str(prop.get("description", ""))
        word = str(new).lower()
        stated = re.sub(
            r"(defaults? (?:is |to )?|default:? ?)(true|false)",
            lambda m: m.group(1) + word,
            desc,
            flags=re.IGNORECASE,
        )
        prop["description"] = (
            stated if stated != desc else append_sentence(desc, f"Defaults to {word}.")
        )
        return replace_property(tools, tool, self.field, prop)

    def _fill(self, call: ToolCall, value: bool) -> ToolCall:
        if call.name != self.tool or self.field in call.arguments:
            return call
        return with_args(call, **{self.field: value})

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return self._fill(call, not self.old_default)

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        return self._fill(prev_call, self.old_default)

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        if prev_call.name != self.tool:
            return None
        if prev_call.arguments.get(self.field, self.old_default) != self.old_default:
            return None
        return with_args(prev_call, **{self.field: ...})

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        if call.name != self.tool or self.field in call.arguments:
            return None
        return call

    def describe(self) -> str:
        return (
            f"{self.tool}: default of '{self.field}' flipped to {str(not self.old_default).lower()}"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        tool, field = pick_target(
            tools, rng, given, lambda _t, _f, p: p.get("type") == "boolean", "boolean field"
        )
        old = tool.properties()[field].get("default", False)
        return cls.model_validate({"tool": tool.name, "field": field, "old_default": old, **given})


def _same_case(model: str, word: str) -> str:
    return word.capitalize() if model[:1].isupper() else word


def _numeric(_tool: Tool, _field: str, prop: JSON) -> bool:
    return prop.get("type") in ("integer", "number")


class SignConvention(Operator):
    """A numeric input field's sign convention reverses: the same number means the opposite."""

    op: Literal["sign_flip"] = "sign_flip"
    drift_class: ClassVar[DriftClass] = "changing"
    tool: str = Field(description="Tool whose numeric field reverses sign.")
    field: str = Field(description="Numeric input field.")
    positive_now: str = Field(
        default="a decrease", description="What a positive value means in the new interface."
    )
    negative_now: str = Field(
        default="an increase", description="What a negative value means in the new interface."
    )

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = dict(require_field(tool, self.field))
        desc = str(prop.get("description", ""))
        swap = {"positive": "negative", "negative": "positive"}
        swapped = re.sub(
            r"\b(positive|negative)\b",
            lambda m: _same_case(m.group(1), swap[m.group(1).lower()]),
            desc,
            flags=re.IGNORECASE,
        )
        prop["description"] = (
            swapped
            if swapped != desc
            else append_sentence(
                desc,
                f"Positive values mean {self.positive_now}; negative values mean "
                f"{self.negative_now}.",
            )
        )
        lo, hi = prop.pop("minimum", None), prop.pop("maximum", None)
        if is_number(hi):
            prop["minimum"] = -hi
        if is_number(lo):
            prop["maximum"] = -lo
        return replace_property(tools, tool, self.field, prop)

    def _negate(self, call: ToolCall) -> ToolCall:
        return map_arg(call, self.tool, self.field, lambda v: -v if is_number(v) else v)

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return self._negate(call)

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        return self._negate(prev_call)

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        return self.old_reading(prev_call)

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        return call if call.name == self.tool and self.field in call.arguments else None

    def describe(self) -> str:
        return f"{self.tool}: sign convention of '{self.field}' reversed"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        def fits(tool: Tool, field: str, prop: JSON) -> bool:
            floor = prop.get("minimum")
            return _numeric(tool, field, prop) and (floor is None or floor < 0)

        tool, field = pick_target(tools, rng, given, fits, "numeric field that may be negative")
        return cls.model_validate({"tool": tool.name, "field": field, **given})


FRACTION_TEXT = re.compile(
    r"\b(?:fraction|ratio)\b|\b0(?:\.0)? ?(?:-|–|to) ?1(?:\.0)?\b|between 0 and 1\b", re.IGNORECASE
)
PERCENT_TEXT = re.compile(r"\bpercent(?:age)?\b|%|\b0 ?(?:-|–|to) ?100\b", re.IGNORECASE)


class FractionPercent(Operator):
    """A numeric input field switches between a fraction (0–1) and a percent (0–100)."""

    op: Literal["fraction_percent"] = "fraction_percent"
    drift_class: ClassVar[DriftClass] = "changing"
    tool: str = Field(description="Tool whose numeric field changes scale.")
    field: str = Field(description="Numeric input field.")
    to_percent: bool = Field(
        default=True, description="True: fraction → percent; False: percent → fraction."
    )

    @property
    def _factor(self) -> float:
        """New units per previous unit."""
        return 100.0 if self.to_percent else 0.01

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = dict(require_field(tool, self.field))
        old_text, new_word, span = (
            (FRACTION_TEXT, "percent", "0–100")
            if self.to_percent
            else (PERCENT_TEXT, "fraction", "0–1")
        )
        desc = str(prop.get("description", ""))
        restated = old_text.sub(lambda m: span if re.search(r"\d", m.group()) else new_word, desc)
        prop["description"] = (
            restated if restated != desc else append_sentence(desc, f"As a {new_word}, {span}.")
        )
        prop["type"] = "number"
        for bound in ("minimum", "maximum"):
            if is_number(prop.get(bound)):
                prop[bound] = scale_value(prop[bound], self._factor, False)
        return replace_property(tools, tool, self.field, prop)

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return map_arg(
            call, self.tool, self.field, lambda v: scale_value(v, 1 / self._factor, False)
        )

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        return map_arg(
            prev_call, self.tool, self.field, lambda v: scale_value(v, self._factor, False)
        )

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        return self.old_reading(prev_call)

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        return call if call.name == self.tool and self.field in call.arguments else None

    def describe(self) -> str:
        change = "fraction (0–1) → percent (0–100)" if self.to_percent else "percent → fraction"
        return f"{self.tool}: '{self.field}' changes scale, {change}"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        def fits(tool: Tool, field: str, prop: JSON) -> bool:
            text = f"{' '.join(tokens(field))} {prop.get('description', '')}"
            scaled = FRACTION_TEXT.search(text) or PERCENT_TEXT.search(text)
            return _numeric(tool, field, prop) and (bool(scaled) or prop.get("maximum") == 1)

        tool, field = pick_target(tools, rng, given, fits, "fraction or percent field")
        prop = tool.properties()[field]
        text = f"{' '.join(tokens(field))} {prop.get('description', '')}"
        to_percent = not PERCENT_TEXT.search(text)
        return cls.model_validate(
            {"tool": tool.name, "field": field, "to_percent": to_percent, **given}
        )
