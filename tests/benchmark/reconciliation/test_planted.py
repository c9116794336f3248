"""Planted wrong answers: the reference passes through ``end_state``, every planted answer fails
the verifier on the check it names, and over the kinds they cover every verifier check."""

import pytest

from benchmark import BenchmarkError, Planted, Task
from benchmark.reconciliation import CHECKS, KINDS, Reconciliation
from drift import ToolCall

FAMILY = Reconciliation()
TASKS = FAMILY.tasks("sealed", 2 * len(KINDS), 5)
PLANTED = [(t, p) for t in TASKS for p in FAMILY.planted(t)]


def _task(kind: str) -> Task:
    return next(t for t in TASKS if t.kind == kind)


def _planted(kind: str, name: str) -> Planted:
    return next(p for p in FAMILY.planted(_task(kind)) if p.name == name)


@pytest.mark.parametrize(
    ("task", "planted"), PLANTED, ids=[f"{t.kind}-{p.name}" for t, p in PLANTED]
)
def test_every_planted_answer_fails_on_the_check_it_targets(task: Task, planted: Planted) -> None:
    verdict = FAMILY.verify(task, FAMILY.end_state(task, planted.calls))
    assert not verdict.passed
    assert any(r.startswith(f"{planted.check}:") for r in verdict.reasons), verdict.reasons


def test_the_planted_answers_cover_every_check_with_at_least_eight_names() -> None:
    assert {p.check for _, p in PLANTED} == set(CHECKS)
    assert len({p.name for _, p in PLANTED}) >= 8
    assert all(FAMILY.planted(t) for t in TASKS)


def test_a_planted_answer_differs_from_the_reference_in_one_place() -> None:
    post, mark = _task("bank_fee").reference_calls
    sign = _planted("bank_fee", "wrong sign")
    flipped = {**post.arguments, "amount_cents": -post.arguments["amount_cents"]}
    assert sign.calls == (ToolCall(name=post.name, arguments=flipped), mark)
    assert _planted("bank_fee", "record not flagged").calls == (post,)
    assert _planted("bank_fee", "adjustment posted twice").calls == (post, post, mark)


def test_a_discount_is_planted_at_the_wrong_scale_and_left_out() -> None:
    (match,) = _task("early_discount").reference_calls
    rate = match.arguments["discount_rate"]
    (scaled,) = _planted("early_discount", "wrong discount scale").calls
    assert scaled.arguments["discount_rate"] == pytest.approx(rate / 100)
    (dropped,) = _planted("early_discount", "discount left out").calls
    assert "discount_rate" not in dropped.arguments
    assert not any(p.name == "discount left out" for p in FAMILY.planted(_task("match_invoice")))


def test_wrong_records_are_other_real_records_of_the_task() -> None:
    task = _task("match_invoice")
    (right,) = task.reference_calls
    (wrong,) = _planted("match_invoice", "wrong invoice").calls
    assert wrong.arguments["invoice_id"] != right.arguments["invoice_id"]
    assert wrong.arguments["invoice_id"] in task.initial_state["invoices"]
    merge_task = _task("merge_duplicates")
    (merge,) = merge_task.reference_calls
    (other,) = _planted("merge_duplicates", "wrong duplicate merged").calls
    assert other.arguments["duplicate_id"] in merge_task.initial_state["customers"]
    assert other.arguments["duplicate_id"] not in merge.arguments.values()


def test_a_payment_to_flag_gets_applied_to_an_invoice_as_a_side_effect() -> None:
    task = _task("unidentified_payment")
    extra = _planted("unidentified_payment", "flagged payment applied")
    assert extra.calls[: len(task.reference_calls)] == task.reference_calls
    assert [c.name for c in extra.calls] == ["flag_record", "match_payment"]


def test_end_state_names_the_call_the_backend_refuses() -> None:
    task = _task("merge_duplicates")
    (merge,) = task.reference_calls
    with pytest.raises(BenchmarkError, match=r"call 2 \(merge_customers\) refused.*already merged"):
        FAMILY.end_state(task, [merge, merge])
