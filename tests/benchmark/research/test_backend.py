"""The research backend: search leaves superseded editions out unless asked, documents read
whole, claims drafted as given until the answer is submitted, and refusals that say why."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark import Task
from benchmark.research import ResearchEvidence
from benchmark.research._backend import Backend, BackendError

FAMILY = ResearchEvidence()
CHECK = next(t for t in FAMILY.tasks("dev", 8, 0) if t.kind == "check")


def _backend(task: Task = CHECK) -> Backend:
    return Backend(task.initial_state)


def _superseded(task: Task = CHECK) -> dict[str, Any]:
    return next(d for d in task.initial_state["documents"].values() if d["status"] == "superseded")


def test_search_returns_passages_with_the_query_words_best_first() -> None:
    town, _, metric = CHECK.initial_state["question"]["terms"]
    hits = _backend().call("search_documents", {"query": f"{town} {metric}"})["hits"]
    assert all(town in h["text"] or metric in h["text"] for h in hits)
    assert set(hits[0]) == {"document", "title", "passage", "text"}
    both = [h for h in hits if town in h["text"] and metric in h["text"]]
    assert both and len(both) < len(hits)
    assert hits[: len(both)] == both  # passages with both words rank first


def test_superseded_editions_are_searched_only_when_asked() -> None:
    town = CHECK.initial_state["question"]["terms"][0]
    edition = _superseded()["doc_id"]
    default = _backend().call("search_documents", {"query": town})["hits"]
    every = _backend().call("search_documents", {"query": town, "include_superseded": True})
    assert edition not in {h["document"] for h in default}
    assert edition in {h["document"] for h in every["hits"]}


def test_read_document_shows_status_and_numbered_passages() -> None:
    doc = _backend().call("read_document", {"doc_id": _superseded()["doc_id"]})
    assert doc["status"] == "superseded"
    assert doc["superseded_by"] == CHECK.reference_calls[0].arguments["doc_id"]
    assert [p["n"] for p in doc["passages"]] == list(range(1, len(doc["passages"]) + 1))


def test_claims_are_drafted_as_given_then_submitted() -> None:
    backend = _backend()
    claim = dict(CHECK.reference_calls[0].arguments)
    drafted = backend.call("add_claim", {**claim, "quote": "not even in the document"})
    assert drafted["claim"] == 1 and drafted["status"] == "drafted"
    backend.call("add_claim", {"answer": "41,200", "stance": "supports"})  # uncited
    assert backend.call("submit_answer", {}) == {"status": "submitted", "claims": 2}
    state = backend.dump()
    assert state["submitted"] is True
    assert state["claims"][1] == {
        "answer": "41,200",
        "doc_id": None,
        "quote": None,
        "stance": "supports",
    }


@pytest.mark.parametrize(
    ("calls", "error"),
    [
        ([("read_document", {"doc_id": "SRC-1-1"})], "no document 'SRC-1-1'"),
        ([("add_claim", {"answer": "1", "stance": "supports", "doc_id": "X"})], "no document"),
        ([("search_documents", {"query": "the of"})], "no words to look for"),
        ([("submit_answer", {}), ("submit_answer", {})], "already submitted"),
        (
            [("submit_answer", {}), ("add_claim", {"answer": "1", "stance": "supports"})],
            "already submitted",
        ),
        ([("delete_document", {})], "unknown tool"),
    ],
)
def test_refusals_say_why(calls: list[tuple[str, dict[str, Any]]], error: str) -> None:
    backend = _backend()
    *before, (tool, args) = calls
    for name, arguments in before:
        backend.call(name, arguments)
    with pytest.raises(BackendError, match=error):
        backend.call(tool, args)
