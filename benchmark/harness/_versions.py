"""Harness (agent runtime) versions: how context is assembled, skills and tools exposed, errors
retried.

harness-v1 puts artifacts in the system prompt; harness-v2 shows only an index there and loads
skills on demand; harness-v3 differs the way deployments do: it exposes only the tools relevant
to the task, puts artifacts in the user turn after the instruction, and retries less.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from benchmark.errors import BenchmarkError


class HarnessVersion(BaseModel):
    """One version of the agent runtime around the model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Harness version id.")
    max_turns: int = Field(description="Model calls per trial before the run is cut off.")
    skill_loading: Literal["context", "tool"] = Field(
        description="'context': typed skills and recipes are in the context (where "
        "artifacts_in says); 'tool': only an index is shown and the model must call load_skill."
    )
    model_retries: int = Field(description="Retries of a failed model call before 'invalid'.")
    tool_exposure: Literal["all", "relevant"] = Field(
        description="'all': every served tool; 'relevant': only the tools whose name and "
        "description best match the instruction, plus any tool an artifact names."
    )
    artifacts_in: Literal["system", "user"] = Field(
        description="Where artifacts sit: in the system prompt, or in the user turn after the "
        "instruction."
    )
    preamble: str = Field(description="System prompt text before any artifacts.")


_PREAMBLE = (
    "You are a customer-support operations agent. Resolve the ticket using the tools. "
    "Tool calls with effect cannot be undone. When you are done, reply with a short summary. "
    "If a tool's description contradicts your playbook or skill, do not guess: stop and reply "
    "'INTERFACE CHANGE: <what differs>'."
)

HARNESSES: dict[str, HarnessVersion] = {
    h.id: h
    for h in (
        HarnessVersion(
            id="harness-v1",
            max_turns=12,
            skill_loading="context",
            model_retries=2,
            tool_exposure="all",
            artifacts_in="system",
            preamble=_PREAMBLE,
        ),
        HarnessVersion(
            id="harness-v2",
            max_turns=10,
            skill_loading="tool",
            model_retries=2,
            tool_exposure="all",
            artifacts_in="system",
            preamble=_PREAMBLE,
        ),
        HarnessVersion(
            id="harness-v3",
            max_turns=8,
            skill_loading="context",
            model_retries=1,
            tool_exposure="relevant",
            artifacts_in="user",
            preamble=_PREAMBLE,
        ),
    )
}


def harness_version(harness_id: str) -> HarnessVersion:
    """The harness version ``harness_id``."""
    if harness_id not in HARNESSES:
        raise BenchmarkError(
            f"unknown harness {harness_id!r}", f"harnesses: {', '.join(sorted(HARNESSES))}"
        )
    return HARNESSES[harness_id]
