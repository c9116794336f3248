"""Preserving operators that change names, order, wording and optional extras."""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal, Self

import numpy as np
from pydantic import Field

from drift._names import new_name
from drift._operator import DriftClass, Operator
from drift._schema import (
    pick_target,
    pick_tool,
    replace_property,
    require_field,
    require_free,
    require_tool,
    with_args,
    with_input_schema,
)
from drift._tools import ToolCall, ToolSet
from drift.errors import DriftError


class RenameTool(Operator):
    """Rename one tool; its arguments and results keep their meaning."""

    op: Literal["rename_tool"] = "rename_tool"
    drift_class: ClassVar[DriftClass] = "preserving"
    tool: str = Field(description="Tool name in the previous interface.")
    new_name: str = Field(description="Tool name in the new interface.")

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        if tools.get(self.new_name) is not None:
            raise DriftError(f"a tool named {self.new_name!r} already exists", "pick another name")
        renamed = tool.model_copy(update={"name": self.new_name})
        return ToolSet(tools=tuple(renamed if t.name == self.tool else t for t in tools.tools))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return call.model_copy(update={"name": self.tool}) if call.name == self.new_name else call

    def call_to_new(self, prev_call: ToolCall) -> ToolCall:
        if prev_call.name != self.tool:
            return prev_call
        return prev_call.model_copy(update={"name": self.new_name})

    def describe(self) -> str:
        return f"tool '{self.tool}' renamed to '{self.new_name}'"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        tool = pick_tool(tools, rng, given)
        name = given.get("new_name") or new_name(tool.name, set(tools.names()), rng)
        return cls(tool=tool.name, new_name=name)


def _permuted(items: list[Any], rng: np.random.Generator) -> list[Any]:
    """A seeded permutation of ``items`` that differs from their order whenever it can."""
    order = [int(i) for i in rng.permutation(len(items))]
    if len(items) > 1 and order == sorted(order):
        order = order[1:] + order[:1]
    return [items[i] for i in order]


class Reorder(Operator):
    """Serve the tools, and each tool's input properties, in a seeded new order."""

    op: Literal["reorder"] = "reorder"
    drift_class: ClassVar[DriftClass] = "preserving"
    seed: int = Field(description="Seed of the permutations.")
    tools: bool = Field(default=True, description="Whether the tool order changes.")
    properties: bool = Field(default=True, description="Whether property orders change.")

    def apply(self, tools: ToolSet) -> ToolSet:
        rng = np.random.default_rng(self.seed)
        out = list(tools.tools)
        if self.properties:
            out = [
                with_input_schema(
                    t,
                    {
                        **t.input_schema,
                        "properties": dict(_permuted(list(t.properties().items()), rng)),
                    },
                )
                if len(t.properties()) > 1
                else t
                for t in out
            ]
        return ToolSet(tools=tuple(_permuted(out, rng) if self.tools else out))

    def describe(self) -> str:
        what = " and ".join(
            w for w, on in (("tools", self.tools), ("properties", self.properties)) if on
        )
        return f"{what or 'nothing'} reordered (seed {self.seed})"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        return cls.model_validate({"seed": int(rng.integers(2**31)), **given})


class AddOptionalField(Operator):
    """Add an optional input field the backend ignores, so existing calls keep their effect."""

    op: Literal["add_field"] = "add_field"
    drift_class: ClassVar[DriftClass] = "preserving"
    tool: str = Field(description="Tool that gains the field.")
    field: str = Field(description="Name of the new optional field.")
    description: str = Field(
        default="Optional free-text tag stored with the request for auditing.",
        description="Description of the new field.",
    )

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        require_free(tool, self.field)
        prop = {"type": "string", "description": self.description}
        schema = {**tool.input_schema, "properties": {**tool.properties(), self.field: prop}}
        return tools.replace(with_input_schema(tool, schema))

    def call_to_prev(self, call: ToolCall) -> ToolCall:
        return with_args(call, **{self.field: ...}) if call.name == self.tool else call

    def describe(self) -> str:
        return f"{self.tool}: optional field '{self.field}' added"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        tool = pick_tool(tools, rng, given)
        names = [
            n
            for n in ("client_reference", "audit_note", "request_tag")
            if n not in tool.properties()
        ]
        if not names:
            raise DriftError(f"tool {tool.name!r} already has every optional extra field")
        return cls.model_validate(
            {"tool": tool.name, "field": names[int(rng.integers(len(names)))], **given}
        )


REWORDINGS: tuple[tuple[str, str], ...] = (
    (r"\bLook up\b", "Find"),
    (r"\bFetch\b", "Retrieve"),
    (r"\bGet\b", "Retrieve"),
    (r"\bReturns\b", "Gives back"),
    (r"\bidentifier\b", "ID"),
    (r"\bWhy\b", "The reason"),
    (r"\bHow\b", "The way"),
    (r"\bwith\b", "using"),
)
"""Meaning-keeping phrase substitutions a rewording draws from."""

FRAMES: tuple[str, ...] = ("{d}", "{d} Use it as needed.", "In short: {d}", "{d} See the fields.")
"""Sentence frames a rewording puts the text into."""


def reword(text: str, rng: np.random.Generator) -> str:
    """A seeded rewording of ``text`` that keeps every number, name and unit word."""
    out = text
    for pattern, repl in REWORDINGS:
        if rng.random() < 0.7:
            out = re.sub(pattern, repl, out)
    frames = list(FRAMES)
    frame = frames.pop(int(rng.integers(len(frames))))
    reworded = frame.format(d=out.strip())
    if reworded == text:
        reworded = frames[0].format(d=out.strip())
    return reworded


class RewordDescription(Operator):
    """Reword the description of a tool (``field`` unset) or of one of its input fields."""

    op: Literal["reword"] = "reword"
    drift_class: ClassVar[DriftClass] = "preserving"
    tool: str = Field(description="Tool whose description (or field description) is reworded.")
    field: str | None = Field(default=None, description="Input field, or None for the tool.")
    seed: int = Field(description="Seed of the rewording.")

    def apply(self, tools: ToolSet) -> ToolSet:
        tool = require_tool(tools, self.tool)
        rng = np.random.default_rng(self.seed)
        if self.field is None:
            return tools.replace(
                tool.model_copy(update={"description": reword(tool.description or "", rng)})
            )
        prop = dict(require_field(tool, self.field))
        prop["description"] = reword(str(prop.get("description", "")), rng)
        return replace_property(tools, tool, self.field, prop)

    def describe(self) -> str:
        where = f"field '{self.field}'" if self.field else "tool"
        return f"{self.tool}: {where} description reworded (seed {self.seed})"

    @classmethod
    def draw(cls, tools: ToolSet, rng: np.random.Generator, given: dict[str, Any]) -> Self:
        seed = int(rng.integers(2**31))
        if "field" not in given and rng.random() < 0.5:
            tool = pick_tool(tools, rng, given)
            return cls.model_validate({"tool": tool.name, "seed": seed, **given})
        tool, field = pick_target(
            tools, rng, given, lambda _t, _f, p: bool(p.get("description")), "described field"
        )
        return cls.model_validate({"tool": tool.name, "field": field, "seed": seed, **given})
