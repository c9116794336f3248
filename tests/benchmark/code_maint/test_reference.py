"""The reference artifacts for code maintenance: the typed skill declares the repo@1 interface
as served (the harness accepts it), and the recipe reads, for a sim model, as the family's
actions, tool names and the edit's default."""

import json

from benchmark.code_maint import ENV_ID, base_tools, interface_versions
from benchmark.code_maint._sim_pack import PACK
from benchmark.harness import TypedSkill
from benchmark.sim import FORMATS
from benchmark.sim._guidance import read_recipe
from drift import ServedInterface
from submissions import reference_dir

SKILL = reference_dir("typed-skill") / "dependency-update.skill.json"
RECIPE = reference_dir("prompt-recipe") / "dependency-updates.md"


def test_the_skill_declares_repo_1_as_served() -> None:
    skill = TypedSkill.model_validate(json.loads(SKILL.read_text()))
    served = ServedInterface(base_tools(), interface_versions()[f"{ENV_ID}@1"])
    (requirement,) = skill.requires
    assert (requirement.env, requirement.version) == (ENV_ID, "1")
    assert requirement.schema_digest == served.digest
    assert {s.tool for s in skill.steps} <= set(skill.permissions)
    assert "write_file" not in skill.permissions


def test_the_recipe_names_the_tools_and_states_the_default_it_was_written_for() -> None:
    g = read_recipe(PACK, RECIPE.read_text(), frozenset(FORMATS))
    assert g.tools == {
        "changelog": "read_changelog",
        "replace": "replace_in_file",
        "run_tests": "run_tests",
    }
    assert {"changelog", "search", "replace", "run_tests"} <= g.steps
    # "never rewrite a whole file with write_file"; "never … weaken a test" also reads as
    # forbidding the test run, which no step of the family is
    assert "write" in g.forbidden and "replace" not in g.forbidden
    assert g.conventions[("replace", "all")].default is True
