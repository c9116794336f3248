"""SKILL.md: the Agent Skills format's rules, checked against the format's own reference
validator (skills-ref), and the typed contract in its metadata."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skills_ref import read_properties
from skills_ref import validate as reference_validate

from benchmark.harness import (
    CONTRACT_KEY,
    AgentSkill,
    FrontMatter,
    SkillFormatError,
    parse_skill_md,
    render_skill_md,
)
from submissions import reference_dir
from tests._skills import SKILLS, reference_contract, reference_skill

EXAMPLE = Path(__file__).parents[3] / "docs" / "examples" / "skills" / "refund-helper"
GOOD = (
    "---\nname: pdf-tools\ndescription: Extract text from PDF files. Use for PDFs.\n---\n# Body\n"
)


def _md(front: str, body: str = "# Body\n") -> str:
    return f"---\n{front.strip()}\n---\n{body}"


def test_a_minimal_skill_parses_into_its_front_matter_and_body() -> None:
    front, body = parse_skill_md(GOOD)
    assert front.name == "pdf-tools" and front.description.startswith("Extract")
    assert body == "# Body\n" and front.metadata == {}


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("# no front matter\n", "must start with YAML front matter"),
        ("---\nname: a\ndescription: b\n", "not closed"),
        (_md("name: [a\ndescription: b"), "not valid YAML (line 3"),
        (_md("- a\n- b"), "must be a YAML mapping"),
        (_md("description: does things"), "has no name"),
        (_md("name: tools"), "has no description"),
        (_md("name: PDF-Tools\ndescription: d"), "lower-case letters, digits and hyphens"),
        (_md("name: -pdf\ndescription: d"), "not starting or ending with a hyphen"),
        (_md("name: pdf--tools\ndescription: d"), "without '--'"),
        (_md("name: pdf_tools\ndescription: d"), "lower-case letters"),
        (_md(f"name: {'a' * 65}\ndescription: d"), "1-64"),
        (_md("name: 12\ndescription: d"), "name must be a non-empty string"),
        (_md("name: a\ndescription: ''"), "description must be a non-empty string"),
        (_md(f"name: a\ndescription: {'x' * 1025}"), "over the limit of 1024"),
        (_md(f"name: a\ndescription: d\ncompatibility: {'x' * 501}"), "over the limit of 500"),
        (_md("name: a\ndescription: d\nversion: 2"), "a field the format does not: version"),
        (_md("name: a\ndescription: d\nmetadata: [1]"), "metadata must be a map"),
        (_md("name: a\ndescription: d\nmetadata:\n  k:\n    nested: 1"), "'k' must be a string"),
        (_md("name: &n a\ndescription: *n"), "anchors or aliases"),
        (_md("name: a\ndescription: !!python/object:os.system d"), "not valid YAML"),
    ],
)
def test_each_rule_of_the_format_is_refused_by_name(text: str, rule: str) -> None:
    with pytest.raises(SkillFormatError, match=None) as e:
        parse_skill_md(text)
    assert rule in str(e.value) and "\n" not in str(e.value)


def test_metadata_values_read_as_strings_as_the_reference_parser_reads_them() -> None:
    front, _ = parse_skill_md(
        _md('name: a\ndescription: d\nmetadata:\n  v: 1.0\n  ok: true\n  s: "x"')
    )
    assert front.metadata == {"v": "1.0", "ok": "true", "s": "x"}


def test_render_reads_back_the_same_skill() -> None:
    front = FrontMatter(
        name="a",
        description="Line one\nline two",
        license="MIT",
        allowed_tools="Read Bash(git:*)",
        metadata={"vwt-contract": '{\n  "v": 1\n}', "author": "me"},
    )
    again, body = parse_skill_md(render_skill_md(front, "# Hello\n"))
    assert again == front and body == "# Hello\n"


def test_the_format_reference_validator_accepts_every_skill_vwt_ships() -> None:
    folders = [*sorted(SKILLS.iterdir()), EXAMPLE]
    assert len(folders) == 5
    for folder in folders:
        assert reference_validate(folder) == [], folder
        ours, _ = parse_skill_md((folder / "SKILL.md").read_text())
        theirs = read_properties(folder)
        assert (theirs.name, theirs.description) == (ours.name, ours.description)
        assert (theirs.metadata or {}) == ours.metadata  # the contract is a string to them


def test_what_we_refuse_the_reference_validator_refuses_too(tmp_path: Path) -> None:
    for name, front in {
        "bad--name": "name: bad--name\ndescription: d",
        "other": "name: not-other\ndescription: d",
        "extra": "name: extra\ndescription: d\nauthor: me",
    }.items():
        folder = tmp_path / name
        folder.mkdir()
        (folder / "SKILL.md").write_text(_md(front))
        assert reference_validate(folder) != [], name


def test_the_contract_lives_in_metadata_and_the_runtime_reads_it_from_there() -> None:
    skill = reference_skill("refund-ticket")
    contract = skill.contract
    assert contract is not None and contract.name == skill.name == "refund-ticket"
    assert json.loads(skill.front.metadata[CONTRACT_KEY])["steps"][2]["tool"] == "issue_refund"
    strict = skill.with_contract(contract.model_copy(update={"on_interface_change": "stop"}))
    assert strict.body == skill.body and strict.contract is not None
    assert strict.contract.on_interface_change == "stop"
    assert AgentSkill(skill_md=strict.skill_md).contract == strict.contract


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (lambda c: "{not json", "metadata vwt-contract is not JSON"),
        (lambda c: {**c, "name": "x"}, "sets name: the contract takes them from the front matter"),
        (lambda c: {**c, "permissions": ["get_order"]}, "outside permissions"),
        (
            lambda c: {**c, "steps": [{**c["steps"][0], "args": {"mail": "$email"}}]},
            "passes 'mail', which find_customer does not take",
        ),
        (
            lambda c: {
                **c,
                "steps": [{"tool": "teleport", "args": {}}],
                "permissions": ["teleport"],
            },
            "calls 'teleport', which no declared tool is",
        ),
        (
            lambda c: {**c, "requires": [{**c["requires"][0], "schema_digest": "0" * 64}]},
            "these tools' digest is 60a7366054",
        ),
    ],
)
def test_a_bad_contract_is_refused_with_the_rule(edit: object, rule: str) -> None:
    contract = reference_contract("refund-ticket").model_dump(mode="json", exclude_unset=True)
    contract.pop("name")
    contract.pop("description")
    edited = edit(contract)  # type: ignore[operator]
    value = edited if isinstance(edited, str) else json.dumps(edited, indent=2)
    front = reference_skill("refund-ticket").front
    text = render_skill_md(front.model_copy(update={"metadata": {CONTRACT_KEY: value}}), "")
    with pytest.raises(ValueError, match=None) as e:
        AgentSkill(skill_md=text)
    assert rule in str(e.value)


def test_a_wrong_digest_message_says_how_to_get_the_right_one() -> None:
    contract = reference_contract("refund-ticket")
    req = contract.requires[0].model_dump(mode="json")
    req["schema_digest"] = "f" * 64
    with pytest.raises(ValueError, match=r"vwt drift builtin support-ops@1"):
        type(contract.requires[0]).model_validate(req)


def test_reference_dir_holds_skill_folders_not_old_ir_files() -> None:
    folder = reference_dir("typed-skill")
    assert not list(folder.glob("*.skill.json"))
    assert {p.name for p in (folder / "skills").iterdir()} == {
        "refund-ticket",
        "reconcile-books",
        "answer-with-citation",
        "dependency-update",
    }
