"""The support-ops generator: seeded, every kind and phrasing drawn, ids that make id drift bite."""

import re

import pytest

from benchmark import Task
from benchmark.support_ops import ACCOUNT_KINDS, KINDS, REFUND_KINDS, TICKET_KINDS, SupportOps
from benchmark.support_ops._phrasings import PHRASINGS
from drift import IdentifierSwap, ToolCall

FAMILY = SupportOps()
SEALED = FAMILY.tasks("sealed", 40, 3)


def _phrasings(task: Task) -> list[int]:
    """The phrasings of its kind that ``task``'s instruction fills in."""
    out = []
    for i, template in enumerate(PHRASINGS[task.kind]):
        pattern = re.sub(r"\\\{\w+\\\}", ".+?", re.escape(template))
        if re.fullmatch(pattern, task.instruction):
            out.append(i)
    return out


def _number(task: Task) -> str:
    (ticket_id,) = task.initial_state["tickets"]
    return ticket_id.removeprefix("TCK-")


def test_generation_is_deterministic() -> None:
    assert FAMILY.tasks("sealed", 8, 42) == FAMILY.tasks("sealed", 8, 42)


def test_sealed_split_depends_on_the_cycle_seed_and_dev_does_not() -> None:
    assert FAMILY.tasks("sealed", 8, 1) != FAMILY.tasks("sealed", 8, 2)
    assert FAMILY.tasks("dev", 8, 1) == FAMILY.tasks("dev", 8, 2)


def test_dev_and_sealed_share_no_instance() -> None:
    dev, sealed = FAMILY.tasks("dev", 40, 7), FAMILY.tasks("sealed", 40, 7)
    assert not {t.instruction for t in dev} & {t.instruction for t in sealed}
    dev_orders = {o for t in dev for o in t.initial_state["orders"]}
    sealed_orders = {o for t in sealed for o in t.initial_state["orders"]}
    assert not dev_orders & sealed_orders
    assert len({t.id for t in dev + sealed}) == 80


def test_the_kinds_are_refunds_account_changes_and_ticket_resolution() -> None:
    assert set(KINDS) == set(REFUND_KINDS) | set(ACCOUNT_KINDS) | set(TICKET_KINDS)
    assert len(KINDS) == len(REFUND_KINDS) + len(ACCOUNT_KINDS) + len(TICKET_KINDS)


def test_every_kind_appears_in_24_tasks() -> None:
    assert {t.kind for t in FAMILY.tasks("sealed", 24, 5)} == set(KINDS)


def test_every_instruction_fills_in_exactly_one_phrasing_of_its_kind() -> None:
    assert all(len(_phrasings(t)) == 1 for t in SEALED)


def test_every_kind_is_asked_in_at_least_two_phrasings() -> None:
    for kind in KINDS:
        assert len({tuple(_phrasings(t)) for t in SEALED if t.kind == kind}) >= 2, kind


@pytest.mark.parametrize("task", SEALED, ids=lambda t: t.id)
def test_ids_follow_the_scheme_and_every_customer_has_four_orders(task: Task) -> None:
    n = _number(task)
    state = task.initial_state
    expected_orders = [f"ORD-{n}-{j}" for j in (1, 2, 3, 4)]
    assert list(state["customers"]) == [f"CUS-{n}"]
    assert list(state["orders"]) == expected_orders
    assert state["customers"][f"CUS-{n}"]["order_ids"] == expected_orders
    assert all(o["customer_id"] == f"CUS-{n}" for o in state["orders"].values())


def test_a_pivot_5_id_swap_maps_every_order_to_another_order_of_the_same_customer() -> None:
    swap = IdentifierSwap(tool="get_order", field="order_id", pivot=5)
    for task in SEALED:
        orders = set(task.initial_state["orders"])
        for order_id in orders:
            call = ToolCall(name="get_order", arguments={"order_id": order_id})
            swapped = swap.call_to_new(call).arguments["order_id"]
            assert swapped in orders and swapped != order_id


