"""What a field's name and description state about its values: units, scale, zone, mode.

Each reader returns plain facts; the classifier compares the facts of two versions. The word
lists are general vocabulary of API documentation, not names from any particular server.
"""

from __future__ import annotations

import functools
import re
from difflib import SequenceMatcher
from typing import Any

from drift._names import tokens

UNITS: dict[str, tuple[str, ...]] = {
    "cents": ("cents", "cent", "pence", "minor units"),
    "dollars": ("dollars", "dollar", "usd", "euros", "eur", "major units"),
    "milliseconds": ("milliseconds", "millisecond", "ms", "millis"),
    "seconds": ("seconds", "second", "secs", "sec"),
    "minutes": ("minutes", "minute", "mins"),
    "hours": ("hours", "hour", "hrs"),
    "days": ("days", "day"),
    "bytes": ("bytes", "byte"),
    "kilobytes": ("kilobytes", "kb", "kib"),
    "megabytes": ("megabytes", "mb", "mib"),
    "meters": ("meters", "metres", "meter", "metre"),
    "kilometers": ("kilometers", "kilometres", "km"),
    "miles": ("miles", "mile"),
    "celsius": ("celsius",),
    "fahrenheit": ("fahrenheit",),
}
"""Canonical unit → its spellings."""

UNIT_SPELLING = {s: unit for unit, spellings in UNITS.items() for s in spellings}
_UNIT_ALT = "|".join(sorted((re.escape(s) for s in UNIT_SPELLING), key=len, reverse=True))
# A unit word counts in a description only where it states a unit ("in cents", "(ms)",
# "number of days"), so that "the second item" or "30 days ago" is not read as a unit.
UNIT_CONTEXT = re.compile(
    rf"\b(?:in|as|of|expressed in|measured in|per|how many)\s+(?:whole\s+|the\s+)?({_UNIT_ALT})\b"
    rf"|\(\s*(?:in\s+)?({_UNIT_ALT})\s*\)",
    re.IGNORECASE,
)

SCALES = {
    "fraction": re.compile(
        r"\bfraction\b|\bratio\b|\b0(?:\.0)? ?(?:-|–|to) ?1(?:\.0)?\b|\bbetween 0 and 1\b", re.I
    ),
    "percent": re.compile(r"\bpercent(?:age)?\b|%|\b0 ?(?:-|–|to) ?100\b", re.I),
}
"""Statements of a numeric scale."""

ZONE = re.compile(
    r"\b(UTC(?:\s?[+-]\d{1,2}(?::?\d{2})?)?|GMT(?:[+-]\d{1,2})?|local time|"
    r"[A-Z][a-z]+/[A-Z][A-Za-z_]+)\b"
)
"""Statements of a time zone."""

MODES = {
    "substring": r"\bsubstring\b|\bpartial (?:name|match|string|text)|\bmatches partial\b",
    "prefix": r"\bprefix match|\bstarts with\b",
    "exact": r"\bexact(?:ly)? match|\bexact (?:name|string|text)\b",
    "glob": r"\bglob\b|\bglob-style\b|\bwildcards?\b",
    "regex": r"\bregex\b|\bregular expressions?\b",
    "fuzzy": r"\bfuzzy\b",
    "semantic": r"\bsemantic\b|\bnatural[- ]language\b",
    "syntax": r"\bsearch syntax\b|\bquery syntax\b|\bquery language\b|\blexical\b",
    "case-insensitive": r"\bcase[- ]insensitive\b|\bignor(?:es|ing) case\b",
    "case-sensitive": r"\bcase[- ]sensitive\b",
}
"""How a string argument is matched or interpreted."""

_NOW_VERBS = (
    "returns?|requires?|accepts?|expects?|means?|takes?|uses?|treats?|interprets?|defaults?|"
    "includes?|excludes?|sorts?|orders?|runs?|starts?|responds?|creates?|applies|matches|reads?|"
    "writes?|supports?|counts?|measures?|refers?|selects?|rejects?|ignores?|fails?|only|always"
)
NOTICE = re.compile(
    r"\bno longer\b|\bpreviously\b|\bformerly\b|\bused to be\b|\bswapped\b"
    r"|\b(?:has|have) (?:been )?changed\b|\bchanged (?:from|to)\b|\bas of v?(?:ersion )?\d"
    r"|\b(?:is|are|was|were) now\b"
    rf"|\bnow (?:{_NOW_VERBS})\b",
    re.IGNORECASE,
)
"""Phrases that announce a change of behaviour inside a description: a verb with "now",
not "now" alone ("relative to now" announces nothing)."""

