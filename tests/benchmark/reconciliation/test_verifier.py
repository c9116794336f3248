"""The reconciliation verifier: the reference of every kind passes, a wrong end state fails
with reasons that start with the check that found them; effect keys tell apart what drift can
change."""

import pytest

from benchmark import Task
from benchmark.reconciliation import CHECKS, KINDS, Reconciliation
from benchmark.reconciliation._verifier import compare_states, effect_key
from drift import ToolCall

FAMILY = Reconciliation()
TASKS = FAMILY.tasks("sealed", 2 * len(KINDS), 11)


def _task(kind: str) -> Task:
    return next(t for t in TASKS if t.kind == kind)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.kind)
def test_the_reference_solution_of_every_kind_passes(task: Task) -> None:
    verdict = FAMILY.verify(task, FAMILY.end_state(task, task.reference_calls))
    assert verdict.passed and verdict.reasons == ()


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.kind)
def test_doing_nothing_fails_with_reasons_that_name_their_check(task: Task) -> None:
    verdict = FAMILY.verify(task, task.initial_state)
    assert not verdict.passed
    assert all(r.split(":")[0] in CHECKS for r in verdict.reasons), verdict.reasons


def test_a_ledger_task_fails_on_each_part_it_gets_wrong() -> None:
    task = _task("bank_fee")
    post, mark = task.reference_calls
    credit = ToolCall(name=post.name, arguments={**post.arguments, "amount_cents": 1})
    verdict = FAMILY.verify(task, FAMILY.end_state(task, [credit]))
    assert [r.split(":")[0] for r in verdict.reasons] == ["adjustments", "accounts", "flags"]
    assert mark.arguments["record_id"] in verdict.reasons[-1]


def test_records_compare_as_multisets_and_tables_by_id() -> None:
    task = _task("match_invoice")
    want = FAMILY.end_state(task, task.reference_calls)
    twice = FAMILY.end_state(task, [*task.reference_calls, *task.reference_calls])
    reasons = compare_states(want, twice).reasons
    assert reasons[0].startswith("matches: unexpected [(") and "missing []" in reasons[0]
    assert any(r.startswith("invoices:") and "'overpaid'" in r for r in reasons)
    gone = {**want, "invoices": {}}
    assert any(r.endswith("missing") for r in compare_states(want, gone).reasons)


def test_effect_keys_fill_in_the_default_discount_and_ignore_memos() -> None:
    match = ToolCall(
        name="match_payment",
        arguments={"invoice_id": "INV-1-1", "payment_id": "PAY-1-2", "amount_cents": 500},
    )
    assert effect_key(match) == ("match_payment", "INV-1-1", "PAY-1-2", 500, 0.0)
    discounted = ToolCall(name=match.name, arguments={**match.arguments, "discount_rate": 0.02})
    assert effect_key(discounted) != effect_key(match)
    post = ToolCall(name="post_adjustment", arguments={"account_id": "ACC-1", "amount_cents": -5})
    with_memo = ToolCall(name=post.name, arguments={**post.arguments, "memo": "bank fee"})
    assert effect_key(post) == effect_key(with_memo) == ("post_adjustment", "ACC-1", -5)
    flag = ToolCall(name="flag_record", arguments={"record_id": "PAY-1-1", "flag": "duplicate"})
    assert effect_key(flag) == ("flag_record", "PAY-1-1", "duplicate")