@pytest.mark.parametrize("task", SEALED, ids=lambda t: t.id)
def test_instructions_name_what_the_reference_acts_on(task: Task) -> None:
    (customer,) = task.initial_state["customers"].values()
    text = task.instruction
    assert f"TCK-{_number(task)}" in text
    assert customer["customer_id"] not in text  # found through the email
    if task.kind in ACCOUNT_KINDS or task.kind == "damaged_by_email":
        assert customer["email"] in text
    if task.kind in REFUND_KINDS:
        order_id = task.reference_calls[0].arguments["order_id"]
        assert (order_id in text) == (task.kind != "damaged_by_email")


def _calls(kind: str) -> list[tuple[Task, tuple[ToolCall, ...]]]:
    return [(t, t.reference_calls) for t in SEALED if t.kind == kind]


def test_refunds_are_of_a_positive_amount_on_the_customers_order_then_close_as_refunded() -> None:
    for kind in REFUND_KINDS:
        for task, (refund, close) in _calls(kind):
            assert refund.name == "issue_refund" and refund.arguments["amount_cents"] > 0
            assert "notify_customer" not in refund.arguments  # the default is the reference
            assert refund.arguments["order_id"] in task.initial_state["orders"]
            assert close.arguments["resolution"] == "refunded"
    for _task, (refund, _) in _calls("damaged_by_email"):
        assert refund.arguments["order_id"].endswith("-4")  # the most recent order


def test_a_duplicate_charge_states_the_amount_refunded() -> None:
    for task, (refund, _) in _calls("duplicate_charge"):
        assert f"${refund.arguments['amount_cents'] / 100:.2f}" in task.instruction


@pytest.mark.parametrize(
    ("kind", "word", "sign"), [("account_credit", "credit", 1), ("account_debit", "debit", -1)]
)
def test_balance_adjustments_say_credit_or_debit_and_carry_that_sign(
    kind: str, word: str, sign: int
) -> None:
    assert all(word in p.lower() for p in PHRASINGS[kind])
    for task, (adjust, close) in _calls(kind):
        amount = adjust.arguments["amount_cents"]
        assert adjust.name == "adjust_balance" and amount * sign > 0
        assert f"${abs(amount) / 100:.2f}" in task.instruction
        assert close.arguments["resolution"] == "account_updated"


def test_an_email_change_sets_the_new_address_stated_after_the_old_one() -> None:
    for task, (update, close) in _calls("change_email"):
        (customer,) = task.initial_state["customers"].values()
        new = update.arguments["email"]
        assert update.arguments["customer_id"] == customer["customer_id"]
        assert new != customer["email"]
        assert task.instruction.index(customer["email"]) < task.instruction.index(new)
        assert close.arguments["resolution"] == "account_updated"


def test_a_loyalty_discount_sets_the_stated_percent_as_a_fraction() -> None:
    for task, (discount, _) in _calls("loyalty_discount"):
        rate = discount.arguments["rate"]
        assert rate in (0.05, 0.1, 0.15, 0.2, 0.25)
        assert f"{round(rate * 100)}% loyalty discount" in task.instruction


def test_an_escalation_schedules_the_stated_utc_time_then_closes_as_escalated() -> None:
    for task, (callback, close) in _calls("escalate_callback"):
        day, time = callback.arguments["callback_at"].split("T")
        assert day in task.instruction and f"{time[:5]} UTC" in task.instruction
        assert close.arguments == {
            "ticket_id": callback.arguments["ticket_id"],
            "resolution": "escalated",
        }


def test_a_withdrawn_complaint_is_closed_with_no_action_and_nothing_else() -> None:
    assert any("do not issue a refund" in p.lower() for p in PHRASINGS["withdrawn"])
    for task, calls in _calls("withdrawn"):
        assert [(c.name, c.arguments["resolution"]) for c in calls] == [
            ("close_ticket", "no_action")
        ]
        assert task.initial_state["tickets"][calls[0].arguments["ticket_id"]]["order_id"] in (
            task.instruction
        )
