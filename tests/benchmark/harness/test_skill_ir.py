"""Skill IR validation."""

import json

import pytest
from pydantic import ValidationError

from benchmark.harness import TypedSkill
from submissions import reference_dir

RAW = json.loads((reference_dir("typed-skill") / "refund-ticket.skill.json").read_text())


def test_reference_skill_is_valid() -> None:
    skill = TypedSkill.model_validate(RAW)
    assert skill.applies_to("support_ops") and not skill.applies_to("other")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"permissions": ["get_order"]}, "outside permissions"),
        ({"requires": [{"env": "e", "version": "1", "schema_digest": "abc"}]}, "64 lower-case"),
        ({"requires": []}, "at least 1"),
        ({"steps": []}, "at least 1"),
        ({"surprise": 1}, "Extra inputs"),
        (
            {
                "steps": [
                    {**RAW["steps"][2], "args": {**RAW["steps"][2]["args"], "refund_total": "$a"}}
                ]
            },
            "passes 'refund_total', which issue_refund does not take",
        ),
        (
            {
                "steps": [{"tool": "refund_order", "args": {}}],
                "permissions": [*RAW["permissions"], "refund_order"],
            },
            "calls 'refund_order', which no declared tool is",
        ),
    ],
)
def test_invalid_skills_are_refused(change: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        TypedSkill.model_validate({**RAW, **change})


def test_step_arguments_are_checked_only_against_declared_tools() -> None:
    # without the tool list only the server can tell: the skill is valid, its call will fail
    requires = [{k: v for k, v in RAW["requires"][0].items() if k != "tools"}]
    step = {**RAW["steps"][2], "args": {"refund_total": "$amount"}}
    skill = TypedSkill.model_validate({**RAW, "requires": requires, "steps": [step]})
    assert skill.steps[0].args == {"refund_total": "$amount"}
