"""The generated world a research task's collection describes: towns, their figures and
landmarks, the documents that state them, and near-duplicates that differ in one detail.

A task's world is consistent: every current document states facts of one table. The
near-duplicates are the deliberate exceptions — an earlier, superseded edition with another
value, a copy about another town, a report of the same figure for another year, another
publisher's different figure, another landmark opened the same year.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

TOWNS = (
    "Avonford",
    "Brimley",
    "Calderwick",
    "Dunmere",
    "Eskholt",
    "Fenmarsh",
    "Glenrow",
    "Harlowe",
    "Kestwick",
    "Lindmoor",
    "Marrowby",
    "Norcastle",
    "Oakhurst",
    "Pellham",
    "Rushmere",
    "Thornby",
)
LANDMARKS = ("Library", "Museum", "Bridge", "Market Hall", "Railway Station", "Lido")
STATISTICS = ("Regional Statistics Office", "Westmoor County Council")
NEWS = ("The Westmoor Gazette", "Northfield Evening Post")
HERITAGE = ("Westmoor Heritage Trust", "Northfield Civic Society")
GUIDES = ("Westmoor Visitor Board", "Northfield Tourist Office")


@dataclass(frozen=True)
class Metric:
    """A counted figure: its noun, how passages and questions say it, its range and step."""

    noun: str
    past: str  # "had"
    base: str  # "have"
    template: str  # a passage stating it: {town}, {year}, {value}
    low: int
    high: int
    step: int


METRICS = (
    Metric("residents", "had", "have", "In {year}, {town} had {value} residents.", 80, 950, 100),
    Metric(
        "visitors",
        "welcomed",
        "welcome",
        "{town} welcomed {value} visitors in {year}.",
        20,
        400,
        1000,
    ),
    Metric(
        "households",
        "counted",
        "count",
        "In {year}, {town} counted {value} households.",
        300,
        4000,
        10,
    ),
)
_FIGURE_YEARS = range(2014, 2024)
_OPENING_YEARS = range(1850, 1976)


@dataclass(frozen=True)
class Figure:
    """One figure fact: a town's count of a metric in a year."""

    town: str
    metric: Metric
    year: int
    value: int

    @property
    def shown(self) -> str:
        """The value as documents write it ('41,200')."""
        return f"{self.value:,}"

    def text(self) -> str:
        return self.metric.template.format(town=self.town, year=self.year, value=self.shown)


@dataclass(frozen=True)
class Event:
    """One landmark fact: when a town's landmark opened (or was restored)."""

    town: str
    landmark: str
    year: int
    verb: str = "opened"  # or "was restored"

    @property
    def name(self) -> str:
        return f"{self.town} {self.landmark}"

    def text(self) -> str:
        return f"The {self.name} {self.verb} in {self.year}."


Fact = Figure | Event


@dataclass(frozen=True)
class Document:
    """A document before it gets its id: its facts in passage order."""

    title: str
    publisher: str
    published: int
    facts: tuple[Fact, ...]
    superseded: bool = False


def _pick(rng: np.random.Generator, seq: tuple[str, ...] | list[str]) -> str:
    return seq[int(rng.integers(len(seq)))]


def figure(rng: np.random.Generator, town: str, metric: Metric, year: int) -> Figure:
    return Figure(town, metric, year, int(rng.integers(metric.low, metric.high)) * metric.step)


def other_value(rng: np.random.Generator, fact: Figure) -> Figure:
    """``fact`` with another value, a few percent off (a near-duplicate figure)."""
    step = fact.metric.step
    delta = int(rng.integers(2, 9)) * step * int(rng.choice([-1, 1]))
    return replace(fact, value=fact.value + delta)


def figures(
    rng: np.random.Generator, town: str, count: int, avoid: tuple[tuple[str, int], ...] = ()
) -> list[Figure]:
    """``count`` figures of ``town`` for distinct (metric, year) pairs, none in ``avoid``."""
    pairs = [(m, y) for m in METRICS for y in _FIGURE_YEARS if (m.noun, y) not in avoid]
    chosen = rng.choice(len(pairs), size=count, replace=False)
    return [figure(rng, town, *pairs[int(i)]) for i in chosen]


def events(rng: np.random.Generator, town: str, landmarks: list[str]) -> list[Event]:
    """An opening year for each landmark of ``town``."""
    return [Event(town, lm, int(rng.choice(_OPENING_YEARS))) for lm in landmarks]


def profile(rng: np.random.Generator, town: str, facts: list[Figure], published: int) -> Document:
    """A statistical profile of ``town``."""
    return Document(f"{town} in Figures", _pick(rng, STATISTICS), published, tuple(facts))


def history(rng: np.random.Generator, town: str, facts: list[Event]) -> Document:
    """A local history of ``town``, published after the last event it tells."""
    published = min(2024, max(f.year for f in facts) + int(rng.integers(1, 30)))
    return Document(f"A Short History of {town}", _pick(rng, HERITAGE), published, tuple(facts))


def digest(rng: np.random.Generator, town: str, facts: list[Fact], published: int) -> Document:
    """A newspaper's round-up about ``town``."""
    return Document(f"{town} Year in Review", _pick(rng, NEWS), published, tuple(facts))


def guide(rng: np.random.Generator, town: str, facts: list[Event]) -> Document:
    """A visitor's guide to ``town``."""
    published = int(rng.integers(2005, 2024))
    return Document(f"A Visitor's Guide to {town}", _pick(rng, GUIDES), published, tuple(facts))


def in_town(fact: Fact, town: str) -> Fact:
    """``fact`` about ``town`` instead (a near-duplicate differing in the entity)."""
    return replace(fact, town=town)


def filler(rng: np.random.Generator, town: str) -> Document:
    """A document about a town the question is not about."""
    if rng.random() < 0.5:
        return profile(rng, town, figures(rng, town, int(rng.integers(2, 5))), 2024)
    landmarks = list(rng.choice(LANDMARKS, size=int(rng.integers(2, 4)), replace=False))
    return history(rng, town, events(rng, town, [str(lm) for lm in landmarks]))
