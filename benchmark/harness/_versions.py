"""Harness (agent runtime) versions: how context is assembled, skills exposed, errors retried."""

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
        description="'context': typed skills and recipes sit in the system prompt; 'tool': "
        "only an index is shown and the model must call load_skill."
    )
    model_retries: int = Field(description="Retries of a failed model call before 'invalid'.")
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
            preamble=_PREAMBLE,
        ),
        HarnessVersion(
            id="harness-v2",
            max_turns=10,
            skill_loading="tool",
            model_retries=2,
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
