"""The leak gate: word n-gram overlap between a bundle's artifacts and the sealed requests.

A sealed request is *leaked* into an artifact set when a large share of its distinctive word
n-grams (8-grams by default) appears in the artifacts' text. Families phrase their requests
from templates, so even eight-word spans recur across splits ("was delivered days late give
back the shipping charge"): an n-gram that also occurs in a public request (the family's dev
split) is template text and is not counted. What is left carries the request's own names, ids
and amounts, which an artifact holds only if the request was copied. A sealed request with no
distinctive n-gram (a question asked in the public split too) cannot leak by its text and is
counted apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from benchmark import Task, family

NGRAM = 8
"""Words per n-gram."""
THRESHOLD = 0.5
"""Share of a sealed request's distinctive n-grams found in the artifacts that flags it."""
PUBLIC_SAMPLE = 100
"""Public (dev split) requests per family whose n-grams count as template text."""
_WORD = re.compile(r"[a-z0-9]+")


def ngrams(text: str, n: int = NGRAM) -> set[tuple[str, ...]]:
    """The word ``n``-grams of ``text`` (lower-cased runs of letters and digits)."""
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


class LeakMatch(BaseModel):
    """One sealed request and how much of it an artifact set holds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str = Field(description="Sealed task id.")
    overlap: float = Field(description="Share of the request's n-grams found in the artifacts.")
    artifacts: tuple[str, ...] = Field(description="Artifact paths holding any of them.")


class LeakReport(BaseModel):
    """The leak gate's verdict on one artifact set."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    n: int = Field(description="Words per n-gram.")
    threshold: float = Field(description="Overlap at which a request counts as leaked.")
    sealed: int = Field(description="Sealed requests checked.")
    undetectable: int = Field(
        description="Sealed requests with no n-gram outside the public requests (not checkable)."
    )
    max_overlap: float = Field(description="The largest overlap of any sealed request.")
    matches: tuple[LeakMatch, ...] = Field(
        description="Sealed requests at or over the threshold, largest overlap first."
    )

    @property
    def flagged(self) -> bool:
        """True when any sealed request is leaked into the artifacts."""
        return bool(self.matches)


def public_requests(family_ids: Iterable[str], per_family: int = PUBLIC_SAMPLE) -> list[Task]:
    """The first ``per_family`` dev-split tasks of each family (public in every cycle)."""
    return [t for f in sorted(set(family_ids)) for t in family(f).tasks("dev", per_family, 0)]


def leak_check(
    artifacts: Mapping[str, str],
    sealed: Iterable[Task],
    *,
    public: Iterable[Task] | None = None,
    n: int = NGRAM,
    threshold: float = THRESHOLD,
) -> LeakReport:
    """Check ``artifacts`` (path → text; a bundle's ``files``) against the ``sealed`` tasks'
    request texts. ``public`` requests (default: ``public_requests`` of the sealed tasks'
    families) define the template text that does not count."""
    if n < 1 or not 0 < threshold <= 1:
        raise ValueError("n must be at least 1 and the threshold in (0, 1]")
    sealed = list(sealed)
    if public is None:
        public = public_requests(t.family for t in sealed)
    template: set[tuple[str, ...]] = set()
    for t in public:
        template |= ngrams(t.instruction, n)
    grams = {path: ngrams(text, n) - template for path, text in artifacts.items()}
    every = set().union(*grams.values()) if grams else set()
    matches, top, blind = [], 0.0, 0
    for task in sealed:
        wanted = ngrams(task.instruction, n) - template
        if not wanted:
            blind += 1
            continue
        overlap = len(wanted & every) / len(wanted)
        top = max(top, overlap)
        if overlap >= threshold:
            where = tuple(p for p, g in grams.items() if g & wanted)
            matches.append(LeakMatch(task=task.id, overlap=round(overlap, 4), artifacts=where))
    matches.sort(key=lambda m: (-m.overlap, m.task))
    return LeakReport(
        n=n,
        threshold=threshold,
        sealed=len(sealed),
        undetectable=blind,
        max_overlap=round(top, 4),
        matches=tuple(matches),
    )
