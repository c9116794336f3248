"""A changing operator on what a read returns: another order, stated only in prose, and a cut.

The list a tool returns is sorted another way and cut to its first ``limit`` entries, so the
*set* returned changes, not just its order. The only trace in the schema is the tool's
description saying so; no field changes.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field

from drift._operator import DriftClass, Operator
from drift._schema import require_tool
from drift._tools import ToolCall, ToolSet
from drift.errors import DriftError


def _natural(value: Any) -> tuple[Any, ...]:
    """A sort key that orders embedded numbers by value ('ORD-9' before 'ORD-10')."""
    parts = re.split(r"(\d+)", str(value))
    return tuple(int(p) if p.isdigit() else p for p in parts)


class OrderCut(Operator):
    """A list in one tool's results is returned in another order and cut to its first entries.

    ``rows`` is the result key of the list; entries are ordered by their ``by`` key (the
    entries themselves when unset), descending when ``descending``, and only the first
    ``limit`` are kept. The tool's description changes ``old_text`` into ``new_text`` — all
    the schema says. There is no call with effect to flag: a wrong entry read from the cut list
    reaches an effect only through what the agent does with it.
    """

    op: Literal["order_cut"] = "order_cut"
    drift_class: ClassVar[DriftClass] = "changing"
    drawn: ClassVar[bool] = False
    tool: str = Field(description="Tool whose results change order.")
    rows: str = Field(description="Result key of the list that is reordered and cut.")
    by: str | None = Field(default=None, description="Entry key to order by (None: the entry).")
    descending: bool = Field(default=True, description="Largest (latest) first.")
    limit: int = Field(ge=1, description="How many entries are kept.")
    old_text: str = Field(description="The words of the tool description that stated the order.")
    new_text: str = Field(description="The words that replace them.")

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        desc = tool.description or ""
        if self.old_text not in desc:
            raise DriftError(
                f"tool {self.tool!r}'s description does not say {self.old_text!r}",
                "pass old_text as the description states the order",
            )
        new = desc.replace(self.old_text, self.new_text, 1)
        return tools.replace(tool.model_copy(update={"description": new}))

    def _key(self, entry: Any) -> tuple[Any, ...]:
        value = entry.get(self.by) if self.by and isinstance(entry, dict) else entry
        return _natural(value)

    def result_to_new(self, prev_call: ToolCall, result: Any) -> Any:
        if prev_call.name != self.tool or not isinstance(result, dict):
            return result
        entries = result.get(self.rows)
        if not isinstance(entries, list):
            return result
        ordered = sorted(entries, key=self._key, reverse=self.descending)
        return {**result, self.rows: ordered[: self.limit]}

    def result_to_prev(self, prev_call: ToolCall, result: Any) -> Any:
        """The cut cannot be undone: the entries kept, in the order they came."""
        return result

    def describe(self) -> str:
        order = f"by {self.by}" if self.by else "by value"
        way = "descending" if self.descending else "ascending"
        return f"{self.tool}: '{self.rows}' now {order}, {way}, first {self.limit} only"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        raise DriftError(
            "order_cut cannot be drawn from a schema: which result list, and how its order is "
            "stated, the schema does not show",
            "name it: --op order_cut:tool=…,rows=…,limit=…,old_text=…,new_text=…",
        )
