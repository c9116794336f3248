"""The canonical research backend. Standard library only: it also runs inside sandboxes.

State: ``documents`` by display id (in collection order), the ``question``'s grading terms
(never shown by a tool), the drafted ``claims`` and whether the answer was ``submitted``. The
backend records a claim as given: like a submission form, it checks that a cited document
exists, not that the citation holds (the verifier does).
"""

from __future__ import annotations

import copy
import re
from typing import Any

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset({"the", "and", "for", "was", "did", "how", "many", "which", "what", "when"})


class BackendError(Exception):
    """A call the backend refuses (unknown document, empty query, answer already submitted)."""


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _STOP}


class Backend:
    """A frozen document collection, and the answer drafted and submitted about it."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = copy.deepcopy(state)
        self.state.setdefault("claims", [])
        self.state.setdefault("submitted", False)

    def dump(self) -> dict[str, Any]:
        """A deep copy of the current state."""
        return copy.deepcopy(self.state)

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        """Run canonical tool ``tool`` with ``args``."""
        handler = getattr(self, "_tool_" + tool, None)
        if handler is None:
            raise BackendError(f"unknown tool {tool!r}")
        return handler(**args)

    def _document(self, doc_id: str) -> dict[str, Any]:
        doc = self.state["documents"].get(doc_id)
        if doc is None:
            raise BackendError(f"no document {doc_id!r} in the collection")
        return doc

    def _open(self) -> None:
        if self.state["submitted"]:
            raise BackendError("the answer is already submitted")

    def _tool_search_documents(
        self, query: str, include_superseded: bool = False
    ) -> dict[str, Any]:
        wanted = _words(query)
        if not wanted:
            raise BackendError(f"query {query!r} has no words to look for")
        hits = []
        for position, (doc_id, doc) in enumerate(self.state["documents"].items()):
            if doc["status"] == "superseded" and not include_superseded:
                continue
            title = _words(doc["title"])
            for passage in doc["passages"]:
                score = len(wanted & (title | _words(passage["text"])))
                if score and wanted & _words(passage["text"]):
                    hit = {
                        "document": doc_id,
                        "title": doc["title"],
                        "passage": passage["n"],
                        "text": passage["text"],
                    }
                    hits.append((-score, position, passage["n"], hit))
        return {"hits": [hit for *_, hit in sorted(hits, key=lambda h: h[:3])]}

    def _tool_read_document(self, doc_id: str) -> dict[str, Any]:
        return copy.deepcopy(self._document(doc_id))

    def _tool_add_claim(
        self,
        answer: str,
        stance: str,
        doc_id: str | None = None,
        quote: str | None = None,
    ) -> dict[str, Any]:
        self._open()
        if doc_id is not None:
            self._document(doc_id)
        claim = {"answer": answer, "doc_id": doc_id, "quote": quote, "stance": stance}
        self.state["claims"].append(claim)
        return {"claim": len(self.state["claims"]), **claim, "status": "drafted"}

    def _tool_submit_answer(self) -> dict[str, Any]:
        self._open()
        self.state["submitted"] = True
        return {"status": "submitted", "claims": len(self.state["claims"])}
