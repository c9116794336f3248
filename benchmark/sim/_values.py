"""Writing a typed value into a field, under the convention the model believes the field has.

One registry of units and conventions (``drift``'s) serves both the operators that change a
field and the models that read it.
"""

from __future__ import annotations

from typing import Any

from benchmark.sim._pack import KnowledgePack, Lexicon, Slot
from benchmark.sim._text import tokens
from drift import Convention, convert
from drift._ops_ids import shift_local

OMIT = object()
"""Returned for a flag whose wanted value is the field's believed default: leave it out."""


def meaning_of(value: str, convention: Convention) -> str:
    """The (old) value whose meaning ``value`` has under ``convention``."""
    return convention.meanings.get(value, value)


def pick_code(enum: list[str], lexicon: Lexicon, convention: Convention) -> str | None:
    """The enum value whose meaning best fits ``lexicon``."""
    best, best_score = None, 0
    for value in enum:
        s = sum(lexicon.get(t, 0) for t in tokens(meaning_of(value, convention)))
        if s > best_score:
            best, best_score = value, s
    return best


def _money(cents: float, convention: Convention) -> float | int:
    unit = convention.unit or "cents"
    if unit not in ("cents", "dollars"):
        return round(cents)
    value = convert(cents, "cents", unit)
    return round(value) if unit == "cents" else round(value, 2)


def _sign(direction: str, convention: Convention, pack: KnowledgePack) -> int:
    """+1 or -1: the sign that means ``direction`` under ``convention``."""
    words = set(pack.directions.get(direction, (direction,))) | {direction}
    for sign, said in ((1, convention.positive), (-1, convention.negative)):
        if said and words & set(tokens(said)):
            return sign
    natural = next(iter(pack.directions), direction)
    return 1 if direction == natural else -1


def encode(slot: Slot, value: Any, convention: Convention, pack: KnowledgePack) -> Any:
    """``value`` of ``slot`` as it must be written into a field with ``convention``."""
    if slot.type == "money":
        return _money(value, convention)
    if slot.type == "signed":
        return _sign(str(slot.direction), convention, pack) * _money(value, convention)
    if slot.type == "percent":
        return round(value * 100, 4) if convention.scale == "percent" else value
    if slot.type == "instant":
        return shift_local(value, "+00:00", convention.zone or "+00:00")
    if slot.type == "flag":
        return OMIT if value == bool(convention.default) else value
    if slot.type == "text" and convention.match == "glob" and not set("*?[") & set(str(value)):
        return f"**/*{value}*"  # a name to look for, where the field takes a glob pattern
    return value
