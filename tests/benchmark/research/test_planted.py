"""Planted wrong answers: the reference passes through ``end_state``, every planted answer fails
the verifier on the check it targets, and over the kinds they cover every check with at least
eight names."""

from __future__ import annotations

import pytest

from benchmark import BenchmarkError, Planted, Task
from benchmark.research import KINDS, ResearchEvidence
from benchmark.research._verifier import CHECKS
from drift import ToolCall

FAMILY = ResearchEvidence()
TASKS = FAMILY.tasks("sealed", 2 * len(KINDS), 5)
PLANTED = [(t, p) for t in TASKS for p in FAMILY.planted(t)]


def _planted(task: Task, name: str) -> Planted:
    return next(p for p in FAMILY.planted(task) if p.name == name)


@pytest.mark.parametrize(
    ("task", "planted"), PLANTED, ids=[f"{t.kind}-{t.index}-{p.name}" for t, p in PLANTED]
)
def test_every_planted_answer_fails_on_the_check_it_targets(task: Task, planted: Planted) -> None:
    verdict = FAMILY.verify(task, FAMILY.end_state(task, planted.calls))
    assert not verdict.passed
    assert any(r.startswith(f"{planted.check}: ") for r in verdict.reasons), verdict.reasons


def test_the_planted_answers_cover_every_check_with_at_least_eight_names() -> None:
    assert {p.check for _, p in PLANTED} == set(CHECKS)
    assert len({p.name for _, p in PLANTED}) >= 8
    for task in TASKS:  # every task plants all of them
        assert len({p.name for p in FAMILY.planted(task)}) == len({p.name for _, p in PLANTED})


def test_a_planted_answer_differs_from_the_reference_in_one_place() -> None:
    task = TASKS[0]
    claim, submit = task.reference_calls
    args = claim.arguments
    assert _planted(task, "answer not submitted").calls == (claim,)
    assert _planted(task, "missing claim").calls == (submit,)
    misquoted, _ = _planted(task, "misquoted span").calls
    assert misquoted.arguments["quote"].replace("about ", "") == args["quote"]
    uncited, _ = _planted(task, "uncited claim").calls
    assert uncited.arguments == {"answer": args["answer"], "stance": args["stance"]}
    first, extra, last = _planted(task, "extra unsupported claim").calls
    assert (first, last) == (claim, submit)
    assert extra.arguments["quote"] != args["quote"]
    assert {k: v for k, v in extra.arguments.items() if k != "quote"} == {
        k: v for k, v in args.items() if k != "quote"
    }


def test_a_wrong_document_id_is_the_key_swap_of_the_source() -> None:
    for task in TASKS:
        source = task.reference_calls[0].arguments["doc_id"]
        wrong, _ = _planted(task, "wrong document id").calls
        stem, number = source.rsplit("-", 1)
        assert wrong.arguments["doc_id"] == f"{stem}-{9 - int(number)}"
        assert wrong.arguments["doc_id"] in task.initial_state["documents"]


def test_a_distractor_span_is_quoted_verbatim_from_that_document() -> None:
    for task in TASKS:
        cited, _ = _planted(task, "span from a distractor").calls
        doc = task.initial_state["documents"][cited.arguments["doc_id"]]
        assert cited.arguments["quote"] in [p["text"] for p in doc["passages"]]


def test_end_state_names_the_call_the_backend_refuses() -> None:
    task = TASKS[0]
    submit = ToolCall(name="submit_answer", arguments={})
    with pytest.raises(BenchmarkError, match=r"call 2 \(submit_answer\) refused.*already"):
        FAMILY.end_state(task, [submit, submit])
