"""Seeded generator of research-evidence tasks: a question, a frozen collection that answers
it once, and the claim (with its citation) that answers it.

Kinds: ``figure`` (a single fact with its citation), ``date`` (the year a landmark opened),
``source`` (which publisher's document states a figure) and ``check`` (a draft's figure is
wrong: the figure the collection gives, citing the passage that contradicts it). Every
collection holds the document that answers, one to three near-duplicates of it that differ in
one detail (see ``_corpus``) and documents about other towns: 4, 6 or 8 documents in all.

Documents are numbered ``SRC-<n>-<d>``, ``n`` the split's base plus the task index, ``d`` in
pairs d, 9 − d, the answering document's pair partner a near-duplicate: a document-key swap
with pivot 9 (``_tools.KEY_PIVOT``) turns the answering id into a distractor's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from benchmark._family_kit import numbered_task
from benchmark._task import Task
from benchmark.research import _corpus as c
from benchmark.research._phrasings import PHRASINGS
from benchmark.research._tools import KEY_PIVOT
from drift import ToolCall

GENERATOR_VERSION = "research-gen-1"
KINDS = ("figure", "date", "source", "check")
DOCUMENT_COUNTS = (4, 6, 8)
_PAIRS = tuple((d, KEY_PIVOT - d) for d in range(1, (KEY_PIVOT + 1) // 2))


@dataclass(frozen=True)
class _Plan:
    """A kind's answering document, the fact it cites, near-duplicates that must be among the
    collection and those that may, the phrasing slots and the claim's answer and stance."""

    target: c.Document
    cited: c.Fact
    required: tuple[c.Document, ...]
    optional: tuple[c.Document, ...]
    slots: dict[str, str]
    terms: tuple[str, ...]
    answer: str | None  # None: the answering document's publisher
    stance: str = "supports"


def _edition(doc: c.Document, old: c.Fact, new: c.Fact) -> c.Document:
    """An earlier edition of ``doc`` that stated ``new`` instead of ``old``, since superseded."""
    facts = tuple(new if f == old else f for f in doc.facts)
    return replace(doc, facts=facts, published=doc.published - 1, superseded=True)


def _twin(doc: c.Document, town: str, other: str) -> c.Document:
    """``doc`` about ``other`` instead of ``town``: the same values, another entity."""
    facts = tuple(c.in_town(f, other) for f in doc.facts)
    return replace(doc, title=doc.title.replace(town, other), facts=facts)


def _figure_plan(kind: str, rng: np.random.Generator, town: str, twin: str) -> _Plan:
    metric = c.METRICS[int(rng.integers(len(c.METRICS)))]
    year, shifted = (int(y) for y in rng.choice(range(2015, 2023), size=2, replace=False))
    cited = c.figure(rng, town, metric, year)
    avoid = ((metric.noun, year), (metric.noun, shifted))
    facts = [cited, *c.figures(rng, town, int(rng.integers(2, 4)), avoid)]
    order = rng.permutation(len(facts))
    published = max(f.year for f in facts) + 1
    target = c.profile(rng, town, [facts[int(i)] for i in order], published)
    wrong = c.other_value(rng, cited)
    edition = _edition(target, cited, wrong)
    other_year = c.digest(rng, town, [replace(cited, year=shifted)], published)
    rival = c.digest(rng, town, [wrong], published)  # another publisher's figure
    slots = {
        "town": town,
        "metric": metric.noun,
        "base": metric.base,
        "past": metric.past,
        "year": str(year),
        "value": cited.shown,
        "wrong": wrong.shown,
    }
    terms = (town, str(year), metric.noun)
    optional = (_twin(target, town, twin), other_year)
    if kind == "source":
        return _Plan(target, cited, (rival,), optional, slots, (*terms, cited.shown), None)
    if kind == "check":
        return _Plan(target, cited, (edition,), optional, slots, terms, cited.shown, "contradicts")
    return _Plan(target, cited, (), (edition, *optional), slots, terms, cited.shown)