CONTRAST = re.compile(r"\b(?:not the|rather than|instead of|no longer)\b", re.IGNORECASE)
MEANING = re.compile(r"\b(?:means?|meant|meaning|stands? for|refers? to|selects?)\b", re.I)
SIGN = re.compile(r"\b(positive|negative)\b", re.IGNORECASE)
SIGN_RULE = re.compile(
    r"\b(?:positive|negative)(?: values?| amounts?| numbers?| quantities)?\s+"
    r"(?:means?|are|is|indicates?|denotes?|stands? for|adds?|removes?|increases?|decreases?)\b",
    re.IGNORECASE,
)
"""A sign convention stated as a rule ('negative values mean a refund'), not the word alone
('a positive integer' states none)."""
DEFAULT = re.compile(
    r"\(default:?\s*([^,)]+)"
    r"|\bdefaults?(?:\s+is|\s+to|\s+value\s+is|:)?\s+[\"'`]?([\w.+-]+)"
    r"|[\"'`]([\w.+-]+)[\"'`]\s*\(default\)"
    r"|\bby default,?\s+([^.;]+)"
    r"|\b(?:when|if) (?:omitted|not (?:given|provided|specified|set|passed))\s*,?\s+([^.;]+)",
    re.IGNORECASE,
)
ID_WORDS = frozenset({"id", "ids", "key", "ref", "number", "identifier", "uuid", "code"})
STOP = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "to",
        "for",
        "in",
        "on",
        "by",
        "and",
        "or",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "with",
        "from",
        "as",
        "at",
        "if",
        "use",
        "used",
        "when",
        "which",
    }
)


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, whitespace-normalised."""
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", " ".join(text.split())) if s.strip()]


def words(text: str) -> set[str]:
    """Content words of ``text`` (lower case, stop words dropped)."""
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP}


def word_overlap(a: str, b: str) -> float:
    """Jaccard overlap of the content words of two texts (1.0 when both have none)."""
    wa, wb = words(a), words(b)
    return len(wa & wb) / len(wa | wb) if wa | wb else 1.0


@functools.lru_cache(maxsize=4096)
def text_similarity(a: str, b: str) -> float:
    """Similarity of two texts in [0, 1]: the larger of word overlap and character ratio."""
    if a == b:
        return 1.0
    overlap = word_overlap(a, b)
    matcher = SequenceMatcher(None, a.lower(), b.lower())
    # the cheap upper bound first: the full ratio is slow and often cannot win
    if matcher.real_quick_ratio() <= overlap:
        return overlap
    return max(overlap, matcher.ratio())


def units(name: str, desc: str) -> set[str]:
    """Units stated by a field's name tokens or its description."""
    return set(_units(name, desc))


@functools.lru_cache(maxsize=4096)
def _units(name: str, desc: str) -> frozenset[str]:
    found = {UNIT_SPELLING[t] for t in tokens(name) if t in UNIT_SPELLING}
    for match in UNIT_CONTEXT.finditer(desc):
        found.add(UNIT_SPELLING[(match.group(1) or match.group(2)).lower()])
    return frozenset(found)


def scales(name: str, desc: str) -> set[str]:
    """'fraction' and/or 'percent', as stated by the name or description."""
    return set(_scales(name, desc))


@functools.lru_cache(maxsize=4096)
def _scales(name: str, desc: str) -> frozenset[str]:
    text = f"{' '.join(tokens(name))} {desc}"
    return frozenset(s for s, pattern in SCALES.items() if pattern.search(text))


def zones(desc: str) -> set[str]:
    """Time zones a description states."""
    return {re.sub(r"\s", "", m.group(1)).upper() for m in ZONE.finditer(desc)}


def modes(desc: str) -> set[str]:
    """How a description says string arguments are matched or interpreted."""
    return set(mode_phrases(desc))


@functools.lru_cache(maxsize=1024)
def mode_phrases(desc: str) -> dict[str, str]:
    """Each matching mode a description states, with the phrase that states it."""
    found = {}
    for mode, pattern in MODES.items():
        m = re.search(pattern, desc, re.IGNORECASE)
        if m:
            found[mode] = m.group(0)
    return found


MODE_FAMILIES = (
    frozenset({"substring", "prefix", "exact", "glob", "regex", "fuzzy", "semantic", "syntax"}),
    frozenset({"case-insensitive", "case-sensitive"}),
)
"""Modes that exclude each other: a string is matched one way of each family."""


