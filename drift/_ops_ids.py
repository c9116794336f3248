"""Changing operators on what a string means: time-zone change, identifier meaning swap."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field, field_validator

from drift._names import tokens
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

LOCAL_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
OFFSET = re.compile(r"[+-]\d{2}:\d{2}")
TIME_WORDS = frozenset({"at", "time", "timestamp", "datetime", "since", "until", "deadline", "due"})
ID_WORDS = frozenset({"id", "ref", "number", "key", "code"})


def _zone(offset: str) -> timezone:
    sign = -1 if offset[0] == "-" else 1
    hours, minutes = int(offset[1:3]), int(offset[4:6])
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def zone_label(offset: str) -> str:
    """How a description names the zone of ``offset``: 'UTC' or e.g. 'UTC-05:00'."""
    return "UTC" if offset in ("+00:00", "-00:00") else f"UTC{offset}"


def shift_local(value: Any, src: str, dst: str) -> Any:
    """A local timestamp read in zone ``src``, rewritten as the same instant in zone ``dst``.

    Values with their own offset, and values that are not local timestamps, are unchanged.
    """
    if not isinstance(value, str) or not LOCAL_TIME.fullmatch(value):
        return value
    moment = datetime.fromisoformat(value).replace(tzinfo=_zone(src))
    return moment.astimezone(_zone(dst)).replace(tzinfo=None).isoformat(timespec="seconds")


class TimezoneChange(Operator):
    """Local timestamps (no offset) in one input field are read in a new time zone."""

    op: Literal["timezone"] = "timezone"
    drift_class: ClassVar[DriftClass] = "changing"
    tool: str = Field(description="Tool whose timestamp field changes zone.")
    field: str = Field(description="Timestamp input field (ISO 8601, 'YYYY-MM-DDTHH:MM:SS').")
    old_offset: str = Field(default="+00:00", description="UTC offset the field was read in.")
    new_offset: str = Field(description="UTC offset the field is read in now, e.g. '-05:00'.")

    @field_validator("old_offset", "new_offset")
    @classmethod
    def _offset(cls, value: str) -> str:
        if not OFFSET.fullmatch(value):
            raise ValueError("an offset looks like '+00:00' or '-05:00'")
        return value

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = dict(require_field(tool, self.field))
        desc = str(prop.get("description", ""))
        label = zone_label(self.new_offset)
        named = re.sub(r"\b(UTC(?:[+-]\d{2}:\d{2})?|GMT)\b", label, desc)
        prop["description"] = (
            named
            if named != desc
            else append_sentence(desc, f"Times without an offset are in {label}.")
        )
        return replace_property(tools, tool, self.field, prop)

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        shift = lambda v: shift_local(v, self.new_offset, self.old_offset)  # noqa: E731
        return map_arg(call, self.tool, self.field, shift)

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        shift = lambda v: shift_local(v, self.old_offset, self.new_offset)  # noqa: E731
        return map_arg(prev_call, self.tool, self.field, shift)

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        return self.old_reading(prev_call)

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        if call.name != self.tool or not LOCAL_TIME.fullmatch(str(call.arguments.get(self.field))):
            return None
        return call

    def describe(self) -> str:
        return (
            f"{self.tool}: '{self.field}' now read in {zone_label(self.new_offset)}, "
            f"was {zone_label(self.old_offset)}"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        def fits(_tool: Tool, field: str, prop: JSON) -> bool:
            timed = bool(set(tokens(field)) & TIME_WORDS) or prop.get("format") == "date-time"
            return prop.get("type") == "string" and timed

        tool, field = pick_target(tools, rng, given, fits, "timestamp field")
        offsets = ["-05:00", "+01:00", "+09:00", "-08:00"]
        new = offsets[int(rng.integers(len(offsets)))]
        return cls.model_validate({"tool": tool.name, "field": field, "new_offset": new, **given})


def swap_digits(value: Any, pivot: int) -> Any:
    """``value`` with its trailing digit run n replaced by (pivot − n) mod 10^width.

    An involution; with an odd pivot no identifier maps to itself. Lists map element-wise.
    """
    if isinstance(value, list):
        return [swap_digits(v, pivot) for v in value]
    if not isinstance(value, str):
        return value
    match = re.search(r"(\d+)$", value)
    if match is None:
        return value
    width = len(match.group(1))
    swapped = (pivot - int(match.group(1))) % 10**width
    return f"{value[: match.start()]}{swapped:0{width}d}"


class IdentifierSwap(Operator):
    """An identifier field now takes a different kind of identifier for the same records.

    The two kinds are related by a seeded involution on the identifier's digits, so an agent
    that still passes the old kind of identifier reaches a different record.
    """

    op: Literal["id_swap"] = "id_swap"
    drift_class: ClassVar[DriftClass] = "changing"
    tool: str = Field(description="Tool whose identifier field changes meaning.")
    field: str = Field(description="Identifier input field.")
    pivot: int = Field(ge=1, description="Odd constant of the digit involution.")
    old_meaning: str = Field(default="display number", description="Identifier kind before.")
    new_meaning: str = Field(default="internal key", description="Identifier kind now.")
    result_key: str | None = Field(
        default=None,
        description="Key in every tool's results whose identifiers are shown re-keyed.",
    )

    @field_validator("pivot")
    @classmethod
    def _odd(cls, value: int) -> int:
        if value % 2 == 0:
            raise ValueError("pivot must be odd, so that no identifier maps to itself")
        return value

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = dict(require_field(tool, self.field))
        prop["description"] = append_sentence(
            prop.get("description"), f"Takes the {self.new_meaning}, not the {self.old_meaning}."
        )
        return replace_property(tools, tool, self.field, prop)

    def _swap(self, call: ToolCall) -> ToolCall:
        return map_arg(call, self.tool, self.field, lambda v: swap_digits(v, self.pivot))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return self._swap(call)

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        return self._swap(prev_call)

    def result_to_new(self, prev_call: ToolCall, result: Any) -> Any:
        if self.result_key is None:
            return result
        return map_key(result, self.result_key, lambda v: swap_digits(v, self.pivot))

    def result_to_prev(self, prev_call: ToolCall, result: Any) -> Any:
        return self.result_to_new(prev_call, result)

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        return self.old_reading(prev_call)

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        value = call.arguments.get(self.field)
        if call.name != self.tool or swap_digits(value, self.pivot) == value:
            return None
        return call

    def describe(self) -> str:
        return (
            f"{self.tool}: '{self.field}' now takes the {self.new_meaning}, "
            f"not the {self.old_meaning}"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        def fits(_tool: Tool, field: str, prop: JSON) -> bool:
            return prop.get("type") == "string" and bool(set(tokens(field)) & ID_WORDS)

        tool, field = pick_target(tools, rng, given, fits, "identifier field")
        pivot = 2 * int(rng.integers(1, 5000)) + 1
        params = {"tool": tool.name, "field": field, "pivot": pivot, "result_key": field}
        return cls.model_validate({**params, **given})
