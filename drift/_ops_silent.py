"""Schema-silent changing operators: the served tool list stays byte-identical.

Only what the server does with a value changes — where it starts counting (``index_base``),
whether a filter's terms must all match or any one (``filter_semantics``). No schema reader,
the drift classifier included, can see them; a run-time oracle and a careful agent can.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field, model_validator

from drift._operator import DriftClass, Operator
from drift._schema import is_number, map_arg, map_key, require_field, require_tool, with_args
from drift._tools import ToolCall, ToolSet
from drift.errors import DriftError

_TRAILING = re.compile(r"(\d+)$")


def position_of(value: Any) -> int | None:
    """The position a value states: an integer, or a positional identifier's trailing number."""
    if is_number(value) and int(value) == value:
        return int(value)
    match = _TRAILING.search(value) if isinstance(value, str) else None
    return int(match.group(1)) if match else None


def shift_position(value: Any, delta: int) -> Any:
    """A position moved by ``delta``: an integer, or the trailing number of a positional
    identifier ('ORD-10001-3' is a customer's third order). Lists map element-wise; anything
    else, and a position that would fall below 0, is unchanged."""
    if isinstance(value, list):
        return [shift_position(v, delta) for v in value]
    if is_number(value) and int(value) == value:
        return int(value) + delta if int(value) + delta >= 0 else value
    if not isinstance(value, str):
        return value
    match = _TRAILING.search(value)
    if match is None or int(match.group(1)) + delta < 0:
        return value
    return f"{value[: match.start()]}{int(match.group(1)) + delta}"


class IndexBase(Operator):
    """Positions in one input field are counted from another base (1-based → 0-based).

    The schema stays byte-identical: the same number now names the next item (page 1 is the
    second page; 'ORD-10001-3' is the customer's fourth order). With ``result_key``, results
    show positions under that key in the new base too, so values copied from results stay right
    and only positions taken from elsewhere (a request, a memory) go wrong.
    """

    op: Literal["index_base"] = "index_base"
    drift_class: ClassVar[DriftClass] = "changing"
    drawn: ClassVar[bool] = False
    tool: str = Field(description="Tool whose positional field changes base.")
    field: str = Field(description="Input field holding a position (or a positional id).")
    old_base: int = Field(default=1, ge=0, le=1, description="First position before.")
    new_base: int = Field(default=0, ge=0, le=1, description="First position now.")
    result_key: str | None = Field(
        default=None, description="Key in results whose positions are shown in the new base."
    )

    @model_validator(mode="after")
    def _differs(self) -> Self:
        if self.old_base == self.new_base:
            raise ValueError("old_base and new_base must differ")
        return self

    @property
    def _up(self) -> int:
        """What a new-base position adds to become the old-base position of the same item."""
        return self.old_base - self.new_base

    def apply(self, tools: ToolSet) -> ToolSet:
        require_field(require_tool(tools, self.tool), self.field)
        return tools

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return map_arg(call, self.tool, self.field, lambda v: shift_position(v, self._up))

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        return map_arg(prev_call, self.tool, self.field, lambda v: shift_position(v, -self._up))

    def result_to_new(self, prev_call: ToolCall, result: Any) -> Any:
        if self.result_key is None:
            return result
        return map_key(result, self.result_key, lambda v: shift_position(v, -self._up))

    def result_to_prev(self, prev_call: ToolCall, result: Any) -> Any:
        if self.result_key is None:
            return result
        return map_key(result, self.result_key, lambda v: shift_position(v, self._up))

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        return self.old_reading(prev_call)

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        """The call read in the old base — where its position is one the old base has."""
        where = position_of(call.arguments.get(self.field))
        if call.name != self.tool or where is None or where < self.old_base:
            return None
        return call

    def describe(self) -> str:
        return (
            f"{self.tool}: positions in '{self.field}' now counted from {self.new_base}, "
            f"were from {self.old_base} (schema unchanged)"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        raise DriftError(
            "index_base cannot be drawn from a schema: which field counts positions, and from "
            "where, no schema says",
            "name it: --op index_base:tool=…,field=…",
        )


class FilterSemantics(Operator):
    """A filter's terms are combined differently (all must match → any may match).

    The schema stays byte-identical; the server's backend takes the combination as a parameter
    of its own (``knob``), absent meaning ``old``. The same filter now selects another set.
    """

    op: Literal["filter_semantics"] = "filter_semantics"
    drift_class: ClassVar[DriftClass] = "changing"
    drawn: ClassVar[bool] = False
    tool: str = Field(description="Tool whose filter changes semantics.")
    field: str = Field(description="The filter's input field (its terms).")
    knob: str = Field(default="match", description="The backend's combination parameter.")
    old: Literal["all", "any"] = Field(default="all", description="How terms combined before.")
    new: Literal["all", "any"] = Field(default="any", description="How terms combine now.")

    @model_validator(mode="after")
    def _differs(self) -> Self:
        if self.old == self.new:
            raise ValueError("old and new must differ")
        return self

    def apply(self, tools: ToolSet) -> ToolSet:
        require_field(require_tool(tools, self.tool), self.field)
        return tools

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        if call.name != self.tool or self.field not in call.arguments:
            return call
        return with_args(call, **{self.knob: self.new})

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        """The served call for ``prev_call``: the same terms (with one term, 'all' and 'any'
        select the same; with several, no served call asks for the old combination)."""
        return prev_call

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        """The call as the previous interface reads it: without the parameter, terms combine
        the old way."""
        if call.name != self.tool or self.field not in call.arguments:
            return None
        return call

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        return self.old_reading(prev_call)

    def describe(self) -> str:
        return (
            f"{self.tool}: terms of '{self.field}' now match if {self.new} match, "
            f"were if {self.old} did (schema unchanged)"
        )

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        raise DriftError(
            "filter_semantics cannot be drawn from a schema: the backend's combination "
            "parameter is not in it",
            "name it: --op filter_semantics:tool=…,field=…",
        )
