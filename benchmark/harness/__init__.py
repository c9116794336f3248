"""The harness: the agent loop, its versions, and the typed-skill runtime."""

from benchmark.harness._artifacts import AgentArtifacts, Recipe
from benchmark.harness._loop import AgentRun, run_agent
from benchmark.harness._runtime import InterfaceCheck, check_interface, rebound_skill
from benchmark.harness._skill_ir import InterfaceRequirement, SkillStep, SkillTriggers, TypedSkill
from benchmark.harness._trajectory import Episode, TrajectorySet, retrieve
from benchmark.harness._versions import HARNESSES, HarnessVersion, harness_version

__all__ = [
    "HARNESSES",
    "AgentArtifacts",
    "AgentRun",
    "Episode",
    "HarnessVersion",
    "InterfaceCheck",
    "InterfaceRequirement",
    "Recipe",
    "SkillStep",
    "SkillTriggers",
    "TrajectorySet",
    "TypedSkill",
    "check_interface",
    "harness_version",
    "rebound_skill",
    "retrieve",
    "run_agent",
]
