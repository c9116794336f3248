"""Preserving pagination operators: offset → cursor, and a new default page size."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field

from drift._names import tokens
from drift._operator import DriftClass, Operator
from drift._schema import (
    JSON,
    append_sentence,
    is_number,
    pick_target,
    rename_property,
    replace_property,
    require_field,
    require_free,
    require_tool,
    with_args,
    with_input_schema,
)
from drift._tools import Tool, ToolCall, ToolSet
from drift.errors import ToolCallError

OFFSET_WORDS = frozenset({"offset", "skip", "start", "page"})
"""Name tokens of offset or page-number fields."""


def encode_cursor(offset: int) -> str:
    """An opaque cursor for ``offset``."""
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode().rstrip("=")


def decode_cursor(cursor: Any) -> int:
    """The offset a cursor stands for, or ToolCallError for a cursor this server never gave."""
    try:
        text = base64.urlsafe_b64decode(str(cursor) + "=" * (-len(str(cursor)) % 4)).decode()
        kind, _, number = text.partition(":")
        if kind == "o" and number.isdigit():
            return int(number)
    except (ValueError, UnicodeDecodeError):
        pass
    raise ToolCallError(f"invalid cursor {cursor!r}: pass a cursor returned by the previous page")


def _decoded_or_same(value: Any) -> Any:
    """The offset of a cursor this server gave, else ``value`` unchanged."""
    try:
        return decode_cursor(value) if isinstance(value, str) else value
    except ToolCallError:
        return value


def _rekey(data: Any, old: str, new: str, fn: Callable[[Any], Any]) -> Any:
    """A copy of JSON ``data`` with key ``old`` renamed to ``new`` and its values mapped."""
    if isinstance(data, dict):
        return {
            (new if k == old else k): (fn(v) if k == old else _rekey(v, old, new, fn))
            for k, v in data.items()
        }
    if isinstance(data, list):
        return [_rekey(v, old, new, fn) for v in data]
    return data


class OffsetToCursor(Operator):
    """Offset (or page-number) pagination becomes opaque-cursor pagination."""

    op: Literal["offset_to_cursor"] = "offset_to_cursor"
    drift_class: ClassVar[DriftClass] = "preserving"
    tool: str = Field(description="Tool that paginates.")
    field: str = Field(description="Offset or page-number input field in the previous interface.")
    cursor_field: str = Field(default="cursor", description="Cursor input field in the new one.")
    result_offset_key: str = Field(
        default="next_offset", description="Result key holding the next offset (previous form)."
    )
    result_cursor_key: str = Field(
        default="next_cursor", description="Result key holding the next cursor (new form)."
    )

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        require_field(tool, self.field)
        require_free(tool, self.cursor_field)
        prop = {
            "type": "string",
            "description": f"Pagination cursor: pass the '{self.result_cursor_key}' value of the "
            "previous page; omit it for the first page.",
        }
        schema = rename_property(tool.input_schema, self.field, self.cursor_field, prop)
        return tools.replace(with_input_schema(tool, schema))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        if call.name != self.tool or self.cursor_field not in call.arguments:
            return call
        offset = decode_cursor(call.arguments[self.cursor_field])
        return with_args(call, **{self.cursor_field: ..., self.field: offset})

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        if prev_call.name != self.tool or self.field not in prev_call.arguments:
            return prev_call
        cursor = encode_cursor(int(prev_call.arguments[self.field]))
        return with_args(prev_call, **{self.field: ..., self.cursor_field: cursor})

    def result_to_new(self, prev_call: ToolCall, result: Any) -> Any:
        if prev_call.name != self.tool:
            return result
        encode = lambda v: encode_cursor(v) if isinstance(v, int) and v >= 0 else v  # noqa: E731
        return _rekey(result, self.result_offset_key, self.result_cursor_key, encode)

    def result_to_prev(self, prev_call: ToolCall, result: Any) -> Any:
        if prev_call.name != self.tool:
            return result
        return _rekey(result, self.result_cursor_key, self.result_offset_key, _decoded_or_same)

    def describe(self) -> str:
        return (
            f"{self.tool}: offset pagination ('{self.field}') replaced by cursor pagination "
            f"('{self.cursor_field}')"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        def fits(tool: Tool, field: str, prop: JSON) -> bool:
            words = set(tokens(field))
            return (
                prop.get("type") in ("integer", "number")
                and bool(words & OFFSET_WORDS)
                and not words & {"size", "per"}
                and "cursor" not in tool.properties()
            )

        tool, field = pick_target(tools, rng, given, fits, "offset or page field")
        return cls.model_validate({"tool": tool.name, "field": field, **given})


DEFAULT_TEXT = re.compile(r"(defaults? (?:is |to )?|default:? ?)(\d+)", re.IGNORECASE)
"""A default value stated in a description."""


class PageSizeChange(Operator):
    """The default page size changes; callers that page through results see the same items."""

    op: Literal["page_size"] = "page_size"
    drift_class: ClassVar[DriftClass] = "preserving"
    tool: str = Field(description="Tool that paginates.")
    field: str = Field(description="Page-size input field.")
    old_default: int = Field(gt=0, description="Default page size in the previous interface.")
    new_default: int = Field(gt=0, description="Default page size in the new interface.")

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        prop = dict(require_field(tool, self.field))
        prop["default"] = self.new_default
        if is_number(prop.get("maximum")) and prop["maximum"] < self.new_default:
            prop["maximum"] = self.new_default
        desc = str(prop.get("description", ""))
        stated = DEFAULT_TEXT.sub(lambda m: f"{m.group(1)}{self.new_default}", desc)
        prop["description"] = (
            stated if stated != desc else append_sentence(desc, f"Defaults to {self.new_default}.")
        )
        return replace_property(tools, tool, self.field, prop)

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        if call.name != self.tool or self.field in call.arguments:
            return call
        return with_args(call, **{self.field: self.new_default})

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        if prev_call.name != self.tool or self.field in prev_call.arguments:
            return prev_call
        return with_args(prev_call, **{self.field: self.old_default})

    def describe(self) -> str:
        return (
            f"{self.tool}: default page size ('{self.field}') now {self.new_default}, "
            f"was {self.old_default}"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        def fits(tool: Tool, field: str, prop: JSON) -> bool:
            words = set(tokens(field))
            sized = "limit" in words or bool(words & {"size", "per", "max"})
            return (
                prop.get("type") in ("integer", "number")
                and sized
                and is_number(prop.get("default"))
            )

        tool, field = pick_target(tools, rng, given, fits, "page-size field with a default")
        old = int(tool.properties()[field]["default"])
        choices = [n for n in (10, 20, 25, 50, 100) if n != old]
        params = {"tool": tool.name, "field": field, "old_default": old}
        params["new_default"] = choices[int(rng.integers(len(choices)))]
        return cls.model_validate({**params, **given})
