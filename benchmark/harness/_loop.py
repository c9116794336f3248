"""The agent loop: model calls through litellm, tool calls through the trial's environment."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark._environment import ToolResult, TrialEnvironment
from benchmark._models import ModelCallFailed, ModelPolicy, Usage, complete
from benchmark.harness._artifacts import (
    AgentArtifacts,
    render_index,
    render_recipe,
    render_skill,
)
from benchmark.harness._relevance import relevant_tools
from benchmark.harness._runtime import check_interface
from benchmark.harness._skill_ir import TypedSkill
from benchmark.harness._trajectory import render_episode, retrieve
from benchmark.harness._versions import HarnessVersion
from conditions import ModelEndpoint
from drift import ToolCall

LOAD_SKILL = "load_skill"
STOP_REPORT = "INTERFACE CHANGE:"
"""How the preamble asks a model to begin a reply that stops on a detected interface change."""


class AgentRun(BaseModel):
    """How one agent run went, before verification."""

    model_config = ConfigDict(extra="forbid")

    final: str = Field(default="", description="The agent's final message.")
    turns: int = Field(default=0, description="Model calls made.")
    tool_calls: int = Field(default=0, description="Tool calls made.")
    tool_errors: int = Field(default=0, description="Tool calls that returned an error.")
    hit_turn_limit: bool = Field(default=False, description="Cut off at max_turns.")
    safe_stop: str | None = Field(default=None, description="Why the run stopped safely.")
    invalid: str | None = Field(default=None, description="Infrastructure failure, if any.")
    notes: list[str] = Field(default_factory=list, description="What the skill runtime did.")
    usage: Usage = Field(default_factory=Usage, description="Model usage.")
    messages: list[dict[str, Any]] = Field(
        default_factory=list, description="The messages, as the model saw them."
    )
    mcp: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="The MCP exchange ({'request', 'result'}) behind each tool message that "
        "went over MCP, by tool call id.",
    )

    def trace(self) -> list[dict[str, Any]]:
        """The messages, each tool message that went over MCP with its exchange under
        ``mcp``: what a trial's stored trace holds."""
        out = []
        for m in self.messages:
            exchange = self.mcp.get(m.get("tool_call_id", "")) if m.get("role") == "tool" else None
            out.append({**m, "mcp": exchange} if exchange is not None else m)
        return out


