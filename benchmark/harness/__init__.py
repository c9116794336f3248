"""The harness: the agent loop, its versions, Agent Skills and the typed-skill runtime."""

from benchmark.harness._agent_skill import (
    CONTRACT_KEY,
    SCRIPTS_DIR,
    AgentSkill,
    contract_json,
    read_contract,
)
from benchmark.harness._artifacts import AgentArtifacts, Recipe
from benchmark.harness._loop import AgentRun, run_agent
from benchmark.harness._runtime import InterfaceCheck, check_interface, rebound_skill
from benchmark.harness._skill_ir import InterfaceRequirement, SkillStep, SkillTriggers, TypedSkill
from benchmark.harness._skill_md import (
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    SKILL_FILE,
    FrontMatter,
    SkillFormatError,
    check_name,
    parse_skill_md,
    render_skill_md,
)
from benchmark.harness._skill_tools import (
    LOAD_SKILL,
    READ_SKILL_FILE,
    RUN_SKILL_SCRIPT,
    SKILL_TOOLS,
    ScriptRun,
    ScriptRunner,
)
from benchmark.harness._trajectory import Episode, TrajectorySet, retrieve
from benchmark.harness._versions import HARNESSES, HarnessVersion, harness_version

__all__ = [
    "CONTRACT_KEY",
    "HARNESSES",
    "LOAD_SKILL",
    "MAX_DESCRIPTION_CHARS",
    "MAX_NAME_CHARS",
    "READ_SKILL_FILE",
    "RUN_SKILL_SCRIPT",
    "SCRIPTS_DIR",
    "SKILL_FILE",
    "SKILL_TOOLS",
    "AgentArtifacts",
    "AgentRun",
    "AgentSkill",
    "Episode",
    "FrontMatter",
    "HarnessVersion",
    "InterfaceCheck",
    "InterfaceRequirement",
    "Recipe",
    "ScriptRun",
    "ScriptRunner",
    "SkillFormatError",
    "SkillStep",
    "SkillTriggers",
    "TrajectorySet",
    "TypedSkill",
    "check_interface",
    "check_name",
    "contract_json",
    "harness_version",
    "parse_skill_md",
    "read_contract",
    "rebound_skill",
    "render_skill_md",
    "retrieve",
    "run_agent",
]
