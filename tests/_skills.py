"""The reference typed skills (Agent Skills with a contract), for tests that use one."""

from __future__ import annotations

from benchmark.harness import SKILL_FILE, AgentSkill, TypedSkill
from submissions import reference_dir

SKILLS = reference_dir("typed-skill") / "skills"
"""The reference typed-skill bundle's skill folders."""


def reference_skill(name: str) -> AgentSkill:
    """The reference skill ``name`` (e.g. 'refund-ticket') as the harness holds it."""
    return AgentSkill(skill_md=(SKILLS / name / SKILL_FILE).read_text())


def reference_contract(name: str) -> TypedSkill:
    """The typed contract of the reference skill ``name``."""
    contract = reference_skill(name).contract
    assert contract is not None
    return contract
