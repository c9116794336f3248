"""The six operators modelled on real releases: adapters, old readings, what a schema shows.

They are applied by name only (``drawn`` is False): each needs what no schema gives — a backend
parameter, which result list is cut, which field counts positions — so ``--random`` never
draws them and the property tests of ``test_operators.py`` leave them to this file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from drift import (
    KINDS,
    DriftError,
    FilterSemantics,
    FormatDefault,
    IndexBase,
    InterfaceVersion,
    NewDefaultParam,
    Operator,
    OrderCut,
    RewordDescription,
    RoleSwap,
    ServedInterface,
    ToolCall,
    ToolSet,
    classify,
    load_tool_list,
)
from drift._ops_silent import shift_position

BASE = load_tool_list(Path(__file__).parent / "fixtures" / "base_tools.json")
NEW = ("new_default", "format_default", "role_swap", "order_cut", "index_base", "filter_semantics")

CREDIT = NewDefaultParam(
    tool="issue_refund",
    field="store_credit",
    prop={"type": "boolean", "default": True, "description": "Refund as store credit."},
    old_value=False,
)
FORMAT = FormatDefault(
    tool="get_ticket",
    field="amount_format",
    values=("decimal", "minor_units"),
    default="decimal",
    old_value="minor_units",
    description="How amounts are written. Defaults to 'decimal'.",
    tool_description="Fetch one ticket with its messages; amounts in dollars.",
    feeds=("issue_refund.amount_cents",),
    scale=100,
)
ROLES = RoleSwap(tool="schedule_callback", a="customer_id", b="at")
WINDOW = ToolSet.model_validate(
    {
        "tools": [
            {
                "name": "get_logs",
                "description": "Log lines of a service.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "start": {"type": "string", "description": "Start of the window."},
                        "end": {
                            "type": "string",
                            "description": "End of the window (now if unset).",
                        },
                    },
                    "required": ["start"],
                },
            }
        ]
    }
)
"""A time window whose one given time moves from its start to its end."""
CUT = OrderCut(
    tool="list_tickets",
    rows="tickets",
    by="updated",
    limit=2,
    old_text="newest first",
    new_text="the 2 least recently updated first",
    descending=False,
)
BASE0 = IndexBase(tool="list_tickets", field="offset", result_key="position")
ANY = FilterSemantics(tool="list_tickets", field="status")


def _served(*ops: Operator) -> ServedInterface:
    return ServedInterface(BASE, InterfaceVersion(id="t@2", env="t", label="2", ops=ops))


def test_the_six_are_registered_and_named_only() -> None:
    assert set(NEW) <= set(KINDS)
    for kind in NEW:
        cls = KINDS[kind]
        assert cls.drift_class == "changing" and not cls.drawn
        with pytest.raises(DriftError) as e:
            cls.draw(BASE, np.random.default_rng(0), {})
        assert e.value.hint


def test_new_default_fills_the_new_default_and_reads_the_omission_the_old_way() -> None:
    served = _served(CREDIT)
    assert served.tools.get("issue_refund").properties()["store_credit"]["default"] is True
    old = ToolCall(name="issue_refund", arguments={"order_id": "O-1", "amount_cents": 5})
    new = CREDIT.call_to_new(old)
    assert new.arguments["store_credit"] is False  # the old behaviour, asked for explicitly
    assert CREDIT.call_to_prev(new) == new and CREDIT.old_reading(new) is None
    naive = CREDIT.naive_call(old)
    assert naive is not None and "store_credit" not in naive.arguments
    assert CREDIT.call_to_prev(naive).arguments["store_credit"] is True  # the new behaviour
    assert CREDIT.old_reading(naive) == new
    with pytest.raises(ValueError, match="changes nothing"):
        NewDefaultParam(tool="t", field="f", prop={"default": 1}, old_value=1)


def test_format_default_old_reading_is_on_the_field_its_numbers_feed() -> None:
    served = _served(FORMAT)
    assert "dollars" in (served.tools.get("get_ticket").description or "")
    read = ToolCall(name="get_ticket", arguments={"ticket_id": "T-1"})
    assert FORMAT.call_to_prev(read).arguments["amount_format"] == "decimal"
    assert FORMAT.call_to_new(read).arguments["amount_format"] == "minor_units"
    refund = ToolCall(name="issue_refund", arguments={"order_id": "O", "amount_cents": 4539})
    naive = FORMAT.naive_call(refund)  # $45.39 read as 45.39 cents
    assert naive is not None and naive.arguments["amount_cents"] == 45.39
    misread = FORMAT.old_reading(ToolCall(name="issue_refund", arguments={"amount_cents": 45}))
    assert misread is not None and misread.arguments["amount_cents"] == 4500
    assert FORMAT.old_reading(read) is None  # a lookup has no effect to misread


def test_role_swap_trades_schemas_and_required_and_swaps_values_back() -> None:
    swap = RoleSwap(tool="get_logs", a="start", b="end")
    served = ServedInterface(WINDOW, InterfaceVersion(id="w@2", env="w", label="2", ops=(swap,)))
    before, after = WINDOW.get("get_logs"), served.tools.get("get_logs")
    assert after.properties()["end"] == before.properties()["start"]
    assert after.properties()["start"] == before.properties()["end"]
    assert list(after.properties()) == list(before.properties())  # names keep their places
    assert after.input_schema["required"] == ["end"]  # 'required' moved with the role
    old = ToolCall(name="get_logs", arguments={"start": "2026-01-01T00:00:00"})
    new = swap.call_to_new(old)
    assert new.arguments == {"end": "2026-01-01T00:00:00"}
    served.validate(new)
    assert swap.call_to_prev(new) == old
    assert swap.old_reading(old) == old and swap.call_to_prev(old) != old
    assert classify(WINDOW, served.tools).label() == "changing"
    with pytest.raises(ValueError):
        RoleSwap(tool="t", a="x", b="x")
    with pytest.raises(DriftError, match="differ in type"):
        RoleSwap(tool="schedule_callback", a="customer_id", b="contact").apply(BASE)


def test_role_swap_draws_only_two_required_fields_of_one_type() -> None:
    drawn = RoleSwap.draw(BASE, np.random.default_rng(0), {"tool": "schedule_callback"})
    assert {drawn.a, drawn.b} == {"customer_id", "at"}
    with pytest.raises(DriftError, match="no two required fields"):
        RoleSwap.draw(BASE, np.random.default_rng(0), {"tool": "issue_refund"})  # one an enum


def test_order_cut_changes_the_set_returned_and_states_it_only_in_prose() -> None:
    served = _served(CUT)
    after = served.tools.get("list_tickets")
    assert after.input_schema == BASE.get("list_tickets").input_schema
    assert "least recently updated" in (after.description or "")
    rows = [{"id": f"T-{i}", "updated": f"2026-01-{i:02d}"} for i in (3, 1, 4, 2)]
    call = ToolCall(name="list_tickets", arguments={})
    shown = CUT.result_to_new(call, {"tickets": rows, "total": 4})
    assert [r["id"] for r in shown["tickets"]] == ["T-1", "T-2"]  # T-3, shown first before, is gone
    assert shown["total"] == 4
    assert CUT.old_reading(call) is None  # no call with effect: the oracle has nothing to flag
    with pytest.raises(DriftError, match="does not say"):
        OrderCut(tool="list_tickets", rows="tickets", limit=1, old_text="x", new_text="y").apply(
            BASE
        )


def test_index_base_is_schema_silent_and_shifts_positions_both_ways() -> None:
    served = _served(BASE0)
    assert served.digest == BASE.digest()
    call = ToolCall(name="list_tickets", arguments={"offset": 0})
    assert BASE0.call_to_prev(call).arguments["offset"] == 1
    prev = ToolCall(name="list_tickets", arguments={"offset": 2})
    assert BASE0.call_to_new(prev).arguments["offset"] == 1
    assert BASE0.call_to_prev(BASE0.call_to_new(prev)) == prev
    assert BASE0.old_reading(call) is None  # 0 has no old-base reading: nothing before 1
    assert BASE0.old_reading(ToolCall(name="list_tickets", arguments={"offset": 3})) is not None
    result = {"tickets": [{"position": 1}, {"position": 2}]}
    assert BASE0.result_to_new(call, result) == {"tickets": [{"position": 0}, {"position": 1}]}
    assert BASE0.result_to_prev(call, BASE0.result_to_new(call, result)) == result
    assert shift_position("ORD-10001-3", 1) == "ORD-10001-4"
    assert shift_position("ORD-10001-0", -1) == "ORD-10001-0"  # never below 0
    assert shift_position(["A-1", 2, True, "x"], 1) == ["A-2", 3, True, "x"]


def test_filter_semantics_is_schema_silent_and_sends_the_new_combination() -> None:
    served = _served(ANY)
    assert served.digest == BASE.digest()
    call = ToolCall(name="list_tickets", arguments={"status": "open"})
    assert ANY.call_to_prev(call).arguments["match"] == "any"
    assert ANY.old_reading(call) == call  # without the parameter, terms combine the old way
    assert ANY.call_to_new(call) == call
    assert ANY.old_reading(ToolCall(name="list_tickets", arguments={})) is None


@pytest.mark.parametrize("op", [CREDIT, FORMAT, ROLES, CUT], ids=lambda o: o.op)
def test_a_schema_shows_the_visible_ones(op: Operator) -> None:
    report = classify(BASE, _served(op).tools)
    assert report.label() in ("changing", "unknown"), [c.reason for c in report.changes]


@pytest.mark.parametrize("op", [BASE0, ANY], ids=lambda o: o.op)
def test_no_schema_shows_the_silent_ones(op: Operator) -> None:
    report = classify(BASE, _served(op).tools)
    assert report.changes == [] and report.label() == "preserving"


@pytest.mark.parametrize("op", [CREDIT, FORMAT, ROLES, CUT, BASE0, ANY], ids=lambda o: o.op)
@pytest.mark.parametrize("seed", range(4))
def test_rewording_the_descriptions_keeps_the_label(op: Operator, seed: int) -> None:
    tool = op.tool  # type: ignore[attr-defined]
    label = classify(BASE, _served(op).tools).label()
    fields = [None, *_served(op).tools.get(tool).properties()]
    for field in fields:
        reworded = _served(op, RewordDescription(tool=tool, field=field, seed=seed))
        assert classify(BASE, reworded.tools).label() == label, (field, label)
