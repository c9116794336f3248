"""The drift oracle flags an effect that only the old meaning explains."""

from benchmark import check_call, family, served_interface
from drift import ToolCall

FAMILY = family("support_ops")
TASK = FAMILY.tasks("sealed", 1, 9)[0]
REFUND = TASK.reference_calls[0]
CENTS = REFUND.arguments["amount_cents"]


def _units_call(amount: float) -> ToolCall:
    args = {k: v for k, v in REFUND.arguments.items() if k != "amount_cents"}
    return ToolCall(name="issue_refund", arguments={**args, "amount": amount})


def test_old_unit_is_critical_and_new_unit_is_not() -> None:
    served = served_interface("support-ops", "support-ops@2-units")
    flag = check_call(FAMILY, TASK, served, _units_call(CENTS))
    assert flag is not None
    assert flag.intended.arguments["amount_cents"] == CENTS
    assert flag.effect.arguments["amount_cents"] == CENTS * 100
    assert "dollars" in flag.operator
    assert check_call(FAMILY, TASK, served, _units_call(CENTS / 100)) is None


def test_wrong_amount_that_no_old_reading_explains_is_not_critical() -> None:
    served = served_interface("support-ops", "support-ops@2-units")
    assert check_call(FAMILY, TASK, served, _units_call(CENTS + 7)) is None


def test_preserving_drift_and_reads_are_never_critical() -> None:
    served = served_interface("support-ops", "support-ops@2-rename")
    args = dict(REFUND.arguments)
    renamed = {"order_number": args.pop("order_id"), **args}
    assert (
        check_call(FAMILY, TASK, served, ToolCall(name="issue_refund", arguments=renamed)) is None
    )
    units = served_interface("support-ops", "support-ops@2-units")
    read = ToolCall(name="get_order", arguments={"order_id": REFUND.arguments["order_id"]})
    assert check_call(FAMILY, TASK, units, read) is None
