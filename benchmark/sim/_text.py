"""Word-level reading shared by the engine: tokens, lexicon matching, identifiers in text."""

from __future__ import annotations

import functools
import re

from benchmark.sim._pack import Lexicon

IDENT = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
NEGATION = re.compile(r"\b(?:never|do not|don't|must not|should not|no need to)\b", re.I)


@functools.lru_cache(maxsize=65536)
def tokens(text: str) -> tuple[str, ...]:
    """Lower-case word tokens, splitting snake_case and camelCase (cached: the same names and
    descriptions are read at every turn)."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return tuple(re.findall(r"[a-z]+", text.lower()))


def score(name: str, desc: str, lexicon: Lexicon) -> int:
    """How well a name and its description fit ``lexicon`` (the name counts three times)."""
    total = 3 * sum(lexicon.get(t, 0) for t in tokens(name))
    return total + sum(lexicon.get(t, 0) for t in set(tokens(desc)))


def best_match(candidates: dict[str, str], lexicon: Lexicon, minimum: int = 1) -> str | None:
    """The candidate (name → description) that best fits ``lexicon``; ties go to the first."""
    best, best_score = None, minimum - 1
    for name, desc in candidates.items():
        s = score(name, desc, lexicon)
        if s > best_score:
            best, best_score = name, s
    return best


_SUFFIXES = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("e", ""))


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude English stem, the same for a word's inflections ('closing', 'closed', 'closes',
    'close' → 'clos'): lexicon words and text words meet in it."""
    w = word.lower()
    for suffix, replacement in _SUFFIXES:
        if w.endswith(suffix) and not w.endswith("ss") and len(w) - len(suffix) >= 3:
            w = w[: len(w) - len(suffix)] + replacement
            break
    if w != word.lower() and len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
        w = w[:-1]  # a doubled consonant before the suffix: 'flagged' → 'flag'
    return w


@functools.lru_cache(maxsize=65536)
def stems(text: str) -> tuple[str, ...]:
    """The stems of ``text``'s word tokens."""
    return tuple(stem(t) for t in tokens(text))


def stemmed(lexicon: Lexicon) -> dict[str, int]:
    """``lexicon`` keyed by stems (the heavier weight where two words share one)."""
    out: dict[str, int] = {}
    for word, weight in lexicon.items():
        key = stem(word)
        out[key] = max(out.get(key, 0), weight)
    return out
