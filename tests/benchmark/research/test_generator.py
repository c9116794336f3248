"""The research generator: seeded, disjoint splits, every kind and phrasing drawn, collections
of varying size with near-duplicates, ids that make a document-key swap land on a distractor."""

from __future__ import annotations

import re
from collections import Counter
from difflib import SequenceMatcher
from typing import Any

import pytest

from benchmark import BenchmarkError, Task
from benchmark.research import KINDS, ResearchEvidence
from benchmark.research._phrasings import PHRASINGS
from benchmark.research._verifier import tokens
from drift import IdentifierSwap, ToolCall

FAMILY = ResearchEvidence()
SEALED = FAMILY.tasks("sealed", 40, 3)


def _phrasings(task: Task) -> list[int]:
    """The phrasings of its kind that ``task``'s instruction fills in."""
    out = []
    for i, template in enumerate(PHRASINGS[task.kind]):
        pattern = re.sub(r"\\\{\w+\\\}", ".+?", re.escape(template))
        if re.fullmatch(pattern, task.instruction):
            out.append(i)
    return out


def _claim(task: Task) -> dict[str, Any]:
    return dict(task.reference_calls[0].arguments)


def _docs(task: Task) -> dict[str, dict[str, Any]]:
    return dict(task.initial_state["documents"])


def _one_detail_off(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one detail replaced: a year, a figure, a name (at most
    two words)."""
    ops = SequenceMatcher(None, tokens(a), tokens(b), autojunk=False).get_opcodes()
    changed = [(op, i2 - i1, j2 - j1) for op, i1, i2, j1, j2 in ops if op != "equal"]
    return len(changed) == 1 and changed[0][0] == "replace" and max(changed[0][1:]) <= 2


def near_duplicates(task: Task) -> list[str]:
    """Documents other than the source with a passage that differs from the cited quote in
    one detail."""
    claim = _claim(task)
    return [
        doc_id
        for doc_id, doc in _docs(task).items()
        if doc_id != claim["doc_id"]
        and any(_one_detail_off(claim["quote"], p["text"]) for p in doc["passages"])
    ]


def test_generation_is_deterministic() -> None:
    assert FAMILY.tasks("sealed", 8, 42) == FAMILY.tasks("sealed", 8, 42)


def test_sealed_splits_depend_on_the_cycle_seed_and_dev_does_not() -> None:
    assert FAMILY.tasks("sealed", 8, 1) != FAMILY.tasks("sealed", 8, 2)
    assert FAMILY.tasks("dev", 8, 1) == FAMILY.tasks("dev", 8, 2)


def test_the_splits_share_no_task_document_or_question_with_its_answer() -> None:
    splits = {s: FAMILY.tasks(s, 40, 7) for s in FAMILY.splits}
    assert set(splits) == {"dev", "sealed", "adapt", "examples"}
    assert FAMILY.examples_split == "examples"
    ids = [t.id for tasks in splits.values() for t in tasks]
    assert len(set(ids)) == len(ids) == 160
    for a in splits:
        for b in splits:
            if a < b:
                docs_a = {d for t in splits[a] for d in _docs(t)}
                docs_b = {d for t in splits[b] for d in _docs(t)}
                assert not docs_a & docs_b, (a, b)
                asked_a = {(t.instruction, _claim(t)["answer"]) for t in splits[a]}
                assert not asked_a & {(t.instruction, _claim(t)["answer"]) for t in splits[b]}


def test_unknown_splits_and_indices_are_refused() -> None:
    with pytest.raises(BenchmarkError, match="no split 'test'"):
        FAMILY.generate("test", 0, 1)
    with pytest.raises(BenchmarkError, match="out of range"):
        FAMILY.generate("dev", 10000, 1)


def test_every_kind_appears_in_four_tasks_in_two_phrasings_over_forty() -> None:
    assert len(KINDS) >= 3
    assert [t.kind for t in SEALED[:4]] == list(KINDS)
    assert all(len(_phrasings(t)) == 1 for t in SEALED)
    for kind in KINDS:
        assert {_phrasings(t)[0] for t in SEALED if t.kind == kind} == {0, 1}, kind
        assert len(PHRASINGS[kind]) >= 2


def test_difficulty_varies_in_documents_and_near_duplicates() -> None:
    sizes = Counter(len(_docs(t)) for t in SEALED)
    near = Counter(len(near_duplicates(t)) for t in SEALED)
    assert set(sizes) == {4, 6, 8}, sizes
    assert {1, 2, 3} <= set(near), near
    assert max(near) <= 3


@pytest.mark.parametrize("task", SEALED, ids=lambda t: t.id)
def test_the_collection_answers_once_and_the_reference_cites_it(task: Task) -> None:
    claim, submit = task.reference_calls
    assert (claim.name, submit.name, submit.arguments) == ("add_claim", "submit_answer", {})
    docs, question = _docs(task), task.initial_state["question"]
    source = docs[claim.arguments["doc_id"]]
    assert claim.arguments["quote"] in [p["text"] for p in source["passages"]]
    answering = [
        (doc_id, p["text"])
        for doc_id, doc in docs.items()
        if doc["status"] == "current"
        for p in doc["passages"]
        if all(re.search(rf"\b{re.escape(term)}\b", p["text"]) for term in question["terms"])
    ]
    assert answering == [(source["doc_id"], claim.arguments["quote"])]
    if question["answer_in"] == "publisher":
        assert claim.arguments["answer"] == source["publisher"]
    else:
        assert claim.arguments["answer"] in claim.arguments["quote"]
    assert claim.arguments["stance"] == ("contradicts" if task.kind == "check" else "supports")


@pytest.mark.parametrize("task", SEALED, ids=lambda t: t.id)
def test_a_key_swap_turns_the_source_into_a_near_duplicate(task: Task) -> None:
    swap = IdentifierSwap(tool="add_claim", field="doc_id", pivot=9)
    docs = _docs(task)
    number = task.id.split("/")[-1][:4]
    assert all(re.fullmatch(rf"SRC-{int(number) + 50000}-[1-8]", d) for d in docs)

    def key(doc_id: str) -> str:
        call = ToolCall(name="add_claim", arguments={"doc_id": doc_id})
        return str(swap.call_to_new(call).arguments["doc_id"])

    assert {key(d) for d in docs} == set(docs)  # closed under the swap
    assert key(_claim(task)["doc_id"]) in near_duplicates(task)


def test_the_kinds_draw_their_near_duplicates() -> None:
    for task in SEALED:
        docs = _docs(task)
        superseded = [d for d in docs.values() if d["status"] == "superseded"]
        assert all(d["superseded_by"] == _claim(task)["doc_id"] for d in superseded)
        if task.kind == "check":  # the draft's figure is the superseded edition's
            (edition,) = superseded
            wrong = re.search(r"\d{1,3}(?:,\d{3})+", task.instruction)
            assert wrong is not None
            assert any(wrong.group() in p["text"] for p in edition["passages"])
            assert wrong.group() != _claim(task)["answer"]
        if task.kind == "source":  # another publisher gives another figure for the same year
            publishers = {docs[d]["publisher"] for d in near_duplicates(task)}
            assert publishers - {docs[_claim(task)["doc_id"]]["publisher"]}
