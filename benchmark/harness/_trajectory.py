"""Retrieved trajectories: past successful episodes, the closest shown to the model."""

from __future__ import annotations

import json
import re

from pydantic import BaseModel, ConfigDict, Field

from drift import ToolCall


class Episode(BaseModel):
    """One past episode: what was asked and the tool calls that solved it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    instruction: str = Field(min_length=1, description="The task as it was given.")
    calls: tuple[ToolCall, ...] = Field(min_length=1, description="The calls made, in order.")
    outcome: str = Field(default="success", description="How the episode ended.")


class TrajectorySet(BaseModel):
    """A retrievable memory of episodes (a ``trajectory`` artifact)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=1, description="Format version.")
    name: str = Field(min_length=1, description="Name of the memory.")
    episodes: tuple[Episode, ...] = Field(min_length=1, description="The episodes.")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


def retrieve(memory: TrajectorySet, instruction: str) -> Episode:
    """The episode whose instruction shares the most words with ``instruction`` (Jaccard);
    ties go to the earlier episode, so retrieval is deterministic."""
    words = _words(instruction)

    def score(e: Episode) -> float:
        other = _words(e.instruction)
        return len(words & other) / max(1, len(words | other))

    return max(memory.episodes, key=score)


def render_episode(memory: TrajectorySet, episode: Episode) -> str:
    """A retrieved episode as it appears in the context."""
    body = json.dumps(episode.model_dump(mode="json"), indent=1, sort_keys=True)
    return f'<trajectory memory="{memory.name}">\n{body}\n</trajectory>'
