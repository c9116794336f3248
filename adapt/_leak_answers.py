"""The answer side of the leak gate: a sealed task's reference answer found in artifacts.

Copying a sealed request is one leak; copying its *answer* is the other: a lookup table of
ticket → order, amount that solves the sealed tasks holds none of their request text. A task's
answer is the argument values of its reference calls (ids, amounts, codes, quoted text). A
value that also answers a public task (the dev and examples splits: enum codes, file paths,
resolutions) says nothing of a sealed one and does not count, nor a short one (a number of
fewer than three digits, a string of fewer than three characters), nor one held inside another
value of the same answer (an amount inside the quote that states it). What is left is the
task's own; an artifact set holding enough of it holds the answer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from benchmark import Task, family

PUBLIC_ANSWER_SPLITS = ("dev", "examples")
"""Splits whose answers are public in every cycle (their values are no leak)."""
_TOKEN = re.compile(r"[a-z0-9]+(?:[._\-/:@,][a-z0-9]+)*")
_SPACE = re.compile(r"\s+")

Form = tuple[str, ...]
"""The ways one answer value may be written (e.g. 15930 cents as '15930' or '159.30')."""


def _scalars(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _scalars(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _scalars(v)
    elif value is not None and not isinstance(value, bool):
        yield value


def _forms(value: Any) -> Form | None:
    """How ``value`` may appear in text (lower case), or None when too short to tell."""
    if isinstance(value, int):
        if abs(value) < 100:
            return None
        return (str(value), f"{value / 100:.2f}")  # amounts in cents may be written in units
    if isinstance(value, float):
        text = repr(value)
        return (text,) if len(text.strip("-0.")) >= 3 else None
    text = _SPACE.sub(" ", str(value).strip().lower())
    return (text,) if len(text) >= 3 else None


def answer_forms(task: Task) -> set[Form]:
    """Every value of ``task``'s reference calls that is long enough to tell, as its forms."""
    return {
        f for call in task.reference_calls for v in _scalars(call.arguments) if (f := _forms(v))
    }


def public_answers(family_ids: Iterable[str], per_split: int) -> set[Form]:
    """The answer values of the first ``per_split`` tasks of each public split of each family
    (all of a split holding fewer)."""
    out: set[Form] = set()
    for f in sorted(set(family_ids)):
        fam = family(f)
        for split in PUBLIC_ANSWER_SPLITS:
            if split in fam.splits:
                n = min(per_split, fam.split_size(split) or per_split)
                for t in fam.tasks(split, n, 0):
                    out |= answer_forms(t)
    return out


def distinctive(task: Task, public: set[Form]) -> set[Form]:
    """``task``'s answer values that no public task shares and no other of its values holds."""
    own = answer_forms(task) - public
    return {f for f in own if not any(f[0] != g[0] and f[0] in g[0] for g in own)}


class AnswerText:
    """An artifact set's text as the answer check reads it: lower case, spaces collapsed, and
    its tokens (runs of letters and digits joined by . _ - / : @ ,)."""

    def __init__(self, texts: Iterable[str]) -> None:
        """Read every text of ``texts``."""
        self._texts = [_SPACE.sub(" ", t.lower()) for t in texts]
        self._tokens = {tok for t in self._texts for tok in _TOKEN.findall(t)}

    def holds(self, form: Form) -> bool:
        """Whether any way of writing the value appears, as a whole token or (for text of
        several words) as a phrase between word boundaries."""
        for text in form:
            if _TOKEN.fullmatch(text):
                if text in self._tokens:
                    return True
                continue
            pattern = re.compile(r"(?<![a-z0-9])" + re.escape(text) + r"(?![a-z0-9])")
            if any(pattern.search(t) for t in self._texts):
                return True
        return False
