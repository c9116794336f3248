"""vwt's own agent loop (harness-v1..v3): model calls through the gateway, tool calls through
the trial's environment; and the context every harness of vwt gives a model (artifacts as
written into it, the skill tools, the typed-skill runtime's checks)."""

from __future__ import annotations

import json
from typing import Any

from benchmark._environment import ToolResult, TrialEnvironment
from benchmark._models import ModelCallFailed, ModelPolicy, complete
from benchmark.harness._artifacts import AgentArtifacts, render_index, render_recipe
from benchmark.harness._harness import Harness, HarnessInfo, HarnessTrial
from benchmark.harness._relevance import relevant_tools
from benchmark.harness._run import STOP_REPORT, AgentRun
from benchmark.harness._runtime import check_interface
from benchmark.harness._skill_ir import TypedSkill
from benchmark.harness._skill_tools import SKILL_TOOLS, ScriptRunner, SkillTools
from benchmark.harness._trajectory import render_episode, retrieve
from benchmark.harness._versions import VERSIONS, HarnessVersion
from conditions import ModelEndpoint
from drift import ToolCall


class AgentContext:
    """What a harness configured by ``harness`` gives the model of one trial: the artifacts as
    written into its context, the tools it is offered (the served ones and the skill tools),
    the typed-skill runtime's checks, and the run being recorded."""

    def __init__(
        self,
        model: str,
        harness: HarnessVersion,
        env: TrialEnvironment,
        artifacts: AgentArtifacts,
        seed: int,
        endpoint: ModelEndpoint | None,
        scripts: ScriptRunner | None,
    ) -> None:
        """The context of one trial (see the class)."""
        self.model, self.harness, self.env, self.seed = model, harness, env, seed
        self.endpoint = endpoint
        family = env.family.id
        self.recipes = list(artifacts.recipes)
        self.trajectories = list(artifacts.trajectories)
        self.skills = [s for s in artifacts.skills if s.applies_to(family)]
        on_demand = harness.skill_loading == "tool"
        self.skill_tools = SkillTools(self.recipes, self.skills, self.guard, scripts, on_demand)
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
            parts += [text for s in self.skills if (text := self.skill_tools.rendered(s))]
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
        """The tools offered to the model (all served tools, or the relevant ones), and the
        skill tools: load_skill when skills load on demand, the file and script tools when a
        skill has files or scripts."""
        tools = self.env.tools
        if self.harness.tool_exposure == "relevant":
            tools = relevant_tools(tools, self.env.task.instruction, "\n".join(artifacts))
        return [*tools, *self.skill_tools.definitions()]

    def guard(self, skill: TypedSkill) -> TypedSkill | None:
        """The contract to use (rebound if the runtime could), or None after a safe stop."""
        check = check_interface(skill, self.served)
        if check.stop:
            self.run.safe_stop = check.stop
            return None
        if check.note:
            self.run.notes.append(check.note)
        return check.skill


class _Agent(AgentContext):
    """The loop itself."""

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
        if fn["name"] in SKILL_TOOLS:
            return await self.skill_tools.call(fn["name"], args)
        return await self.env.call(ToolCall(name=fn["name"], arguments=args))

    async def go(self) -> AgentRun:
        run = self.run
        artifacts = self.artifacts()  # in context, contracts are checked here
        if run.safe_stop:
            return run
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
    scripts: ScriptRunner | None = None,
) -> AgentRun:
    """Run the agent on ``env``'s task until it answers, stops safely or hits the turn limit;
    its model calls go to ``endpoint`` when one is given, and skill scripts to ``scripts``
    (without a runner, scripts are not offered)."""
    return await _Agent(model, harness, env, artifacts, seed, endpoint, scripts).go()


class LoopHarness(Harness):
    """vwt's own agent loop at one version: a harness plugin like any other."""

    def __init__(self, version: HarnessVersion) -> None:
        """The loop configured by ``version``."""
        self.version = version
        self.id = version.id

    def info(self) -> HarnessInfo:
        """A loop runs wherever vwt does."""
        return HarnessInfo(
            id=self.id,
            kind="loop",
            version=self.id.rpartition("-")[2],
            summary=self.version.summary,
        )

    async def run(self, trial: HarnessTrial) -> AgentRun:
        """The loop on ``trial`` (see :func:`run_agent`)."""
        return await run_agent(
            trial.model,
            self.version,
            trial.env,
            trial.artifacts,
            trial.seed,
            trial.endpoint,
            trial.scripts,
        )


HARNESS_V1 = LoopHarness(VERSIONS["harness-v1"])
"""harness-v1, as its ``vwt.harnesses`` entry point names it."""
HARNESS_V2 = LoopHarness(VERSIONS["harness-v2"])
"""harness-v2, as its ``vwt.harnesses`` entry point names it."""
HARNESS_V3 = LoopHarness(VERSIONS["harness-v3"])
"""harness-v3, as its ``vwt.harnesses`` entry point names it."""
