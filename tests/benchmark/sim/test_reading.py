"""How a sim model reads instructions, recipes and typed skills: from text alone."""

import json

import pytest

from benchmark import family
from benchmark.sim._reading import followed_lines, read_artifacts, read_instruction
from submissions import reference_dir

SITUATION = {
    "duplicate_charge": "duplicate",
    "damaged_item": "damaged",
    "late_delivery": "late",
    "damaged_by_email": "damaged",
}
RECIPE = (reference_dir("prompt-recipe") / "refund-playbook.md").read_text()
SKILL = (reference_dir("typed-skill") / "refund-ticket.skill.json").read_text()


@pytest.mark.parametrize("task", family("support_ops").tasks("dev", 40, 0), ids=lambda t: t.id)
def test_every_generated_instruction_is_understood(task) -> None:  # type: ignore[no-untyped-def]
    intent = read_instruction(task.instruction)
    assert intent is not None
    refund, close = task.reference_calls
    assert intent.situation == SITUATION[task.kind]
    assert intent.ticket == close.arguments["ticket_id"]
    if task.kind == "damaged_by_email":
        assert intent.order is None and intent.email
    else:
        assert intent.order == refund.arguments["order_id"]
    if task.kind == "duplicate_charge":
        assert round(intent.dollars * 100) == refund.arguments["amount_cents"]
    if task.kind == "late_delivery":
        assert intent.shipping


def test_unrelated_text_is_not_a_support_request() -> None:
    assert read_instruction("Write a haiku about autumn.") is None


def test_recipe_formats_decide_what_a_model_follows() -> None:
    assert len(followed_lines(RECIPE, ("numbered",))) == 4
    assert followed_lines(RECIPE, ("headings", "tables")) == []
    headed = "# Refunds\nClose the ticket when done.\n\nplain text"
    assert followed_lines(headed, ("headings",)) == ["Close the ticket when done.", "plain text"]
    assert followed_lines(headed, ("numbered",)) == []


def test_reference_recipe_directives() -> None:
    d = read_artifacts(f'<recipe name="r">\n{RECIPE}\n</recipe>', ("numbered",))
    assert d.procedure and d.codes and d.unit == "cents"
    assert d.field_names[("refund", "amount")] == "amount_cents"
    assert d.field_names[("refund", "order")] == "order_id"
    ignored = read_artifacts(f'<recipe name="r">\n{RECIPE}\n</recipe>', ("tables",))
    assert not (ignored.procedure or ignored.codes or ignored.unit or ignored.field_names)


def test_typed_skills_are_read_whatever_the_formats() -> None:
    d = read_artifacts(f'<typed-skill name="s">\n{SKILL}\n</typed-skill>', ())
    assert d.procedure and d.codes and d.unit == "cents"
    assert d.tool_names["refund"] == "issue_refund"


TRAJECTORIES = (reference_dir("retrieved-trajectories") / "episodes.json").read_text()


def _episode_block(i: int) -> str:
    episode = json.loads(TRAJECTORIES)["episodes"][i]
    return f'<trajectory memory="m">\n{json.dumps(episode)}\n</trajectory>'


def test_a_model_imitates_an_episode_old_names_and_units_included() -> None:
    d = read_artifacts(_episode_block(0), ())  # a duplicate charge: $24.99 sent as 2499
    assert d.procedure and d.unit == "cents"
    assert d.field_names[("refund", "amount")] == "amount_cents"
    assert d.tool_names["refund"] == "issue_refund"
    assert d.example_code == "duplicate_charge" and not d.codes
