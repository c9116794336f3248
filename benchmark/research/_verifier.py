"""The research-evidence verifier: the submitted answer's claims, checked by rule; effect keys.

No model judge grades any part: every check below is a deterministic rule over the end state,
the collection and the reference claim, so there is no judge agreement to report.

Checks, each reported as ``<check>: <what is wrong>``:

- ``submitted``: the answer was submitted.
- ``complete``: it holds a claim for every required (reference) claim.
- ``citation``: every claim cites a document of the collection, and its quote is a verbatim
  span of one of that document's passages.
- ``support``: every cited quote contains each of the question's terms (the asked entity, its
  year and measure, or the landmark and its event) and backs the claim's answer: the figures
  the answer states are in the quote, or — when the answer is a source — the answer names the
  cited document's publisher.
- ``distractor``: no claim cites a document other than the reference's source (a superseded
  edition, a near-duplicate about another town or year, another publisher's figure).
- ``answer``: every claim states the reference answer, and no figure but it and the
  question's.
- ``stance``: every claim's stance is the reference's.

Pass = every check holds. The rubric score is the share of three of them that hold —
required claims present, every claim supported, no distractor cited — and is reported with
the reasons of an answer that fails.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from benchmark._task import VerifierResult
from drift import ToolCall

CHECKS = ("submitted", "complete", "citation", "support", "distractor", "answer", "stance")
RUBRIC = ("complete", "support", "distractor")
_DIGIT_COMMA = re.compile(r"(?<=\d),(?=\d{3}\b)")
_TOKEN = re.compile(r"[a-z]+|\d+")


def tokens(text: str) -> list[str]:
    """Lower-case words and numbers of ``text``, thousands separators dropped ('41,200' →
    '41200')."""
    return _TOKEN.findall(_DIGIT_COMMA.sub("", text.lower()))


def _numbers(words: list[str]) -> set[str]:
    return {w for w in words if w.isdigit()}


def _within(needle: list[str], hay: list[str]) -> bool:
    """Whether ``needle`` is a non-empty run of consecutive tokens of ``hay``."""
    n = len(needle)
    return n > 0 and any(hay[i : i + n] == needle for i in range(len(hay) - n + 1))


def states(answer: str, expected: str, terms: Sequence[str] = ()) -> bool:
    """Whether ``answer`` states ``expected`` (its words in a run) and no other figure than
    those of the question's ``terms`` ('41,200 residents in 2019')."""
    said, want = tokens(answer), tokens(expected)
    allowed = _numbers(want).union(*(_numbers(tokens(t)) for t in terms))
    return _within(want, said) and _numbers(said) <= allowed


@dataclass(frozen=True)
class Grade:
    """What failed, by check (a check that holds has no entry)."""

    failures: dict[str, tuple[str, ...]]

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def rubric(self) -> float:
        """The share of the rubric's checks that hold."""
        return sum(c not in self.failures for c in RUBRIC) / len(RUBRIC)

    def result(self) -> VerifierResult:
        reasons = [f"{check}: {why}" for check in CHECKS for why in self.failures.get(check, ())]
        if reasons:
            reasons.append(
                f"rubric {self.rubric:.2f} (required claims present, every claim supported, "
                "no distractor cited)"
            )
        return VerifierResult(passed=not reasons, reasons=tuple(reasons))


def _cited(claim: dict[str, Any], number: int, docs: dict[str, Any]) -> str | None:
    """Why claim ``number``'s citation does not hold, or None when it does."""
    doc_id, quote = claim.get("doc_id"), (claim.get("quote") or "").strip()
    if not doc_id and not quote:
        return f"claim {number} has no citation"
    if not doc_id or not quote:
        return f"claim {number} cites {'no document' if not doc_id else 'no quote'}"
    if doc_id not in docs:
        return f"claim {number} cites {doc_id}, which is not in the collection"
    if not any(quote in p["text"] for p in docs[doc_id]["passages"]):
        return f"claim {number}'s quote {quote!r} is not a verbatim span of {doc_id}"
    return None


def _supported(
    claim: dict[str, Any], number: int, doc: dict[str, Any], question: dict[str, Any]
) -> str | None:
    """Why claim ``number``'s (verbatim) quote does not back it, or None when it does."""
    quote = tokens(claim["quote"])
    missing = [t for t in question["terms"] if not _within(tokens(t), quote)]
    if missing:
        return f"claim {number}'s quote does not mention {', '.join(missing)}"
    answer = tokens(str(claim.get("answer", "")))
    if question["answer_in"] == "publisher":
        if not _within(tokens(doc["publisher"]), answer):
            return f"claim {number} names {claim.get('answer')!r}, not {doc['doc_id']}'s publisher"
        return None
    if not _numbers(answer) or not _numbers(answer) <= _numbers(quote):
        return f"claim {number}'s quote does not state {claim.get('answer')!r}"
    return None


def grade(reference: Sequence[ToolCall], state: dict[str, Any]) -> Grade:
    """The checks of the module docstring on end state ``state`` against the ``reference``
    calls' claims."""
    want = [c.arguments for c in reference if c.name == "add_claim"]
    sources = {w["doc_id"] for w in want}
    docs, question = state["documents"], state["question"]
    claims = state.get("claims", [])
    failures: dict[str, list[str]] = {}

    def fail(check: str, why: str | None) -> None:
        if why is not None:
            failures.setdefault(check, []).append(why)

    if not state.get("submitted"):
        fail("submitted", "the answer was never submitted")
    if len(claims) < len(want):
        fail("complete", f"{len(claims)} claims, {len(want)} required")
    for number, claim in enumerate(claims, 1):
        cited = _cited(claim, number, docs)
        fail("citation", cited)
        doc = docs.get(claim.get("doc_id") or "")
        if cited is None:
            fail("support", _supported(claim, number, doc, question))
        if doc is not None and doc["doc_id"] not in sources:
            what = f"{doc['title']}, {doc['publisher']}, {doc['status']}"
            fail("distractor", f"claim {number} cites {doc['doc_id']} ({what}), not a source")
        answer = str(claim.get("answer", ""))
        if not any(states(answer, w["answer"], question["terms"]) for w in want):
            expected = " or ".join(repr(w["answer"]) for w in want)
            fail("answer", f"claim {number} states {answer!r}, expected {expected}")
        if claim.get("stance") not in {w["stance"] for w in want}:
            fail("stance", f"claim {number}'s stance is {claim.get('stance')!r}")
    return Grade({check: tuple(why) for check, why in failures.items()})


def verify(reference: Sequence[ToolCall], state: dict[str, Any]) -> VerifierResult:
    """Whether end state ``state`` holds a submitted answer that every check passes."""
    return grade(reference, state).result()


_EFFECT_FIELDS = {
    "add_claim": ("answer", "doc_id", "quote", "stance"),
    "submit_answer": (),
}


def effect_key(call: ToolCall) -> tuple[Any, ...]:
    """The canonical call's effect: its tool and every field of the claim it drafts (the
    cited document's id and the stance among them: the fields drift operators change)."""
    return (call.name, *(call.arguments.get(f) for f in _EFFECT_FIELDS.get(call.name, ())))
