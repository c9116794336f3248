"""The harness: the agent loop, its versions, and the typed-skill runtime."""

from benchmark.harness._artifacts import AgentArtifacts, Recipe
from benchmark.harness._loop import AgentRun, run_agent
from benchmark.harness._runtime import interface_mismatch
from benchmark.harness._skill_ir import InterfaceRequirement, SkillStep, SkillTriggers, TypedSkill
from benchmark.harness._versions import HARNESSES, HarnessVersion, harness_version

__all__ = [
    "HARNESSES",
    "AgentArtifacts",
    "AgentRun",
    "HarnessVersion",
    "InterfaceRequirement",
    "Recipe",
    "SkillStep",
    "SkillTriggers",
    "TypedSkill",
    "harness_version",
    "interface_mismatch",
    "run_agent",
]
