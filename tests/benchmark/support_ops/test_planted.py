"""Planted wrong answers: the reference passes through ``end_state``, every planted answer fails
the verifier for the reason it names, and over the kinds they cover every verifier check."""

import pytest

from benchmark import BenchmarkError, Planted, Task
from benchmark.support_ops import KINDS, SupportOps
from benchmark.support_ops._planted import CHECKS
from drift import ToolCall

FAMILY = SupportOps()
TASKS = FAMILY.tasks("sealed", len(KINDS), 5)
PLANTED = [(t, p) for t in TASKS for p in FAMILY.planted(t)]


def _task(kind: str) -> Task:
    return next(t for t in TASKS if t.kind == kind)


def _planted(kind: str, name: str) -> Planted:
    return next(p for p in FAMILY.planted(_task(kind)) if p.name == name)


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.kind)
def test_the_reference_calls_pass(task: Task) -> None:
    assert FAMILY.verify(task, FAMILY.end_state(task, task.reference_calls)).passed


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


def test_a_planted_answer_differs_from_the_reference_in_one_place() -> None:
    refund, close = _task("damaged_item").reference_calls
    unit = _planted("damaged_item", "wrong unit")
    assert unit.calls == (
        ToolCall(
            name="issue_refund",
            arguments={**refund.arguments, "amount_cents": refund.arguments["amount_cents"] * 100},
        ),
        close,
    )
    assert _planted("damaged_item", "ticket left open").calls == (refund,)
    assert _planted("damaged_item", "issue_refund repeated").calls == (refund, refund, close)


def test_wrong_order_is_another_real_order_of_the_customer() -> None:
    task = _task("late_delivery")
    right = task.reference_calls[0].arguments["order_id"]
    wrong = _planted("late_delivery", "wrong order").calls[0].arguments["order_id"]
    assert wrong != right
    assert wrong in task.initial_state["customers"][f"CUS-{right.split('-')[1]}"]["order_ids"]


def test_a_withdrawn_ticket_gets_a_refund_nobody_asked_for() -> None:
    task = _task("withdrawn")
    extra = _planted("withdrawn", "refund nobody asked for")
    assert [c.name for c in extra.calls] == ["issue_refund", "close_ticket"]
    assert extra.calls[1:] == task.reference_calls


def test_end_state_names_the_call_the_backend_refuses() -> None:
    task = _task("withdrawn")
    close = task.reference_calls[0]
    with pytest.raises(BenchmarkError, match=r"call 2 \(close_ticket\) refused.*already closed"):
        FAMILY.end_state(task, [close, close])
