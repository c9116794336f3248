"""The leak gate: a bundle's artifacts against the sealed tasks' requests and answers.

A sealed request is *leaked* into an artifact set when a large share of its distinctive word
n-grams (8-grams by default) appears in the artifacts' text. Families phrase their requests
from templates, so even eight-word spans recur across splits ("was delivered days late give
back the shipping charge"): an n-gram that also occurs in a public request (the family's dev
split) is template text and is not counted. What is left carries the request's own names, ids
and amounts, which an artifact holds only if the request was copied. A sealed request with no
distinctive n-gram (a question asked in the public split too) cannot leak by its text and is
counted apart.

The same gate compares the artifacts with each sealed task's reference answer (the argument
values of its reference calls, ``adapt._leak_answers``): a task whose own answer values appear
in the artifacts — at least :data:`MIN_ANSWER_VALUES` of them and a share of at least
:data:`ANSWER_THRESHOLD` — is leaked by its answer, whether or not its request is copied.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from adapt._leak_answers import AnswerText, Form, answer_forms, distinctive, public_answers
from benchmark import Family, Task, family

NGRAM = 8
"""Words per n-gram."""
THRESHOLD = 0.5
"""Share of a sealed request's distinctive n-grams found in the artifacts that flags it."""
PUBLIC_SAMPLE = 100
"""Public (dev split) requests per family whose n-grams count as template text; also the tasks
per public split whose answer values do not count."""
ANSWER_THRESHOLD = 0.5
"""Share of a sealed task's distinctive answer values found in the artifacts that flags it."""
MIN_ANSWER_VALUES = 2
"""Distinctive answer values a sealed task needs to be checked, and found, to be flagged."""
_WORD = re.compile(r"[a-z0-9]+")


def ngrams(text: str, n: int = NGRAM) -> set[tuple[str, ...]]:
    """The word ``n``-grams of ``text`` (lower-cased runs of letters and digits)."""
    words = _WORD.findall(text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


class LeakMatch(BaseModel):
    """One sealed request and how much of it an artifact set holds."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str = Field(description="Sealed task id.")
    overlap: float = Field(
        description="Share of the request's n-grams (or of its answer's values) found in the "
        "artifacts."
    )
    artifacts: tuple[str, ...] = Field(description="Artifact paths holding any of them.")
    kind: Literal["request", "answer"] = Field(
        default="request", description="What of the task was found: its request or its answer."
    )


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
    answers_undetectable: int = Field(
        default=0,
        description=f"Sealed tasks with fewer than {MIN_ANSWER_VALUES} distinctive answer "
        "values (their answers are not checkable).",
    )
    answers_max_overlap: float = Field(
        default=0.0, description="The largest share of any sealed answer's values found."
    )
    matches: tuple[LeakMatch, ...] = Field(
        description="Sealed requests and answers at or over their thresholds, largest overlap "
        "first."
    )

    @property
    def flagged(self) -> bool:
        """True when any sealed request or answer is leaked into the artifacts."""
        return bool(self.matches)


def public_requests(family_ids: Iterable[str], per_family: int = PUBLIC_SAMPLE) -> list[Task]:
    """The first ``per_family`` dev-split tasks of each family (public in every cycle; all of
    them where the split holds fewer, as a folder family's may)."""
    out: list[Task] = []
    for f in sorted(set(family_ids)):
        out += _dev_tasks(family(f), per_family)
    return out


@lru_cache(maxsize=32)
def _dev_tasks(fam: Family, per_family: int) -> tuple[Task, ...]:
    """``fam``'s first ``per_family`` dev tasks, generated once per family object (the dev
    split does not depend on the cycle; a folder family read again is another object): every
    pair ``vwt adapt`` records checks two bundles against the same public requests."""
    return tuple(fam.tasks("dev", min(per_family, fam.split_size("dev") or per_family), 0))


@lru_cache(maxsize=16)
def _public_answers(family_ids: tuple[str, ...]) -> frozenset[Form]:
    return frozenset(public_answers(family_ids, PUBLIC_SAMPLE))


def _answer_match(
    task: Task, texts: Mapping[str, AnswerText], known: frozenset[Form]
) -> tuple[float, LeakMatch | None]:
    """The share of ``task``'s distinctive answer values (beyond the ``known`` ones) the
    artifacts hold, and the match if it is leaked (None: it is not, or has too few values to
    tell, share -1)."""
    own = distinctive(task, set(_public_answers((task.family,)) | known))
    if len(own) < MIN_ANSWER_VALUES:
        return -1.0, None
    held = {f: [p for p, t in texts.items() if t.holds(f)] for f in own}
    found = {f: paths for f, paths in held.items() if paths}
    share = len(found) / len(own)
    if len(found) < MIN_ANSWER_VALUES or share < ANSWER_THRESHOLD:
        return share, None
    where = tuple(sorted({p for paths in found.values() for p in paths}))
    return share, LeakMatch(task=task.id, overlap=round(share, 4), artifacts=where, kind="answer")


def leak_check(
    artifacts: Mapping[str, str],
    sealed: Iterable[Task],
    *,
    public: Iterable[Task] | None = None,
    served: Iterable[Task] = (),
    n: int = NGRAM,
    threshold: float = THRESHOLD,
) -> LeakReport:
    """Check ``artifacts`` (path → text; a bundle's ``files``) against the ``sealed`` tasks'
    request texts and reference answers. ``public`` requests (default: ``public_requests`` of
    the sealed tasks' families) define the template text that does not count; so do the text
    and the answer values of the tasks the artifacts' author was ``served`` (an adaptation's
    sample: an adapted bundle may hold what its kit gave it)."""
    if n < 1 or not 0 < threshold <= 1:
        raise ValueError("n must be at least 1 and the threshold in (0, 1]")
    sealed = list(sealed)
    if public is None:
        public = public_requests(t.family for t in sealed)
    served = list(served)
    template: set[tuple[str, ...]] = set()
    for t in (*public, *served):
        template |= ngrams(t.instruction, n)
    known = frozenset(f for t in served for f in answer_forms(t))
    grams = {path: ngrams(text, n) - template for path, text in artifacts.items()}
    every = set().union(*grams.values()) if grams else set()
    texts = {path: AnswerText([text]) for path, text in artifacts.items()}
    matches, top, blind, answers_top, answers_blind = [], 0.0, 0, 0.0, 0
    for task in sealed:
        share, answer = _answer_match(task, texts, known)
        if share < 0:
            answers_blind += 1
        answers_top = max(answers_top, share)
        if answer is not None:
            matches.append(answer)
        wanted = ngrams(task.instruction, n) - template
        if not wanted:
            blind += 1
            continue
        overlap = len(wanted & every) / len(wanted)
        top = max(top, overlap)
        if overlap >= threshold:
            where = tuple(p for p, g in grams.items() if g & wanted)
            matches.append(LeakMatch(task=task.id, overlap=round(overlap, 4), artifacts=where))
    matches.sort(key=lambda m: (-m.overlap, m.task, m.kind))
    return LeakReport(
        n=n,
        threshold=threshold,
        sealed=len(sealed),
        undetectable=blind,
        max_overlap=round(top, 4),
        answers_undetectable=answers_blind,
        answers_max_overlap=round(answers_top, 4),
        matches=tuple(matches),
    )
