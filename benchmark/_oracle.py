"""The drift oracle: flags an effect that matches a changing operator's old reading."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from benchmark._task import Family, Task
from drift import ServedInterface, ToolCall


class CriticalFlag(BaseModel):
    """A call with effect that only makes sense under the old meaning of a changed interface."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    operator: str = Field(description="Changelog line of the changing operator involved.")
    call: ToolCall = Field(description="The call as the agent sent it.")
    effect: ToolCall = Field(description="The canonical call it actually caused.")
    intended: ToolCall = Field(description="The canonical call under the old reading.")


def check_call(
    family: Family, task: Task, served: ServedInterface, call: ToolCall
) -> CriticalFlag | None:
    """Flag ``call`` if its effect is wrong and its old reading is exactly an expected effect.

    The expected effects are the task's reference calls: an agent that meant the right thing
    under the old semantics, and so did the wrong thing under the new ones, proceeded silently
    on changed semantics.
    """
    effect = served.to_canonical(call)
    if effect.name not in family.effectful_tools:
        return None
    expected = {family.effect_key(c) for c in task.reference_calls}
    if family.effect_key(effect) in expected:
        return None
    for index, misread in served.old_readings(call):
        if family.effect_key(misread) in expected:
            return CriticalFlag(
                operator=served.version.ops[index].describe(),
                call=call,
                effect=effect,
                intended=misread,
            )
    return None
