"""Artifacts are read by what they say: content changes the reading, wording does not."""

import json

from benchmark.sim._guidance import read_episode, read_recipe, read_skill
from benchmark.support_ops._sim_pack import PACK
from submissions import reference_dir
from tests._skills import reference_contract

ALL = frozenset({"numbered", "bullets", "headings", "tables", "prose"})
RECIPE = (reference_dir("prompt-recipe") / "refund-playbook.md").read_text()
SKILL = reference_contract("refund-ticket").model_dump_json()


def test_the_reference_recipe_reads_as_its_code_map_steps_and_units() -> None:
    g = read_recipe(PACK, RECIPE, ALL)
    assert g.codes == {
        "duplicate": "duplicate_charge",
        "damaged": "damaged",
        "late": "late_delivery",
    }
    assert {"refund", "close"} <= g.steps and not g.forbidden
    assert g.conventions[("refund", "amount")].unit == "cents"
    assert g.constants[("close", "resolution")] == "refunded"


def test_a_wrong_code_map_is_read_as_written() -> None:
    wrong = RECIPE.replace("duplicate_charge for double charges", "damaged for double charges")
    assert read_recipe(PACK, wrong, ALL).codes["duplicate"] == "damaged"


def test_rewording_keeps_the_reading() -> None:
    reworded = (
        "Playbook\n"
        '1. Shut the ticket with close_ticket, resolution "refunded".\n'
        "2. Refund through issue_refund: order_id, amount_cents (the dollar amount times 100), "
        "reason: late_delivery for delayed orders, damaged for broken goods, duplicate_charge for "
        "double charges.\n"
    )
    g, h = read_recipe(PACK, reworded, ALL), read_recipe(PACK, RECIPE, ALL)
    assert g.codes == h.codes
    assert g.conventions[("refund", "amount")].unit == h.conventions[("refund", "amount")].unit
    assert g.constants == h.constants


def test_negations_forbid_and_only_in_a_followed_format() -> None:
    text = RECIPE + "\n- Never close the ticket.\n"
    assert "close" in read_recipe(PACK, text, ALL).forbidden
    assert "close" not in read_recipe(PACK, text, frozenset({"numbered"})).forbidden
    assert "close" not in read_recipe(PACK, RECIPE, ALL).forbidden


def test_a_unit_binds_to_the_field_it_is_stated_for() -> None:
    about_prices = "1. Call get_order; its prices are in dollars.\n2. Call issue_refund.\n"
    assert ("refund", "amount") not in read_recipe(PACK, about_prices, ALL).conventions
    plain = "1. The refund amount is in dollars.\n2. Set the discount rate as a percent.\n"
    conventions = read_recipe(PACK, plain, ALL).conventions
    assert conventions[("refund", "amount")].unit == "dollars"
    assert conventions[("set_discount", "rate")].scale == "percent"


def test_a_typed_skill_is_read_for_its_codes_and_units() -> None:
    g = read_skill(PACK, SKILL)
    assert g.codes["duplicate"] == "duplicate_charge"
    assert g.conventions[("refund", "amount")].unit == "cents"
    skill = json.loads(SKILL)
    skill["codes"] = {phrase: "goodwill" for phrase in skill["codes"]}
    assert set(read_skill(PACK, json.dumps(skill)).codes.values()) == {"goodwill"}


def test_a_tool_named_twice_is_never_read_as_a_field() -> None:
    from benchmark.reconciliation._sim_pack import PACK as RECONCILIATION

    text = (
        "1. Post fees with post_adjustment; then flag the line with flag_record.\n"
        "2. Flags for flag_record: duplicate for a payment imported twice.\n"
    )
    g = read_recipe(RECONCILIATION, text, ALL)
    assert g.tools["flag"] == "flag_record"
    assert "flag_record" not in g.fields.values()
    assert g.codes == {"duplicate": "duplicate"} and {"post_adjustment", "flag"} <= g.steps


def _episode(instruction: str, reason: str) -> str:
    calls = [
        {"name": "get_order", "arguments": {"order_id": "ORD-1-1"}},
        {"name": "issue_refund", "arguments": {"order_id": "ORD-1-1", "reason": reason}},
        {"name": "close_ticket", "arguments": {"ticket_id": "TCK-1", "resolution": "refunded"}},
    ]
    return json.dumps({"instruction": instruction, "calls": calls, "outcome": "success"})


KINDS = {k.name: k for k in PACK.kinds}


def test_an_example_whose_request_is_not_understood_is_imitated_for_the_request_at_hand() -> None:
    # the reader knows no word of this situation: the example it was shown for a late parcel
    # is taken as an example of a late parcel, and its code is learned for that
    obscure = _episode("TCK-1: ORD-1-1 turned up a fortnight behind schedule. Sort it out.", "x")
    assert read_episode(PACK, obscure, KINDS["refund_late"]).codes["late"] == "x"
    assert read_episode(PACK, obscure, KINDS["refund_damaged"]).codes["damaged"] == "x"
    # ... but not for a request whose procedure is another (closing a withdrawn complaint
    # takes no refund), and never from an example marked failed
    assert "no_action" not in read_episode(PACK, obscure, KINDS["withdrawn"]).codes
    failed = json.loads(obscure) | {"outcome": "failure"}
    assert not read_episode(PACK, json.dumps(failed), KINDS["refund_late"]).codes


def test_an_example_understood_as_another_situation_teaches_that_situation() -> None:
    broken = _episode("TCK-1: the vase in ORD-1-1 arrived broken. Refund it.", "damaged")
    g = read_episode(PACK, broken, KINDS["refund_late"])
    assert g.codes.get("damaged") == "damaged" and "late" not in g.codes
