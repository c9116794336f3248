"""Planted wrong answers to research tasks: the mistakes the verifier must catch.

Each is the reference answer (one cited claim, then submit) with one thing wrong: the answer
left unsubmitted, no claim, a claim without a citation, a misquoted span, the right quote under
another document's id, a span from a near-duplicate distractor, a wrong value, an extra claim
its quote does not support, the wrong stance, or a quote cut down to the value without the
asked entity. Over every task they cover each check of the verifier.
"""

from __future__ import annotations

import re
from typing import Any

from benchmark._task import Planted, Task
from benchmark.research._tools import KEY_PIVOT, STANCES
from benchmark.research._verifier import tokens
from drift import ToolCall

_NUMBER = re.compile(r"\d[\d,]*\d|\d")


def _claim(**arguments: Any) -> ToolCall:
    return ToolCall(name="add_claim", arguments=arguments)


def _partner(doc_id: str) -> str:
    """The document whose display number is ``doc_id``'s key (the pair partner)."""
    stem, number = doc_id.rsplit("-", 1)
    return f"{stem}-{KEY_PIVOT - int(number)}"


def _value(quote: str) -> re.Match[str]:
    """Where ``quote`` states its value: its figure (with a thousands separator), else its
    last number (a year)."""
    found = list(_NUMBER.finditer(quote))
    return next((m for m in found if "," in m.group()), found[-1])


def _near(shown: str) -> str:
    """Another value written like ``shown``, one step off in its last non-zero digit
    ('41,200' → '41,300', '1931' → '1932')."""
    digits = shown.replace(",", "")
    step = 10 ** (len(digits) - len(digits.rstrip("0")))
    value = int(digits) + step
    return f"{value:,}" if "," in shown else str(value)


def _closest(quote: str, doc: dict[str, Any]) -> str:
    """The passage of ``doc`` sharing the most words with ``quote``."""
    words = set(tokens(quote))
    return max((p["text"] for p in doc["passages"]), key=lambda t: len(words & set(tokens(t))))


def planted(task: Task) -> list[Planted]:
    """The wrong answers planted for ``task``."""
    claim, submit = task.reference_calls
    args = claim.arguments
    docs = task.initial_state["documents"]
    source = docs[args["doc_id"]]
    quote = str(args["quote"])
    other = next(p["text"] for p in source["passages"] if p["text"] != quote)
    value = _value(quote)
    if task.initial_state["question"]["answer_in"] == "publisher":
        wrong = next(d["publisher"] for d in docs.values() if d["publisher"] != source["publisher"])
    else:
        wrong = _near(value.group())
    near = docs[_partner(args["doc_id"])]

    def one(name: str, check: str, *calls: ToolCall) -> Planted:
        return Planted(name=name, check=check, calls=calls)

    def changed(**changes: Any) -> ToolCall:
        return _claim(**{**args, **changes})

    return [
        one("answer not submitted", "submitted", claim),
        one("missing claim", "complete", submit),
        one(
            "uncited claim",
            "citation",
            _claim(answer=args["answer"], stance=args["stance"]),
            submit,
        ),
        one(
            "misquoted span",
            "citation",
            changed(quote=f"{quote[: value.start()]}about {quote[value.start() :]}"),
            submit,
        ),
        one("wrong document id", "citation", changed(doc_id=near["doc_id"]), submit),
        one(
            "span from a distractor",
            "distractor",
            changed(doc_id=near["doc_id"], quote=_closest(quote, near)),
            submit,
        ),
        one("wrong value", "answer", changed(answer=wrong), submit),
        one("extra unsupported claim", "support", claim, changed(quote=other), submit),
        one(
            "wrong stance",
            "stance",
            changed(stance=next(s for s in STANCES if s != args["stance"])),
            submit,
        ),
        one(
            "quote without the asked entity",
            "support",
            changed(quote=quote[value.start() :]),
            submit,
        ),
    ]