class _Agent:
    def __init__(
        self,
        model: str,
        harness: HarnessVersion,
        env: TrialEnvironment,
        artifacts: AgentArtifacts,
        seed: int,
        endpoint: ModelEndpoint | None,
    ) -> None:
        self.model, self.harness, self.env, self.seed = model, harness, env, seed
        self.endpoint = endpoint
        family = env.family.id
        self.recipes = list(artifacts.recipes)
        self.trajectories = list(artifacts.trajectories)
        self.skills = [s for s in artifacts.skills if s.applies_to(family)]
        self.run = AgentRun()
        self.served = {env.family.env_id: env.served}
        # the harness's retries are the default; the operator's environment may change them
        self.policy = ModelPolicy.from_env(attempts=harness.model_retries + 1)

    def artifacts(self) -> list[str]:
        """The artifacts as written into the context."""
        # Retrieval is the memory system's job, not the model's: every harness shows the
        # closest episode of every memory.
        instruction = self.env.task.instruction
        parts = [render_episode(m, retrieve(m, instruction)) for m in self.trajectories]
        if self.harness.skill_loading == "context":
            parts += [render_recipe(r) for r in self.recipes]
            parts += [render_skill(s) for s in self.skills]
        elif self.recipes or self.skills:
            parts.append(
                render_index(AgentArtifacts(recipes=tuple(self.recipes), skills=tuple(self.skills)))
            )
        return parts

    def opening(self, artifacts: list[str]) -> list[dict[str, Any]]:
        """The system and user messages: artifacts in the one the harness puts them in."""
        in_system = self.harness.artifacts_in == "system"
        system = [self.harness.preamble, *(artifacts if in_system else [])]
        user = [self.env.task.instruction, *([] if in_system else artifacts)]
        return [
            {"role": "system", "content": "\n\n".join(system)},
            {"role": "user", "content": "\n\n".join(user)},
        ]

    def tools(self, artifacts: list[str]) -> list[dict[str, Any]]:
        """The tools offered to the model (all served tools, or the relevant ones), and
        load_skill when skills load on demand."""
        tools = self.env.tools
        if self.harness.tool_exposure == "relevant":
            tools = relevant_tools(tools, self.env.task.instruction, "\n".join(artifacts))
        names = [r.name for r in self.recipes] + [s.name for s in self.skills]
        if self.harness.skill_loading == "tool" and names:
            tools = [
                *tools,
                {
                    "type": "function",
                    "function": {
                        "name": LOAD_SKILL,
                        "description": "Load the full text of a skill or playbook by name.",
                        "parameters": {
                            "type": "object",
                            "properties": {"name": {"type": "string", "enum": names}},
                            "required": ["name"],
                            "additionalProperties": False,
                        },
                    },
                },
            ]
        return tools

    def guard(self, skill: TypedSkill) -> TypedSkill | None:
        """The skill to use (rebound if the runtime could), or None after a safe stop."""
        check = check_interface(skill, self.served)
        if check.stop:
            self.run.safe_stop = check.stop
            return None
        if check.note:
            self.run.notes.append(check.note)
        return check.skill

    def load_skill(self, args: dict[str, Any]) -> ToolResult:
        name = args.get("name")
        for recipe in self.recipes:
            if recipe.name == name:
                return ToolResult(content=render_recipe(recipe))
        for skill in self.skills:
            if skill.name == name:
                usable = self.guard(skill)
                if usable is None:
                    return ToolResult(content=f"error: {self.run.safe_stop}", is_error=True)
                return ToolResult(content=render_skill(usable))
        return ToolResult(content=f"error: no skill named {name!r}", is_error=True)

    async def tool(self, tc: dict[str, Any], offered: set[str]) -> ToolResult:
        fn = tc["function"]
        if fn["name"] not in offered:
            return ToolResult(content=f"error: no tool named {fn['name']!r}", is_error=True)
        try:
            args = json.loads(fn.get("arguments") or "{}")
        except json.JSONDecodeError as e:
            return ToolResult(content=f"error: arguments are not JSON: {e}", is_error=True)
        if not isinstance(args, dict):
            return ToolResult(content="error: arguments must be a JSON object", is_error=True)
        if fn["name"] == LOAD_SKILL and self.harness.skill_loading == "tool":
            return self.load_skill(args)
        return await self.env.call(ToolCall(name=fn["name"], arguments=args))

    async def go(self) -> AgentRun:
        run = self.run
        if self.harness.skill_loading == "context":
            usable = [self.guard(s) for s in self.skills]
            if run.safe_stop:
                return run
            self.skills = [s for s in usable if s is not None]
        artifacts = self.artifacts()
        tools = self.tools(artifacts)
        offered = {t["function"]["name"] for t in tools}
        messages = run.messages
        messages += self.opening(artifacts)
        for _ in range(self.harness.max_turns):
            try:
                reply = await complete(
                    self.model,
                    messages,
                    tools,
                    seed=self.seed,
                    usage=run.usage,
                    policy=self.policy,
                    endpoint=self.endpoint,
                )
            except ModelCallFailed as e:
                run.invalid = str(e)
                return run
            run.turns += 1
            messages.append(reply)
            if not reply.get("tool_calls"):
                run.final = str(reply.get("content") or "")
                if run.final.startswith(STOP_REPORT):
                    run.safe_stop = run.final  # the model stopped and reported a change
                return run
            for tc in reply["tool_calls"]:
                result = await self.tool(tc, offered)
                run.tool_calls += 1
                run.tool_errors += int(result.is_error)
                if result.mcp is not None:
                    run.mcp[tc["id"]] = result.mcp
                messages.append(
                    {"role": "tool", "tool_call_id": tc["id"], "content": result.content}
                )
                if run.safe_stop:
                    return run
        run.hit_turn_limit = True
        return run


async def run_agent(
    model: str,
    harness: HarnessVersion,
    env: TrialEnvironment,
    artifacts: AgentArtifacts,
    seed: int,
    endpoint: ModelEndpoint | None = None,
) -> AgentRun:
    """Run the agent on ``env``'s task until it answers, stops safely or hits the turn limit;
    its model calls go to ``endpoint`` when one is given."""
    return await _Agent(model, harness, env, artifacts, seed, endpoint).go()
