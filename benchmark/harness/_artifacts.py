"""The artifacts a harness can give a model, and how they are written into its context."""

from __future__ import annotations

import json

from pydantic import BaseModel, ConfigDict, Field

from benchmark.harness._agent_skill import AgentSkill
from benchmark.harness._skill_ir import TypedSkill
from benchmark.harness._trajectory import TrajectorySet


class Recipe(BaseModel):
    """A free-text prompt recipe."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Recipe name.")
    text: str = Field(description="The recipe as written.")
    description: str = Field(
        default="", description="What it is for: its line in the on-demand index."
    )


class AgentArtifacts(BaseModel):
    """Everything a submission adds to the agent: empty for the no-artifact baseline."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    recipes: tuple[Recipe, ...] = Field(default=(), description="Prompt recipes.")
    skills: tuple[AgentSkill, ...] = Field(
        default=(), description="Agent Skills, with or without a typed contract."
    )
    trajectories: tuple[TrajectorySet, ...] = Field(
        default=(), description="Episode memories, retrieved from at run time."
    )


def render_recipe(recipe: Recipe) -> str:
    """A recipe as it appears in the context."""
    return f'<recipe name="{recipe.name}">\n{recipe.text.strip()}\n</recipe>'


def render_contract(contract: TypedSkill) -> str:
    """A typed contract as it appears in the context: its full structured form."""
    body = json.dumps(contract.model_dump(mode="json"), indent=1, sort_keys=True)
    return f'<typed-skill name="{contract.name}">\n{body}\n</typed-skill>'


def render_skill(skill: AgentSkill, contract: TypedSkill | None = None) -> str:
    """An activated skill as the model reads it: the contract the runtime vouches for (rebound
    where it was), the body, and the files it may read or run through the skill tools."""
    parts = [render_contract(contract)] if contract is not None else []
    text = [skill.body.strip()] if skill.body.strip() else []
    if skill.files:
        text.append("Files: " + ", ".join(sorted(skill.files)))
    if text:
        parts.append(f'<skill name="{skill.name}">\n' + "\n\n".join(text) + "\n</skill>")
    return "\n".join(parts)


def render_index(artifacts: AgentArtifacts) -> str:
    """The one-line-per-artifact index shown when skills load on demand."""
    lines = [f"- {r.name}: {r.description or 'playbook'}" for r in artifacts.recipes]
    lines += [f"- {s.name}: {' '.join(s.description.split())}" for s in artifacts.skills]
    return "Skills available through load_skill:\n" + "\n".join(lines)
