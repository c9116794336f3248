"""Re-binding a typed skill with the drift classifier: preserving changes are rebound,
changing ones rewritten only where the served schema states the new convention, anything else
left as it was (so the runtime stops it safely)."""

from __future__ import annotations

from adapt import rebind_skill
from benchmark import family_for_env, serve, served_interface
from benchmark.harness import TypedSkill, check_interface
from drift import (
    AnyOperator,
    DefaultFlip,
    EnumMeaningChange,
    InterfaceVersion,
    RenameEnumValues,
    ServedInterface,
    ToolSet,
)
from tests._skills import reference_contract

SKILL = reference_contract("refund-ticket")


def _served(*ops: AnyOperator) -> dict[str, ServedInterface]:
    version = InterfaceVersion(
        id="support-ops@test", env="support-ops", label="test", parent="support-ops@1", ops=ops
    )
    return {"support-ops": serve("support-ops", version)}


def assert_runtime_accepts(skill: TypedSkill, served: dict[str, ServedInterface]) -> None:
    check = check_interface(skill, served)
    assert check.skill == skill and check.stop is None and check.note is None


def test_a_unit_change_the_schema_states_is_rebound_and_rewritten() -> None:
    served = {"support-ops": served_interface("support-ops", "support-ops@2-units")}
    assert check_interface(SKILL, served).stop is not None  # frozen: stops safely
    rebound, notes = rebind_skill(SKILL, served)
    refund = next(s for s in rebound.steps if s.tool == "issue_refund")
    assert set(refund.args) == {"order_id", "amount", "reason"}
    assert rebound.units == {"amount": "dollars"}
    assert "unit now dollars" in notes[0]
    assert_runtime_accepts(rebound, served)


def test_renamed_fields_and_enum_values_are_rebound() -> None:
    served = {"support-ops": served_interface("support-ops", "support-ops@2-rename")}
    rebound, _ = rebind_skill(SKILL, served)
    assert (
        next(s for s in rebound.steps if s.tool == "issue_refund").args["order_number"] == "$order"
    )
    assert_runtime_accepts(rebound, served)
    served = _served(
        RenameEnumValues(tool="issue_refund", field="reason", mapping={"damaged": "DAMAGED"})
    )
    rebound, _ = rebind_skill(SKILL, served)
    assert rebound.codes["arrived damaged or broken"] == "DAMAGED"
    assert rebound.codes["arrived late"] == "late_delivery"
    assert_runtime_accepts(rebound, served)


def test_swapped_enum_meanings_the_schema_states_swap_the_codes() -> None:
    served = _served(
        EnumMeaningChange(tool="issue_refund", field="reason", a="damaged", b="late_delivery")
    )
    rebound, notes = rebind_skill(SKILL, served)
    assert rebound.codes["arrived damaged or broken"] == "late_delivery", notes
    assert rebound.codes["arrived late"] == "damaged"
    assert rebound.codes["charged twice"] == "duplicate_charge"
    assert_runtime_accepts(rebound, served)


def test_a_change_the_skill_cannot_state_leaves_it_to_stop_safely() -> None:
    flip = DefaultFlip(tool="issue_refund", field="notify_customer", old_default=True)
    removed = RenameEnumValues(
        tool="issue_refund", field="reason", mapping={"late_delivery": "delivery_late"}
    )  # not recognised as a respelling: a value the skill's codes use is removed
    for op, field in ((flip, "notify_customer"), (removed, "reason")):
        served = _served(op)
        rebound, notes = rebind_skill(SKILL, served)
        assert rebound is SKILL
        assert any("left to stop safely" in n and field in n for n in notes), notes
        assert check_interface(rebound, served).stop is not None


def test_a_skill_served_as_declared_or_without_its_tools_is_unchanged() -> None:
    served = {"support-ops": served_interface("support-ops", "support-ops@1")}
    assert rebind_skill(SKILL, served) == (
        SKILL,
        ["support-ops: served as declared; nothing to rebind"],
    )
    bare = SKILL.model_copy(
        update={"requires": (SKILL.requires[0].model_copy(update={"tools": None}),)}
    )
    units = {"support-ops": served_interface("support-ops", "support-ops@2-units")}
    rebound, notes = rebind_skill(bare, units)
    assert rebound is bare and "cannot be classified" in notes[0]


def _requiring(field: str) -> dict[str, ServedInterface]:
    """support-ops served with ``issue_refund`` requiring ``field`` (a version label of its own,
    so the runtime classifies instead of trusting the digest)."""
    base = family_for_env("support-ops").base_tools()
    tools = []
    for tool in base.tools:
        if tool.name == "issue_refund":
            schema = dict(tool.input_schema)
            schema["required"] = sorted({*schema.get("required", []), field})
            tool = tool.model_copy(update={"input_schema": schema})
        tools.append(tool)
    version = InterfaceVersion(
        id="support-ops@req", env="support-ops", label="req", parent="support-ops@1", ops=()
    )
    return {"support-ops": ServedInterface(ToolSet(tools=tools), version)}


def test_a_field_that_becomes_required_stops_a_skill_only_if_it_does_not_pass_it() -> None:
    refund = next(s for s in SKILL.steps if s.tool == "issue_refund")
    tool = family_for_env("support-ops").base_tools().get("issue_refund")
    assert tool is not None
    missing = next(f for f in tool.properties() if f not in refund.args)
    stop = check_interface(SKILL, _requiring(missing)).stop
    assert stop is not None and "field_required" in stop and missing in stop
    passed = next(iter(refund.args))
    check = check_interface(SKILL, _requiring(passed))
    assert check.stop is None and check.skill is not None
    rebound, notes = rebind_skill(SKILL, _requiring(missing))
    assert rebound == SKILL and any("does not pass it" in n for n in notes)
