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
    ],
)
def test_invalid_skills_are_refused(change: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        TypedSkill.model_validate({**RAW, **change})
