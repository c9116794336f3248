"""The research verifier: the reference passes for every kind, each rule catches what it
names, the rubric counts its three checks, and effect keys carry the fields drift changes."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark import Task
from benchmark.research import KINDS, ResearchEvidence
from benchmark.research._verifier import CHECKS, RUBRIC, grade, states
from drift import ToolCall

FAMILY = ResearchEvidence()
TASKS = FAMILY.tasks("sealed", 24, 11)


def _task(kind: str) -> Task:
    return next(t for t in TASKS if t.kind == kind)


def _claim(task: Task, **changes: Any) -> ToolCall:
    return ToolCall(name="add_claim", arguments={**task.reference_calls[0].arguments, **changes})


def _submitted(task: Task, *claims: ToolCall) -> dict[str, Any]:
    return FAMILY.end_state(task, [*claims, ToolCall(name="submit_answer", arguments={})])


def _failed(task: Task, state: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    return grade(task.reference_calls, state).failures


@pytest.mark.parametrize("task", TASKS, ids=lambda t: f"{t.kind}-{t.index}")
def test_the_reference_passes_for_every_kind(task: Task) -> None:
    verdict = FAMILY.verify(task, FAMILY.end_state(task, task.reference_calls))
    assert verdict.passed, verdict.reasons
    assert verdict.reasons == ()


def test_every_kind_is_graded() -> None:
    assert {t.kind for t in TASKS} == set(KINDS)


def test_a_failing_answer_names_each_check_and_ends_with_the_rubric() -> None:
    task = _task("figure")
    docs = task.initial_state["documents"]
    elsewhere = next(d for d in docs if d != task.reference_calls[0].arguments["doc_id"])
    claim = _claim(task, doc_id=elsewhere, stance="contradicts")
    verdict = FAMILY.verify(task, FAMILY.end_state(task, [claim]))
    assert not verdict.passed
    assert [r.split(":")[0] for r in verdict.reasons[:-1]] == [
        "submitted",
        "citation",
        "distractor",
        "stance",
    ]
    assert verdict.reasons[-1].startswith("rubric 0.67 (")
    assert all(r.split(":")[0] in CHECKS for r in verdict.reasons[:-1])


def test_the_rubric_is_the_share_of_its_checks_that_hold() -> None:
    task = _task("date")
    assert RUBRIC == ("complete", "support", "distractor")
    assert grade(task.reference_calls, _submitted(task, _claim(task))).rubric == 1.0
    assert grade(task.reference_calls, _submitted(task)).rubric == pytest.approx(2 / 3)
    state = _submitted(task, _claim(task, quote="opened"))
    assert grade(task.reference_calls, state).rubric == pytest.approx(2 / 3)
    assert "support" in grade(task.reference_calls, state).failures


def test_a_quote_must_be_verbatim_from_the_cited_document() -> None:
    task = _task("figure")
    quote = str(task.reference_calls[0].arguments["quote"])
    assert _failed(task, _submitted(task, _claim(task, quote=quote.lower()))).keys() == {"citation"}
    part = quote.rstrip(".")  # a shorter span is still verbatim
    assert "citation" not in _failed(task, _submitted(task, _claim(task, quote=part)))


def test_support_needs_the_terms_and_the_answer_in_the_quote() -> None:
    task = _task("check")
    terms = task.initial_state["question"]["terms"]
    quote = str(task.reference_calls[0].arguments["quote"])
    value = str(task.reference_calls[0].arguments["answer"])
    tail = quote[quote.index(value) :]
    failures = _failed(task, _submitted(task, _claim(task, quote=tail)))
    assert set(failures) == {"support"}
    assert terms[0] in failures["support"][0]


def test_a_source_answer_must_name_the_cited_documents_publisher() -> None:
    task = _task("source")
    publisher = str(task.reference_calls[0].arguments["answer"])
    longer = _claim(task, answer=f"the {publisher}, in its annual profile")
    assert not _failed(task, _submitted(task, longer))
    other = next(
        d["publisher"]
        for d in task.initial_state["documents"].values()
        if d["publisher"] != publisher
    )
    assert set(_failed(task, _submitted(task, _claim(task, answer=other)))) == {
        "support",
        "answer",
    }


def test_citing_another_document_is_a_distractor_even_when_the_quote_is_verbatim() -> None:
    task = _task("figure")
    docs = task.initial_state["documents"]
    source = task.reference_calls[0].arguments["doc_id"]
    other_id, other = next((k, d) for k, d in docs.items() if k != source)
    claim = _claim(task, doc_id=other_id, quote=other["passages"][0]["text"])
    failures = _failed(task, _submitted(task, claim))
    assert "citation" not in failures
    assert other_id in failures["distractor"][0]


@pytest.mark.parametrize(
    ("answer", "expected", "ok"),
    [
        ("41,200", "41,200", True),
        ("41200", "41,200", True),
        ("41,200 residents in 2019", "41,200", True),
        ("about 41,200", "41,200", True),
        ("41,200 or 41,800", "41,200", False),
        ("41,800", "41,200", False),
        ("4,120", "41,200", False),
        ("The Westmoor Gazette", "The Westmoor Gazette", True),
        ("the westmoor gazette", "The Westmoor Gazette", True),
        ("Westmoor County Council", "The Westmoor Gazette", False),
    ],
)
def test_an_answer_states_the_expected_value_and_no_other_figure(
    answer: str, expected: str, ok: bool
) -> None:
    assert states(answer, expected, ("Avonford", "2019", "residents")) is ok


def test_effect_keys_carry_every_field_of_the_claim() -> None:
    claim = _task("date").reference_calls[0]
    args = claim.arguments
    key = FAMILY.effect_key(claim)
    assert key == ("add_claim", args["answer"], args["doc_id"], args["quote"], args["stance"])
    uncited = ToolCall(name="add_claim", arguments={"answer": "1931", "stance": "supports"})
    assert FAMILY.effect_key(uncited) == ("add_claim", "1931", None, None, "supports")
    assert FAMILY.effect_key(ToolCall(name="submit_answer", arguments={})) == ("submit_answer",)
