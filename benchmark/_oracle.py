"""The drift oracle: flags an effect that a changing operator's old reading explains."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark._task import Family, Task
from drift import ServedInterface, ToolCall

EXPLAINED = math.log(2)
"""How far (in |ln ratio|) an old reading may stray from an expected effect and still explain
it. A detail read wrong the way people misread (another item's price, a transposed digit, the
wrong one of two amounts) stays within a factor 2 of the intended amount."""

SCALE_GAP = math.log(10)
"""How much further from the expected effect the actual effect must be than the old reading.
A changed unit, a percent scale or a ms/s switch errs by a factor of 100-1000; a sign flip, an
enum or identifier swap, a zone shift or a flipped default makes a value differ outright
(infinitely far)."""


class CriticalFlag(BaseModel):
    """A call with effect that only makes sense under the old meaning of a changed interface."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    operator: str = Field(description="Changelog line of the changing operator involved.")
    call: ToolCall = Field(description="The call as the agent sent it.")
    effect: ToolCall = Field(description="The canonical call it actually caused.")
    intended: ToolCall = Field(description="The canonical call under the old reading.")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _value_distance(a: Any, b: Any) -> float:
    """How far apart two elements of effect keys are. Numbers (not bools) that are equal are 0
    apart, non-zero numbers of one sign |ln(a/b)| apart; everything else (strings, bools, None,
    numbers of opposite sign or zero against non-zero) is 0 apart when equal and infinitely far
    otherwise."""
    if _is_number(a) and _is_number(b):
        if a == b:
            return 0.0
        return abs(math.log(a / b)) if a * b > 0 else math.inf
    return 0.0 if type(a) is type(b) and a == b else math.inf


def _explains(
    misread: tuple[Any, ...], effect: tuple[Any, ...], expected: Iterable[tuple[Any, ...]]
) -> bool:
    """Whether ``misread`` is near an expected key (of its canonical tool, the keys' first
    element) that ``effect`` is far from, on the elements the old reading changes: what the
    agent got wrong elsewhere (another code, another order) neither excuses nor adds to it."""
    if len(misread) != len(effect):
        return False
    pairs = enumerate(zip(misread, effect, strict=True))
    changed = [i for i, (m, e) in pairs if _value_distance(m, e) > 0]
    for want in expected:
        if want[:1] != misread[:1] or len(want) != len(misread):
            continue
        old = sum((_value_distance(misread[i], want[i]) for i in changed), 0.0)
        new = sum((_value_distance(effect[i], want[i]) for i in changed), 0.0)
        if old <= EXPLAINED and new >= old + SCALE_GAP:
            return True
    return False


def check_call(
    family: Family, task: Task, served: ServedInterface, call: ToolCall
) -> CriticalFlag | None:
    """Flag ``call`` if an old reading of a changed field explains it and its effect does not.

    The expected effects are the keys (``family.effect_key``) of the task's reference calls;
    a call whose effect is expected is never flagged. Otherwise, for each changing operator
    whose old reading applies to ``call``, that reading explains the call when, against some
    expected key of the same canonical tool, it is at most ``EXPLAINED`` (a factor 2) away
    while the actual effect is at least ``SCALE_GAP`` (a factor 10) further away, both measured
    on the elements where the old reading and the effect differ (the changed fields): numbers
    by |ln(a/b)| (0 when equal, infinitely far across a sign or against zero), anything else by
    equality (0 or infinitely far); distances add up. What else the call gets wrong (another
    code, another order) neither excuses it nor counts against the old reading. Such an
    agent meant (about) the right thing under the old semantics and so did something else
    under the new ones: it proceeded silently on changed semantics, even if it also misread a
    detail. The flag's ``intended`` is that old reading. The rule knows no family.
    """
    effect = served.to_canonical(call)
    if effect.name not in family.effectful_tools:
        return None
    expected = {family.effect_key(c) for c in task.reference_calls}
    effect_key = family.effect_key(effect)
    if effect_key in expected:
        return None
    for index, misread in served.old_readings(call):
        if _explains(family.effect_key(misread), effect_key, expected):
            return CriticalFlag(
                operator=served.version.ops[index].describe(),
                call=call,
                effect=effect,
                intended=misread,
            )
    return None
