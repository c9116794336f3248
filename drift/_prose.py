"""What a description states in prose about a tool's behaviour: time spans, caps on how many
results come back, their order, and what is returned.

Each reader returns :class:`Stated` facts that carry the phrase they were read from, so a verdict
built on them can quote its evidence. A fact is always a phrase (a number with its unit, a verb
with its object, a cue with its key), never a lone word: "relative to now" states nothing, "the
last 24 hours" states a span. The vocabulary is general English of API documentation, not that
of any particular server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from drift._semantics import STOP

NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "sixty": 60,
    "ninety": 90,
}
SECONDS = (
    ("sec", 1),
    ("min", 60),
    ("hour", 3600),
    ("hr", 3600),
    ("day", 86400),
    ("week", 7 * 86400),
    ("month", 30 * 86400),
    ("year", 365 * 86400),
)
"""Seconds per time unit, by the start of its long form."""
SHORT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
"""Seconds per unit letter, read only right after a digit ('24h')."""

_LONG = r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)"
_NUM = rf"(?:\d+(?:\.\d+)?|{'|'.join(NUMBER_WORDS)})"
_LEAD = (
    r"(?:(?:with)?in (?:the )?(?:last|past|previous|preceding)|last|past|previous|preceding|"
    r"trailing|most recent|older than|newer than|up to)"
)
SPAN = re.compile(
    rf"\b{_LEAD}\s+(?:(?P<num>{_NUM})[\s-]*)?(?P<unit>{_LONG})\b"
    rf"|\b{_LEAD}\s+(?P<num2>\d+)(?P<short>[smhdw])\b",
    re.IGNORECASE,
)
"""A time span a description puts on what a call covers: 'the last minute', 'past 7 days'."""

DURATION = re.compile(rf"^\s*(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>[smhdw]|{_LONG})\s*$", re.I)
"""A duration written as a value: '30d', '24h', '7 days'."""

CAP = re.compile(
    r"\b(?:up to|at most|no more than|not more than|a maximum of|maximum of|max(?:imum)?:?|"
    r"limited to|a limit of|(?:only )?the first|first|top)\s+(?P<num>\d+)\b"
    rf"(?!\s*(?:%|percent|{_LONG}\b|[smhdw]\b))"
    r"|\b(?P<num2>\d+)\s+(?:most recent|latest|newest|oldest|largest|smallest|biggest|highest|"
    r"lowest)\b",
    re.IGNORECASE,
)
"""A cap on how many results come back: 'up to 20', 'the first 10', '(at most 100 rows)'."""

ORDER_KEY = re.compile(
    r"\b(?:ordered|sorted|ranked|arranged|listed|sorts?|orders?)\s+(?:them\s+|results\s+)?"
    r"(?:by|on|according to)\s+(?P<key>[^.;:,()]+)",
    re.IGNORECASE,
)
_DESC_WORDS = r"newest|latest|most recent|highest|largest|biggest|longest|best|most"
_ASC_WORDS = r"oldest|earliest|lowest|smallest|shortest|least"
SUPERLATIVE_KEY = {
    "newest": "time",
    "latest": "time",
    "most recent": "time",
    "oldest": "time",
    "earliest": "time",
    "largest": "size",
    "biggest": "size",
    "smallest": "size",
    "longest": "length",
    "shortest": "length",
    "highest": "value",
    "lowest": "value",
}
"""The dimension a superlative orders by ('the 10 newest' orders by time)."""
RANKED = re.compile(rf"\b\d+\s+(?P<word>{'|'.join(SUPERLATIVE_KEY)})\b", re.IGNORECASE)
"""A cut with an order: 'the 10 newest', '5 largest'."""
ORDER_DIRECTION = re.compile(
    rf"\b(?P<first>{_DESC_WORDS}|{_ASC_WORDS}|worst)[\s-]+first\b"
    r"|\bin (?P<order>ascending|descending|reverse chronological|chronological|alphabetical|"
    r"reverse) order\b"
    rf"|\bfrom (?P<from>{_DESC_WORDS}|{_ASC_WORDS}) to\b"
    r"|\b(?P<word>ascending|descending)\b",
    re.IGNORECASE,
)
"""A stated direction of order: 'newest first', 'in descending order', 'from largest to'."""

RETURNS = re.compile(
    r"\b(?:returns?|returning|responds?\s+(?:\w+\s+)?with|replies\s+(?:\w+\s+)?with|"
    r"gives back|hands back|outputs):?\s+(?P<obj>[^.;]+)"
    r"|(?P<subj>[^.;,]+?)\s+(?:is|are)\s+(?:then\s+)?returned\b",
    re.IGNORECASE,
)
"""What a description says comes back from a call."""

_GENERIC = frozenset({"it", "them", "all", "each", "any", "one", "list", "also", "then"})


def _said(m: re.Match[str]) -> str:
    return " ".join(m.group(0).split())


@dataclass(frozen=True)
class Stated:
    """One fact a description states, in a comparable form, with the phrase it came from."""

    value: str
    """Comparable normal form: a span in seconds ('86400s'), a cap ('20'), an order key."""
    words: str
    """The phrase of the description it was read from."""


def _amount(num: str | None) -> float:
    if num is None:
        return 1.0
    return float(NUMBER_WORDS.get(num.lower(), 0) or num)


def _unit_seconds(unit: str) -> int:
    unit = unit.lower()
    if unit in SHORT:
        return SHORT[unit]
    return next(secs for start, secs in SECONDS if unit.startswith(start))


def _seconds(num: str | None, unit: str) -> str:
    return f"{round(_amount(num) * _unit_seconds(unit))}s"


def spans(text: str) -> list[Stated]:
    """Time spans ``text`` states, in seconds."""
    out = []
    for m in SPAN.finditer(text):
        if m.group("unit"):
            out.append(Stated(_seconds(m.group("num"), m.group("unit")), _said(m)))
        else:
            out.append(Stated(_seconds(m.group("num2"), m.group("short")), _said(m)))
    return out


def duration(value: str) -> str | None:
    """A value such as '30d' or '24 hours' as a span in seconds ('2592000s'), else None."""
    m = DURATION.match(value)
    return _seconds(m.group("num"), m.group("unit")) if m else None


def caps(text: str) -> list[Stated]:
    """Caps on the number of results ``text`` states."""
    return [Stated(m.group("num") or m.group("num2"), _said(m)) for m in CAP.finditer(text)]


STEM = 6
"""Words compare on their first six letters once a plural 's' is dropped ('created' ≡ 'create')."""


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:STEM]


def content(text: str) -> set[str]:
    """Stemmed content words of ``text`` (stop words and filler dropped)."""
    found = re.findall(r"[a-z0-9]+", text.lower())
    return {_stem(w) for w in found if len(w) > 1 and w not in STOP and w not in _GENERIC}


def _direction(m: re.Match[str]) -> str:
    said = next(g for g in m.groups() if g).lower()
    if said in ("descending", "reverse chronological", "reverse") or re.fullmatch(
        _DESC_WORDS, said
    ):
        return "descending"
    return "ascending"


def orders(text: str) -> list[Stated]:
    """Orders ``text`` states: sort keys ('key:size') and directions ('descending')."""
    out = [
        Stated("key:" + " ".join(sorted(content(m.group("key")))), _said(m))
        for m in ORDER_KEY.finditer(text)
    ]
    out += [Stated(_direction(m), _said(m)) for m in ORDER_DIRECTION.finditer(text)]
    for m in RANKED.finditer(text):
        word = m.group("word").lower()
        out += [Stated(f"key:{SUPERLATIVE_KEY[word]}", _said(m)), Stated(_direction(m), _said(m))]
    return out


def returned(text: str) -> list[Stated]:
    """What ``text`` says a call returns, as its content words."""
    out = []
    for m in RETURNS.finditer(text):
        said = content(m.group("obj") or m.group("subj") or "")
        if said:
            out.append(Stated(" ".join(sorted(said)), _said(m)))
    return out


def _directions(facts: list[Stated]) -> set[str]:
    return {f.value for f in facts if not f.value.startswith("key:")}


def _keys(facts: list[Stated]) -> set[str]:
    return {w for f in facts if f.value.startswith("key:") for w in f.value[4:].split()}


def same_order(old: list[Stated], new: list[Stated]) -> bool:
    """Whether two stated orders agree: both unstated, or the same directions and sort keys
    that share a word."""
    if bool(old) != bool(new) or _directions(old) != _directions(new):
        return False
    ko, kn = _keys(old), _keys(new)
    return not ko or not kn or bool(ko & kn)


CASE = re.compile(r"\b(?:if|when|unless|otherwise|in case)\b", re.IGNORECASE)
"""A condition inside a statement of what is returned: a case with another result."""


def new_case(old: list[Stated], new: list[Stated]) -> Stated | None:
    """A statement of what is returned that gained a condition ('… or X if the database is
    empty') where the old statements had none."""
    if not old or any(CASE.search(f.words) for f in old):
        return None
    return next((f for f in new if CASE.search(f.words)), None)


def same_result(old: list[Stated], new: list[Stated]) -> bool:
    """Whether two statements of what is returned share enough words to be the same thing."""
    wo = {w for f in old for w in f.value.split()}
    wn = {w for f in new for w in f.value.split()}
    if not wo or not wn:
        return True
    return len(wo & wn) / min(len(wo), len(wn)) >= 1 / 3
