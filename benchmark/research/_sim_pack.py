"""What a sim model knows about research questions: a knowledge pack, declared.

Read by the sim engine (``benchmark.sim``), which knows no family. Nothing here looks at a
task's answer: it says how questions are phrased, which values they state (a town, a year, a
measure, a figure, a landmark), and where the rest is read — the search hit that shows the
stated values gives the document, the passage that shows them gives the quote, and the figure
or year in that passage (or the document's publisher) gives the answer.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from benchmark.sim import Action, FromResult, FromRow, Kind, KnowledgePack, Slot, Step

_TOWN = r"(?:(?<=[a-z0-9,;:(] )|(?<=\"))([A-Z][a-z]+)\b(?! (?:[A-Z]|Library|Museum|Bridge|Lido))"
_LANDMARK = r"\b([A-Z][a-z]+ (?:Library|Museum|Bridge|Market Hall|Railway Station|Lido))\b"
_FIGURE = r"\d{1,3}(?:,\d{3})+"
_YEAR = r"\b1[6-9]\d\d\b"
_DOC = {"doc": 2, "document": 2, "id": 1}

ACTIONS = {
    "search": Action(
        {"search": 3, "find": 2, "query": 1, "documents": 1},
        {"query": {"query": 3, "search": 1, "words": 1}},
    ),
    "read": Action({"read": 3, "document": 2, "open": 1, "fetch": 1}, {"doc": _DOC}),
    "claim": Action(
        {"claim": 3, "cite": 2, "citation": 1, "add": 1},
        {
            "answer": {"answer": 3, "value": 1, "states": 1},
            "doc": {**_DOC, "cited": 1},
            "quote": {"quote": 3, "span": 2, "verbatim": 1, "quoted": 1},
            "stance": {"stance": 3, "supports": 1, "contradicts": 1},
        },
    ),
    "submit": Action({"submit": 3, "final": 1, "grading": 1}, {}),
}

CONCEPTS = {
    "supports": {"supports": 3, "support": 2, "confirms": 2, "agrees": 2, "backs": 1, "answer": 1},
    "contradicts": {
        "contradicts": 3,
        "contradict": 2,
        "refutes": 2,
        "disagrees": 2,
        "wrong": 2,
        "incorrect": 2,
        "draft": 1,
    },
}


def _kind(
    name: str,
    cues: dict[str, int],
    stated: dict[str, str],
    match: tuple[str, ...],
    answer: FromRow | FromResult,
    stance: str = "supports",
) -> Kind:
    """A question: the values it states (``query`` the words to search for), the hit and
    passage showing every value in ``match``, the answer's source, and the claim's stance."""
    slots = {
        **{slot: Slot("text", stated=regex) for slot, regex in stated.items()},
        "doc": Slot(
            "id",
            derive=FromRow("search", rows="hits", match=match, key="document"),
            keyed=FromResult("read", ("doc", "id")),
        ),
        "quote": Slot("text", derive=FromRow("read", rows="passages", match=match, key="text")),
        "answer": (
            Slot("text", derive=answer)
            if isinstance(answer, FromRow)
            else Slot("text", results=(answer,))
        ),
        "stance": Slot("code", concept=stance, fallback="supports"),
    }
    claim = {"answer": "answer", "doc": "doc", "quote": "quote", "stance": "stance"}
    steps = (Step("claim", claim, core=True), Step("submit", {}))
    return Kind(name, cues, slots, steps)


def _in_passage(match: tuple[str, ...], pattern: str) -> FromRow:
    return FromRow("read", rows="passages", match=match, key="text", pattern=pattern)


_FIGURE_SLOTS = {
    "query": _TOWN,
    "town": _TOWN,
    "year": r"\b((?:19|20)\d\d)\b",
    "metric": r"\b(resident|visitor|household)s?\b",
}
_FIGURE_MATCH = ("town", "year", "metric")

KINDS = (
    _kind(
        "check",
        {"draft": 3, "check": 2, "verify": 2, "wrong": 1, "correct": 1, "claims": 1, "instead": 1},
        _FIGURE_SLOTS,
        _FIGURE_MATCH,
        _in_passage(_FIGURE_MATCH, _FIGURE),
        stance="contradicts",
    ),
    _kind(
        "source",
        {"publisher": 3, "published": 3, "who": 1},
        {**_FIGURE_SLOTS, "figure": rf"\b({_FIGURE})\b"},
        (*_FIGURE_MATCH, "figure"),
        FromResult("read", ("publisher",)),
    ),
    _kind(
        "date",
        {"year": 3, "opened": 2, "open": 2, "opening": 2, "when": 1},
        {"query": _LANDMARK, "landmark": _LANDMARK, "event": r"\b([Oo]pen)"},
        ("landmark", "event"),
        _in_passage(("landmark", "event"), _YEAR),
    ),
    _kind(
        "figure",
        {"many": 3, "number": 3, "count": 3, "how": 1, "figure": 1},
        _FIGURE_SLOTS,
        _FIGURE_MATCH,
        _in_passage(_FIGURE_MATCH, _FIGURE),
    ),
)


@cache
def _remembered() -> dict[str, dict[str, Any]]:
    """The tools as a model trained on research@1 remembers them."""
    from benchmark.research._tools import base_tools

    return {t.name: t.to_openai()["function"] for t in base_tools().tools}


PACK = KnowledgePack(
    family="research_evidence",
    actions=ACTIONS,
    kinds=KINDS,
    concepts=CONCEPTS,
    remembered=_remembered,
)
