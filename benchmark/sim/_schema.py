"""How a sim model reads a served field's name and description: its own reader.

It starts from ``drift.read_convention`` — the registry the drift operators write through — and
reads on where that says nothing, in the styles real servers write that the operators do not:
a unit named with its currency ("in USD cents", "minor units"), a scale given as a range
("between 0.0 and 1.0", "0-100"), signs stated as "a positive number …, a negative one …".
What the operators write reads the same either way; the sim's reading is tested on real
servers' tool lists too (tests/benchmark/sim/test_schema_reading.py).
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace
from typing import Any

from drift import Convention, read_convention

_CENTS = re.compile(r"\b(?:cents?|minor units?|1/100)\b", re.IGNORECASE)
_TIMES = re.compile(r"(?:×|\bx|\btimes) ?100\b|\bby 100\b", re.IGNORECASE)
_FRACTION = re.compile(
    r"\bbetween 0(?:\.0)? and 1(?:\.0)?\b|\b0(?:\.0)? ?(?:-|to) ?1(?:\.0)?\b", re.I
)
_PERCENT = re.compile(r"\b0 ?(?:-|to) ?100\b|\bbetween 0 and 100\b|\bpercentage\b", re.I)
_SIGN = re.compile(r"\b(positive|negative)\b\s+(?:(?:number|one|value|amount)s?\s+)?(.+)", re.I)


@functools.lru_cache(maxsize=4096)
def _extra(desc: str) -> tuple[str | None, str | None, str | None, str | None]:
    unit = "cents" if _CENTS.search(desc) and not _TIMES.search(desc) else None
    scale = "fraction" if _FRACTION.search(desc) else "percent" if _PERCENT.search(desc) else None
    signs: dict[str, str] = {}
    for piece in re.split(r"[,;]|\band\b", desc):
        m = _SIGN.search(piece)
        if m:
            signs.setdefault(m.group(1).lower(), m.group(2).strip(" .").lower())
    return unit, scale, signs.get("positive"), signs.get("negative")


def read_field(name: str, prop: dict[str, Any]) -> Convention:
    """The convention a served field states, as a sim model reads it."""
    said = read_convention(name, prop)
    unit, scale, positive, negative = _extra(str(prop.get("description", "")))
    return replace(
        said,
        unit=said.unit or unit,
        scale=said.scale or scale,
        positive=said.positive if said.positive and said.negative else positive or said.positive,
        negative=said.negative if said.positive and said.negative else negative or said.negative,
    )
