"""Conventions read back from what the changing operators write into descriptions."""

import pytest

from benchmark import family
from drift import (
    Convention,
    DefaultFlip,
    EnumMeaningChange,
    FractionPercent,
    IdentifierSwap,
    InterfaceVersion,
    ServedInterface,
    SignConvention,
    TimezoneChange,
    UnitChange,
    convert,
    read_convention,
    read_stated,
)

BASE = family("support_ops").base_tools()


def _field(ops: tuple, tool: str, field: str) -> Convention:
    version = InterfaceVersion(id="t@2", env="support-ops", label="2", parent="t@1", ops=ops)
    served = ServedInterface(BASE, version)
    fn = next(t for t in served.tools.tools if t.name == tool)
    return read_convention(field, fn.properties()[field])


def _base(tool: str, field: str) -> Convention:
    fn = next(t for t in BASE.tools if t.name == tool)
    return read_convention(field, fn.properties()[field])


@pytest.mark.parametrize(
    ("op", "tool", "before", "after", "aspect", "was", "now"),
    [
        (
            UnitChange(
                tool="issue_refund",
                field="amount_cents",
                new_name="amount",
                old_unit="cents",
                new_unit="dollars",
                scale=100,
            ),
            "issue_refund",
            "amount_cents",
            "amount",
            "unit",
            "cents",
            "dollars",
        ),
        (
            FractionPercent(tool="set_discount", field="rate"),
            "set_discount",
            "rate",
            "rate",
            "scale",
            "fraction",
            "percent",
        ),
        (
            SignConvention(tool="adjust_balance", field="amount_cents"),
            "adjust_balance",
            "amount_cents",
            "amount_cents",
            "positive",
            "credit the customer",
            "debit them",
        ),
        (
            TimezoneChange(tool="schedule_callback", field="callback_at", new_offset="-05:00"),
            "schedule_callback",
            "callback_at",
            "callback_at",
            "zone",
            "+00:00",
            "-05:00",
        ),
        (
            DefaultFlip(tool="issue_refund", field="notify_customer", old_default=True),
            "issue_refund",
            "notify_customer",
            "notify_customer",
            "default",
            True,
            False,
        ),
        (
            IdentifierSwap(tool="issue_refund", field="order_id", pivot=5),
            "issue_refund",
            "order_id",
            "order_id",
            "takes",
            None,
            "internal key",
        ),
    ],
)
def test_each_changing_operator_changes_what_its_field_reads_as(
    op: object, tool: str, before: str, after: str, aspect: str, was: object, now: object
) -> None:
    assert getattr(_base(tool, before), aspect) == was
    changed = _field((op,), tool, after)
    assert getattr(changed, aspect) == now
    assert aspect in _base(tool, before).differs(changed) or was is None


def test_swapped_enum_meanings_read_both_ways() -> None:
    op = EnumMeaningChange(tool="issue_refund", field="reason", a="damaged", b="late_delivery")
    assert _base("issue_refund", "reason").meanings == {}
    meanings = _field((op,), "issue_refund", "reason").meanings
    assert meanings == {"damaged": "late_delivery", "late_delivery": "damaged"}


def test_a_description_outranks_the_unit_a_name_states() -> None:
    prop = {"type": "number", "description": "Amount to refund, in dollars."}
    assert read_convention("amount_cents", prop).unit == "dollars"
    assert read_convention("amount_cents", {}).unit == "cents"


def test_free_text_statements_and_conversions() -> None:
    assert read_stated("the dollar amount x 100").unit == "cents"
    assert read_stated("as a percent, 0–100").scale == "percent"
    assert read_stated("rewording with no convention in it") == Convention()
    assert convert(2499, "cents", "dollars") == pytest.approx(24.99)
    with pytest.raises(ValueError, match="cannot convert"):
        convert(1, "cents", "seconds")


def test_each_sign_statement_stops_at_its_own_clause() -> None:
    both = read_stated("signed (positive values are credits, negative values are debits)")
    assert (both.positive, both.negative) == ("credits", "debits")
    swapped = read_stated("Negative values are credits (money in); positive values are debits.")
    assert (swapped.positive, swapped.negative) == ("debits", "credits (money in)")
