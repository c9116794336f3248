"""Skill IR validation."""

import pytest
from pydantic import ValidationError

from benchmark.harness import TypedSkill
from tests._skills import reference_contract

RAW = reference_contract("refund-ticket").model_dump(mode="json", exclude_unset=True)


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
