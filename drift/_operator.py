"""The drift-operator contract: a schema transform plus the adapters that undo it."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import BaseModel, ConfigDict

from drift._tools import ToolCall, ToolSet

DriftClass = Literal["preserving", "changing"]


class Operator(BaseModel):
    """One drift step from a previous interface to a new one.

    ``apply`` turns the previous tool set into the new one. ``call_to_prev`` maps a call made
    against the new interface onto the previous interface (so one canonical backend serves every
    version) and ``call_to_new`` is its inverse; ``result_to_new`` maps a previous-interface
    result into the new form and ``result_to_prev`` undoes it. Changing operators also give
    ``naive_call``, the new-interface call an agent sends when it keeps the old meaning, and
    ``old_reading``: the previous-interface call that such an agent intended when it sent
    ``call`` — the drift oracle flags effects that match it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    drift_class: ClassVar[DriftClass] = "preserving"
    drawn: ClassVar[bool] = True
    """Whether ``generate --random`` may draw this kind: False for operators that need what no
    schema shows (a backend parameter, which field counts positions), applied by name only."""

    def apply(self, tools: ToolSet) -> ToolSet:
        """The new tool set."""
        raise NotImplementedError

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        """Map a new-interface call onto the previous interface."""
        return call

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        """Map a previous-interface call onto the equivalent new-interface call."""
        return prev_call

    def result_to_new(self, prev_call: ToolCall, result: Any) -> Any:
        """Map the previous interface's result of ``prev_call`` into the new interface's form."""
        return result

    def result_to_prev(self, prev_call: ToolCall, result: Any) -> Any:
        """Undo :meth:`result_to_new`: a new-form result back in the previous form."""
        return result

    def naive_call(self, prev_call: ToolCall) -> ToolCall | None:
        """For changing operators: what an agent keeping the old meaning sends for ``prev_call``."""
        return None

    def old_reading(self, call: ToolCall) -> ToolCall | None:
        """For changing operators: the previous-interface call meant under the old semantics."""
        return None

    def describe(self) -> str:
        """One changelog line."""
        raise NotImplementedError

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        """An operator of this kind that applies to ``tools``; ``given`` fixes parameters.

        Raises DriftError when nothing in ``tools`` fits.
        """
        raise NotImplementedError