def mode_switch(old: str, new: str) -> tuple[dict[str, str], dict[str, str]] | None:
    """(old modes given up, new modes taken up) when a description swaps one stated way of
    matching for another; None when modes were only added (an explanation of what was always
    true) or only dropped (a shorter description)."""
    before, after = mode_phrases(old), mode_phrases(new)
    for family in MODE_FAMILIES:
        gone = {m: p for m, p in before.items() if m in family and m not in after}
        came = {m: p for m, p in after.items() if m in family and m not in before}
        if gone and came:
            return gone, came
    return None


def stated_default(prop: dict[str, Any]) -> str | None:
    """The default a property declares (schema ``default`` first, then its description)."""
    if "default" in prop:
        return normal(prop["default"])
    match = DEFAULT.search(str(prop.get("description", "")))
    if match is None:
        return None
    return normal(next(g for g in match.groups() if g is not None).rstrip(".,;:"))


NEUTRAL = re.compile(
    r"^(?:false|0|\[\]|\{\}|none|null|(?:all|no|none|nothing|every|empty|not|unset|off)\b.*)$"
)
"""Defaults that leave an option off: ``false``, empty, zero, 'all …' (no filter), 'no …'."""


def is_neutral(value: str) -> bool:
    """Whether a stated default (as :func:`normal` text) leaves the option off."""
    return value == "" or bool(NEUTRAL.match(value))


def containment(a: str, b: str) -> float:
    """Share of the shorter text's content words found in the other (0 when it has < 2)."""
    wa, wb = words(a), words(b)
    short = min(len(wa), len(wb))
    return len(wa & wb) / short if short >= 2 else 0.0


def normal(value: Any) -> str:
    """A default value as comparable text."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return " ".join(str(value).strip().strip("\"'`").lower().split())


def sign_swapped(old: str, new: str) -> bool:
    """Whether ``new`` reads like ``old`` with 'positive' and 'negative' exchanged."""
    if not SIGN.search(old) or not SIGN.search(new):
        return False
    swap = {"positive": "negative", "negative": "positive"}
    flipped = SIGN.sub(lambda m: swap[m.group(1).lower()], old.lower())
    ratio = lambda a, b: SequenceMatcher(None, a, b).ratio()  # noqa: E731
    return ratio(flipped, new.lower()) > ratio(old.lower(), new.lower())


def new_sentences(old: str, new: str) -> list[str]:
    """Sentences of ``new`` with no close counterpart in ``old``."""
    if old == new:
        return []
    before = sentences(old)
    return [s for s in sentences(new) if all(text_similarity(s, b) < 0.8 for b in before)]


VALUE_SYNONYMS = (
    frozenset({"decline", "dismiss", "reject", "deny", "refuse"}),
    frozenset({"delete", "remove"}),
    frozenset({"create", "add"}),
    frozenset({"update", "edit", "modify"}),
    frozenset({"asc", "ascending"}),
    frozenset({"desc", "descending"}),
    frozenset({"enable", "enabled", "on"}),
    frozenset({"disable", "disabled", "off"}),
    frozenset({"begin", "start"}),
    frozenset({"end", "finish", "stop"}),
)
"""Words of API documentation English that name the same action or setting; an enum value
swapped for its synonym is a respelling ('decline' → 'dismiss')."""


def synonyms(a: str, b: str) -> bool:
    """Whether two enum values (lower case, letters only) are synonyms of API English."""
    return a != b and any(a in group and b in group for group in VALUE_SYNONYMS)


POSITION = re.compile(
    r"\b(?:index|position|ordinal)\s+(?:of|in)\b|\b(?:[01]|zero|one)[- ]based\b", re.I
)
"""A value that counts a place in a list ('the index of the page', '0-based')."""
POSITION_WORDS = frozenset({"idx", "index", "position", "pos", "ordinal"})
REFERENCE_WORDS = frozenset({"id", "uuid", "guid", "key", "handle"})
BASE = re.compile(r"\b([01]|zero|one)[- ]based\b", re.I)


@functools.lru_cache(maxsize=4096)
def reference_kind(name: str, desc: str) -> str | None:
    """'position' when a field counts a place in a list, 'identifier' when it names an item
    (by its name or description), else None."""
    words = set(tokens(name))
    if words & POSITION_WORDS or POSITION.search(desc):
        return "position"
    if words & REFERENCE_WORDS or re.search(r"\bID\b|\bidentifier\b", desc):
        return "identifier"
    return None


def index_base(desc: str) -> str | None:
    """'0' or '1' when a description states where counting starts."""
    m = BASE.search(desc)
    if m is None:
        return None
    return "0" if m.group(1).lower() in ("0", "zero") else "1"


def is_identifier(name: str, desc: str) -> bool:
    """Whether a field holds an identifier, by its name or description."""
    return bool(set(tokens(name)) & ID_WORDS) or bool(re.search(r"\bidentifier\b|\bID\b", desc))
