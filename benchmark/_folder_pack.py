"""A folder family's sim knowledge pack, written in YAML: the same structure as
``benchmark.sim.KnowledgePack`` (docs/sim.md), validated, then built into one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from benchmark.sim import (
    Action,
    FromResult,
    FromRow,
    Kind,
    KnowledgePack,
    LineTotal,
    Slot,
    Step,
)

Weights = dict[str, int]
_NAME = r"^[a-z][a-z0-9_]{0,39}$"


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _weights(words: Weights) -> Weights:
    for word, weight in words.items():
        if not re.match(r"^[a-z0-9_]{1,40}$", word) or not 1 <= weight <= 10:
            raise ValueError(f"{word!r}: {weight}: words are lower case, weights 1 to 10")
    return words


def _regex(pattern: str | None) -> str | None:
    if pattern is None:
        return None
    if len(pattern) > 500:
        raise ValueError("a pattern is at most 500 characters")
    try:
        re.compile(pattern)
    except re.error as e:
        raise ValueError(f"{pattern[:60]!r} is not a regular expression: {e}") from None
    return pattern


class PackResult(_Strict):
    """A value read from a lookup's latest result (``FromResult``)."""

    action: str = Field(description="The lookup action.")
    key: list[str] = Field(min_length=1, max_length=8, description="Words of the result's key.")
    pick: Literal["value", "last", "latest"] = Field(default="value", description="Which item.")


class PackLineTotal(_Strict):
    """Price × quantity of the order line a slot names (``LineTotal``)."""

    action: str = Field(description="The lookup action.")
    rows: str = Field(description="A word of the key of the list of lines.")
    match: str = Field(description="The slot naming the line.")
    price: str = Field(default="price", description="A word of the price key.")
    count: str = Field(default="quant", description="The start of the quantity key's word.")


class PackFromRow(_Strict):
    """A value from the first row of a result list that shows the stated values (``FromRow``).
    A plain-text result is a list of rows ``lines``, each row's text under ``text``."""

    action: str = Field(description="The lookup action.")
    rows: str = Field(description="A word of the key of the list (``lines`` for text).")
    match: list[str] = Field(min_length=1, max_length=8, description="Slots the row must show.")
    key: str = Field(description="A word of the key whose value is taken (``text`` for text).")
    pattern: str | None = Field(default=None, description="A regex cutting the value.")

    _pattern = field_validator("pattern")(_regex)


class PackDerive(_Strict):
    """How a slot is worked out from a result: one of the two."""

    line_total: PackLineTotal | None = Field(default=None, description="A line's total.")
    from_row: PackFromRow | None = Field(default=None, description="A row's value.")

    @model_validator(mode="after")
    def _one(self) -> Self:
        if (self.line_total is None) == (self.from_row is None):
            raise ValueError("give exactly one of line_total and from_row")
        return self


class PackSlot(_Strict):
    """A typed slot of a request and where its value comes from."""

    type: Literal["money", "signed", "percent", "instant", "code", "id", "email", "text", "flag"]
    stated: str | None = Field(default=None, description="Regex on the instruction.")
    results: list[PackResult] = Field(default_factory=list, max_length=8)
    keyed: PackResult | None = Field(default=None, description="The id as the system keys it.")
    derive: PackDerive | None = Field(default=None, description="Worked out from a result.")
    concept: str | None = Field(default=None, description="Code slots: the concept wanted.")
    fallback: str | None = Field(default=None, description="Code slots: an unsure model's.")
    value: Any = Field(default=None, description="A constant the request implies.")
    direction: str | None = Field(default=None, description="Signed slots: the direction.")

    _stated = field_validator("stated")(_regex)


class PackStep(_Strict):
    """An action with effect the request needs."""

    action: str = Field(description="The action.")
    args: dict[str, str] = Field(description="The action's input slot → the request's slot.")
    core: bool = Field(default=False, description="What the request is (always known).")
    each: str | None = Field(default=None, description="Once per row of this from_row slot.")


class PackKind(_Strict):
    """One kind of request."""

    name: str = Field(pattern=_NAME)
    cues: Weights = Field(max_length=64, description="Domain words → weight.")
    slots: dict[str, PackSlot] = Field(max_length=32)
    steps: list[PackStep] = Field(min_length=1, max_length=16)

    _cues = field_validator("cues")(_weights)

    @model_validator(mode="after")
    def _steps(self) -> Self:
        for i, step in enumerate(self.steps):
            for slot in [*step.args.values(), *([step.each] if step.each else [])]:
                if slot not in self.slots:
                    raise ValueError(f"steps.{i} names slot {slot!r}, which the kind lacks")
            if step.each is not None:
                derive = self.slots[step.each].derive
                if derive is None or derive.from_row is None:
                    raise ValueError(f"steps.{i}.each: slot {step.each!r} is not from_row")
        return self


