"""Harnesses: the plugin interface, vwt's own agent loop and its versions, real agent frameworks
run out of process, Agent Skills and the typed-skill runtime."""

from benchmark.harness._agent_skill import (
    CONTRACT_KEY,
    SCRIPTS_DIR,
    AgentSkill,
    contract_json,
    read_contract,
)
from benchmark.harness._artifacts import AgentArtifacts, Recipe
from benchmark.harness._framework import (
    CONCURRENCY_ENV,
    FRAMEWORKS_ENV,
    TIMEOUT_ENV,
    DriverInput,
    DriverResult,
    FrameworkHarness,
    frameworks_home,
)
from benchmark.harness._frameworks import (
    OPENAI_AGENTS_0_2_11,
    OPENAI_AGENTS_0_8_4,
    PYDANTIC_AI_0_3_7,
    PYDANTIC_AI_1_0_18,
)
from benchmark.harness._harness import Harness, HarnessInfo, HarnessTrial
from benchmark.harness._loop import (
    HARNESS_V1,
    HARNESS_V2,
    HARNESS_V3,
    AgentContext,
    LoopHarness,
    run_agent,
)
from benchmark.harness._registry import (
    HARNESS_GROUP,
    HARNESSES,
    harness,
    harness_origin,
    usable_harness,
)
from benchmark.harness._run import STOP_REPORT, AgentRun
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
from benchmark.harness._versions import PREAMBLE, VERSIONS, HarnessVersion, harness_version

__all__ = [
    "CONCURRENCY_ENV",
    "CONTRACT_KEY",
    "FRAMEWORKS_ENV",
    "HARNESSES",
    "HARNESS_GROUP",
    "HARNESS_V1",
    "HARNESS_V2",
    "HARNESS_V3",
    "LOAD_SKILL",
    "MAX_DESCRIPTION_CHARS",
    "MAX_NAME_CHARS",
    "OPENAI_AGENTS_0_2_11",
    "OPENAI_AGENTS_0_8_4",
    "PREAMBLE",
    "PYDANTIC_AI_0_3_7",
    "PYDANTIC_AI_1_0_18",
    "READ_SKILL_FILE",
    "RUN_SKILL_SCRIPT",
    "SCRIPTS_DIR",
    "SKILL_FILE",
    "SKILL_TOOLS",
    "STOP_REPORT",
    "TIMEOUT_ENV",
    "VERSIONS",
    "AgentArtifacts",
    "AgentContext",
    "AgentRun",
    "AgentSkill",
    "DriverInput",
    "DriverResult",
    "Episode",
    "FrameworkHarness",
    "FrontMatter",
    "Harness",
    "HarnessInfo",
    "HarnessTrial",
    "HarnessVersion",
    "InterfaceCheck",
    "InterfaceRequirement",
    "LoopHarness",
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
    "frameworks_home",
    "harness",
    "harness_origin",
    "harness_version",
    "parse_skill_md",
    "read_contract",
    "rebound_skill",
    "render_skill_md",
    "retrieve",
    "run_agent",
    "usable_harness",
]
