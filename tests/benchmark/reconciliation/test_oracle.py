"""The drift oracle on reconciliation: for each changing operator the family is built for (a
reversed sign convention, a fraction that becomes a percent, an invoice field that takes
another kind of identifier), a call that keeps the old reading is critical and a call that
reads the change right is not."""

from typing import Any

import pytest

from benchmark import Task, check_call
from benchmark.reconciliation import ENV_ID, Reconciliation, interface_versions
from drift import ServedInterface, ToolCall

FAMILY = Reconciliation()
TASKS = FAMILY.tasks("sealed", 16, 9)


def _served(suffix: str) -> ServedInterface:
    return ServedInterface(FAMILY.base_tools(), interface_versions()[f"{ENV_ID}@2-{suffix}"])


def _reference(kind: str) -> tuple[Task, ToolCall]:
    task = next(t for t in TASKS if t.kind == kind)
    return task, task.reference_calls[0]


def _with(call: ToolCall, **changes: Any) -> ToolCall:
    return ToolCall(name=call.name, arguments={**call.arguments, **changes})


def _swapped(invoice_id: str) -> str:
    stem, last = invoice_id.rsplit("-", 1)
    return f"{stem}-{5 - int(last)}"


def _cases() -> list[Any]:
    fee_task, post = _reference("bank_fee")
    interest_task, credit = _reference("interest_credit")
    discount_task, discounted = _reference("early_discount")
    rate = discounted.arguments["discount_rate"]
    match_task, match = _reference("match_invoice")
    invoice = match.arguments["invoice_id"]
    return [
        pytest.param(
            "sign",
            fee_task,
            post,
            _with(post, amount_cents=-post.arguments["amount_cents"]),
            id="sign-debit",
        ),
        pytest.param(
            "sign",
            interest_task,
            credit,
            _with(credit, amount_cents=-credit.arguments["amount_cents"]),
            id="sign-credit",
        ),
        pytest.param(
            "percent",
            discount_task,
            discounted,
            _with(discounted, discount_rate=round(rate * 100)),
            id="percent",
        ),
        pytest.param(
            "ids", match_task, match, _with(match, invoice_id=_swapped(invoice)), id="identifier"
        ),
    ]


@pytest.mark.parametrize(("suffix", "task", "old", "right"), _cases())
def test_the_old_reading_is_critical_and_the_right_one_is_not(
    suffix: str, task: Task, old: ToolCall, right: ToolCall
) -> None:
    served = _served(suffix)
    reference = FAMILY.effect_key(task.reference_calls[0])
    assert FAMILY.effect_key(served.to_canonical(right)) == reference
    assert check_call(FAMILY, task, served, right) is None
    flag = check_call(FAMILY, task, served, old)
    assert flag is not None
    (op,) = served.version.ops
    assert flag.operator == op.describe()
    assert FAMILY.effect_key(flag.intended) == reference
    assert FAMILY.effect_key(flag.effect) != reference


def test_a_misread_amount_under_a_reversed_sign_is_critical_and_in_the_new_one_is_not() -> None:
    task, post = _reference("bank_fee")
    misread = post.arguments["amount_cents"] - 100  # a dollar off, debit kept negative
    served = _served("sign")
    flag = check_call(FAMILY, task, served, _with(post, amount_cents=misread))
    assert flag is not None and flag.effect.arguments["amount_cents"] == -misread
    assert check_call(FAMILY, task, served, _with(post, amount_cents=-misread)) is None


def test_a_discount_far_off_in_either_scale_is_a_failure_not_critical() -> None:
    task, match = _reference("early_discount")
    served = _served("percent")
    assert check_call(FAMILY, task, served, _with(match, discount_rate=0.9)) is None


def test_another_invoice_named_by_its_internal_key_is_a_failure_not_critical() -> None:
    task, match = _reference("match_invoice")
    intended = match.arguments["invoice_id"]
    # neither the invoice asked for nor the one its display number reaches now
    other = next(
        i for i in task.initial_state["invoices"] if i not in (intended, _swapped(intended))
    )
    served = _served("ids")
    assert check_call(FAMILY, task, served, _with(match, invoice_id=_swapped(other))) is None


def test_preserving_drift_and_lookups_are_never_critical() -> None:
    task, match = _reference("match_invoice")
    args = dict(match.arguments)
    renamed = {"payment_ref": args.pop("payment_id"), **args}
    served = _served("rename")
    assert check_call(FAMILY, task, served, ToolCall(name=match.name, arguments=renamed)) is None
    lookup = ToolCall(name="get_invoice", arguments={"invoice_id": match.arguments["invoice_id"]})
    assert check_call(FAMILY, task, _served("ids"), lookup) is None