class PackAction(_Strict):
    """An action the family's tools offer, and the words that find it and its fields."""

    words: Weights = Field(min_length=1, max_length=64)
    inputs: dict[str, Weights] = Field(default_factory=dict, max_length=32)

    _words = field_validator("words")(_weights)

    @field_validator("inputs")
    @classmethod
    def _inputs(cls, inputs: dict[str, Weights]) -> dict[str, Weights]:
        for words in inputs.values():
            _weights(words)
        return inputs


class PackFile(_Strict):
    """A sim knowledge pack file (YAML)."""

    v: Literal[1] = Field(description="Format version (1).")
    actions: dict[str, PackAction] = Field(min_length=1, max_length=64)
    kinds: list[PackKind] = Field(min_length=1, max_length=64)
    concepts: dict[str, Weights] = Field(default_factory=dict, max_length=64)
    directions: dict[str, list[str]] = Field(default_factory=dict, max_length=16)
    remembered: str | None = Field(
        default=None,
        description="The interface version whose tools models remember from training "
        "(default: the base).",
    )
    stated_ids: str = Field(default="display number", max_length=80)
    stated_base: int = Field(default=1, ge=0, le=1)

    @model_validator(mode="after")
    def _references(self) -> Self:
        for kind in self.kinds:
            for i, step in enumerate(kind.steps):
                action = self.actions.get(step.action)
                if action is None:
                    raise ValueError(f"kinds.{kind.name}.steps.{i}: no action {step.action!r}")
                for field in step.args:
                    if field not in action.inputs:
                        raise ValueError(
                            f"kinds.{kind.name}.steps.{i}.args: action {step.action!r} has no "
                            f"input {field!r}"
                        )
            for name, slot in kind.slots.items():
                used = [r.action for r in slot.results] + (
                    [slot.keyed.action] if slot.keyed else []
                )
                if slot.derive is not None:
                    rule = slot.derive.line_total or slot.derive.from_row
                    assert rule is not None
                    used.append(rule.action)
                missing = [a for a in used if a not in self.actions]
                if missing:
                    raise ValueError(f"kinds.{kind.name}.slots.{name}: no action {missing[0]!r}")
                if slot.type == "code" and slot.concept not in self.concepts:
                    raise ValueError(
                        f"kinds.{kind.name}.slots.{name}: code slots name a concept of 'concepts'"
                    )
        return self

    def build(
        self, family: str, remembered: Callable[[], dict[str, dict[str, Any]]]
    ) -> KnowledgePack:
        """The knowledge pack of ``family``; ``remembered`` gives the remembered tools."""
        return KnowledgePack(
            family=family,
            actions={
                name: Action(dict(a.words), {k: dict(v) for k, v in a.inputs.items()})
                for name, a in self.actions.items()
            },
            kinds=tuple(_kind(k) for k in self.kinds),
            concepts={k: dict(v) for k, v in self.concepts.items()},
            directions={k: tuple(v) for k, v in self.directions.items()},
            remembered=remembered,
            stated_ids=self.stated_ids,
            stated_base=self.stated_base,
        )


def _result(r: PackResult) -> FromResult:
    return FromResult(r.action, tuple(r.key), r.pick)


def _slot(s: PackSlot) -> Slot:
    derive: LineTotal | FromRow | None = None
    if s.derive is not None and s.derive.line_total is not None:
        t = s.derive.line_total
        derive = LineTotal(t.action, t.rows, t.match, t.price, t.count)
    elif s.derive is not None and s.derive.from_row is not None:
        r = s.derive.from_row
        derive = FromRow(r.action, r.rows, tuple(r.match), r.key, r.pattern)
    return Slot(
        type=s.type,
        stated=s.stated,
        results=tuple(_result(r) for r in s.results),
        keyed=_result(s.keyed) if s.keyed else None,
        derive=derive,
        concept=s.concept,
        fallback=s.fallback,
        value=s.value,
        direction=s.direction,
    )


def _kind(k: PackKind) -> Kind:
    return Kind(
        k.name,
        dict(k.cues),
        {name: _slot(s) for name, s in k.slots.items()},
        tuple(Step(s.action, dict(s.args), s.core, s.each) for s in k.steps),
    )