def _date_plan(rng: np.random.Generator, town: str, twin: str) -> _Plan:
    landmarks = [str(lm) for lm in rng.choice(c.LANDMARKS, size=3, replace=False)]
    cited, other, elsewhere = c.events(rng, town, landmarks)
    restored = replace(cited, year=cited.year + int(rng.integers(20, 45)), verb="was restored")
    facts = [cited, restored, other]
    target = c.history(rng, town, [facts[int(i)] for i in rng.permutation(3)])
    moved = replace(cited, year=cited.year + int(rng.choice([-3, -2, -1, 1, 2, 3])))
    same_year = c.guide(rng, town, [replace(elsewhere, year=cited.year)])
    optional = (_edition(target, cited, moved), _twin(target, town, twin), same_year)
    slots = {"landmark": cited.name}
    return _Plan(target, cited, (), optional, slots, (cited.name, "opened"), str(cited.year))


_PLANS: dict[str, Callable[[np.random.Generator, str, str], _Plan]] = {
    "figure": partial(_figure_plan, "figure"),
    "date": _date_plan,
    "source": partial(_figure_plan, "source"),
    "check": partial(_figure_plan, "check"),
}


def _collection(
    rng: np.random.Generator, plan: _Plan, towns: list[str], number: int
) -> tuple[dict[str, dict[str, Any]], str]:
    """The collection's documents by id (in number order), and the answering document's id."""
    size = int(rng.choice(DOCUMENT_COUNTS))
    extra = int(rng.integers(0, min(3, size - 1) - len(plan.required) + 1))
    picks = rng.choice(len(plan.optional), size=min(extra, len(plan.optional)), replace=False)
    near = [*plan.required, *(plan.optional[int(i)] for i in picks)]
    if not near:
        near = [plan.optional[int(rng.integers(len(plan.optional)))]]
    fillers = [c.filler(rng, t) for t in towns[: size - 1 - len(near)]]
    pairs = [_PAIRS[int(i)] for i in rng.permutation(len(_PAIRS))[: size // 2]]
    answering, partner = pairs[0] if rng.random() < 0.5 else pairs[0][::-1]
    rest = [d for pair in pairs[1:] for d in pair]
    rest = [rest[int(i)] for i in rng.permutation(len(rest))]
    numbered = {answering: plan.target, partner: near[0]}
    numbered.update(zip(rest, [*near[1:], *fillers], strict=True))
    target_id = f"SRC-{number}-{answering}"
    documents = {}
    for d in sorted(numbered):
        doc = numbered[d]
        doc_id = f"SRC-{number}-{d}"
        documents[doc_id] = {
            "doc_id": doc_id,
            "title": doc.title,
            "publisher": doc.publisher,
            "published": doc.published,
            "status": "superseded" if doc.superseded else "current",
            "superseded_by": target_id if doc.superseded else None,
            "passages": [{"n": i + 1, "text": f.text()} for i, f in enumerate(doc.facts)],
        }
    return documents, target_id


def generate(family_id: str, split: str, split_base: int, index: int, seed: int) -> Task:
    """Task ``index`` of ``split``; ids start at ``split_base`` so splits never share one.

    ``index`` picks the kind (cycling through ``KINDS``); successive tasks of one kind
    alternate between its phrasings.
    """
    rng = np.random.default_rng([seed, index])
    kind = KINDS[index % len(KINDS)]
    number = split_base + index
    town, twin, *others = (str(t) for t in rng.permutation(c.TOWNS))
    plan = _PLANS[kind](rng, town, twin)
    documents, target_id = _collection(rng, plan, others, number)
    answer = plan.answer if plan.answer is not None else plan.target.publisher
    phrasings = PHRASINGS[kind]
    template = phrasings[(seed + index // len(KINDS)) % len(phrasings)]
    instruction = template.format(**plan.slots)
    claim = ToolCall(
        name="add_claim",
        arguments={
            "answer": answer,
            "doc_id": target_id,
            "quote": plan.cited.text(),
            "stance": plan.stance,
        },
    )
    state = {
        "documents": documents,
        "question": {
            "terms": list(plan.terms),
            "answer_in": "quote" if plan.answer is not None else "publisher",
        },
        "claims": [],
        "submitted": False,
    }
    return numbered_task(
        family=family_id,
        split=split,
        index=index,
        seed=seed,
        generator_version=GENERATOR_VERSION,
        kind=kind,
        instruction=instruction,
        initial_state=state,
        reference_calls=(claim, ToolCall(name="submit_answer", arguments={})),
    )
