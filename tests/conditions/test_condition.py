"""The Condition model: stable ids and which axes two conditions differ on."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from conditions import AXES, Condition, CycleSpec, ModelAxis, TaskFamilyAxis


def _with(c: Condition, **updates: object) -> Condition:
    return Condition.model_validate({**c.model_dump(), **updates})


def test_provider_only_change_differs_on_provider_only(default_spec: CycleSpec) -> None:
    src = default_spec.source
    orbit = _with(src, model={"model": "sim/orbit-2", "version": "2"}, provider="orbit")
    assert orbit.differs_on(src) == ["provider"]
    assert orbit.id != src.id


def test_version_change_differs_on_model(default_spec: CycleSpec) -> None:
    src = default_spec.source
    acme3 = _with(src, model={"model": "sim/acme-3", "version": "3"})
    assert acme3.differs_on(src) == ["model"]
    both = _with(acme3, provider="orbit", harness="harness-v2")
    assert both.differs_on(src) == ["model", "provider", "harness"]


def test_every_axis_is_detected_in_canonical_order(default_spec: CycleSpec) -> None:
    src = default_spec.source
    other = Condition(
        model=ModelAxis(model="m/x", version="9"),
        provider="p",
        tool_interface={"support-ops": "support-ops@9"},
        task_family=TaskFamilyAxis(family="f", split="s"),
        harness="h",
    )
    assert other.differs_on(src) == list(AXES)
    assert src.differs_on(src) == []


def test_id_is_stable_and_independent_of_key_order(default_spec: CycleSpec) -> None:
    src = default_spec.source
    two_envs = _with(src, tool_interface={"b": "b@1", "a": "a@1"})
    same = _with(src, tool_interface={"a": "a@1", "b": "b@1"})
    assert two_envs.id == same.id
    assert two_envs.canonical() == same.canonical()
    assert two_envs.id.startswith("c-") and len(two_envs.id) == 14


def test_each_field_changes_the_id(default_spec: CycleSpec) -> None:
    src = default_spec.source
    variants = [
        _with(src, model={"model": src.model.model, "version": "2b"}),
        _with(src, provider="acme2"),
        _with(src, tool_interface={"support-ops": "support-ops@1x"}),
        _with(src, task_family={"family": "support_ops", "split": "dev"}),
        _with(src, harness="harness-v1x"),
    ]
    assert len({v.id for v in variants} | {src.id}) == 6


def test_conditions_are_frozen_and_strict(default_spec: CycleSpec) -> None:
    with pytest.raises(ValidationError):
        default_spec.source.provider = "x"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="Extra inputs"):
        Condition.model_validate({**default_spec.source.model_dump(), "note": "x"})


def test_a_family_set_is_sorted_and_a_single_family_keeps_its_canonical_form(
    default_spec: CycleSpec,
) -> None:
    one = TaskFamilyAxis(family=["support_ops"], split="sealed")
    assert one == TaskFamilyAxis(family="support_ops", split="sealed")
    assert one.model_dump(mode="json") == {"family": "support_ops", "split": "sealed"}
    both = TaskFamilyAxis(family=["support_ops", "reconciliation"], split="sealed")
    assert both.families == ("reconciliation", "support_ops")
    assert both.model_dump(mode="json")["family"] == ["reconciliation", "support_ops"]
    assert both.label == "reconciliation+support_ops/sealed"
    src = default_spec.source
    mixed = src.model_copy(update={"task_family": both})
    assert mixed.differs_on(src) == ["task_family"]
    swapped = TaskFamilyAxis(family=["reconciliation", "support_ops"], split="sealed")
    assert mixed.id == src.model_copy(update={"task_family": swapped}).id != src.id
    again = Condition.model_validate_json(mixed.model_dump_json())
    assert again == mixed and again.id == mixed.id
    for bad in ([], ["a", "a"], ["a", ""]):
        with pytest.raises(ValidationError):
            TaskFamilyAxis(family=bad, split="sealed")
