"""The artifacts a harness can give a model, and how they are written into its context."""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field

from benchmark.harness._skill_ir import TypedSkill
from benchmark.harness._trajectory import TrajectorySet


class Recipe(BaseModel):
    """A free-text prompt recipe."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Recipe name.")
    text: str = Field(description="The recipe as written.")


class AgentArtifacts(BaseModel):
    """Everything a submission adds to the agent: empty for the no-artifact baseline."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    recipes: tuple[Recipe, ...] = Field(default=(), description="Prompt recipes.")
    skills: tuple[TypedSkill, ...] = Field(default=(), description="Typed skills.")
    trajectories: tuple[TrajectorySet, ...] = Field(
        default=(), description="Episode memories, retrieved from at run time."
    )


def render_recipe(recipe: Recipe) -> str:
    """A recipe as it appears in the context."""
    return f'<recipe name="{recipe.name}">\n{recipe.text.strip()}\n</recipe>'


def render_skill(skill: TypedSkill) -> str:
    """A typed skill as it appears in the context: its full structured form."""
    body = json.dumps(skill.model_dump(mode="json"), indent=1, sort_keys=True)
    return f'<typed-skill name="{skill.name}">\n{body}\n</typed-skill>'


def render_index(artifacts: AgentArtifacts) -> str:
    """The one-line-per-artifact index shown when skills load on demand."""
    lines = [f"- {r.name}: playbook" for r in artifacts.recipes]
    lines += [f"- {s.name}: {s.description}" for s in artifacts.skills]
    return "Skills available through load_skill:\n" + "\n".join(lines)
