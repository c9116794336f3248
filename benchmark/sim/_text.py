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
