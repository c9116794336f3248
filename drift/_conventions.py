"""What a field's name and description say about how its values are read.

The changing operators write these conventions into descriptions (a unit, a scale, a sign
convention, a time zone, swapped enum meanings, a default, the kind of identifier taken); this
module reads them back, for anyone who acts on a served schema — the sim models among them.
It also reads where positions start counting, which no operator writes (index_base is
schema-silent) but an artifact may state, and how a search pattern matches (a glob, or part of
a name), as real servers' descriptions state it. One registry of units serves both directions.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from drift._names import tokens
from drift._ops_core import UNIT_WORDS
from drift._ops_values import FRACTION_TEXT, PERCENT_TEXT

UNITS: dict[str, tuple[str, float]] = {
    "cents": ("money", 1.0),
    "dollars": ("money", 100.0),
    "milliseconds": ("duration", 0.001),
    "seconds": ("duration", 1.0),
    "minutes": ("duration", 60.0),
}
"""Unit → (dimension, how many of the dimension's base unit one of it holds)."""

_TIMES_100 = re.compile(r"(?:×|\bx|\btimes) ?100\b|\bby 100\b")
_SIGN = re.compile(
    r"\b(positive|negative)(?: values?| amounts?| numbers?)? (?:means? |are |is )?"
    r"((?:[^;.,()]|\([^)]*\))+?)(?= and |[;.,)]|$)",  # a parenthesis inside stays whole
    re.IGNORECASE,
)
_ZONE = re.compile(r"\bUTC([+-]\d{2}:\d{2})?(?![\w+-])|\bGMT\b")
_SWAP = re.compile(r"'([^']+)' now means what '([^']+)' meant")
_DEFAULT = re.compile(r"\bdefaults? (?:is |to )?(true|false)\b|\bdefault:? ?(true|false)\b", re.I)
_TAKES = re.compile(r"\btakes the ([\w -]+?), not the ([\w -]+?)[.;]", re.IGNORECASE)
_GLOB = re.compile(r"\bglob(?:-style)?\b|\*\*/\*", re.IGNORECASE)
_SUBSTRING = re.compile(
    r"\bpartial (?:names?|matches?)\b|\bsubstrings?\b|\bpart of (?:a|the|its) (?:file )?name\b",
    re.IGNORECASE,
)
_BASE = re.compile(
    r"\b(?:counted|numbered|indexed|counting|numbering|starts?|starting) (?:from|at) "
    r"(0|1|zero|one)\b|\b(0|1|zero|one)-(?:based|indexed)\b",
    re.IGNORECASE,
)


def convert(value: float, unit: str, to: str) -> float:
    """``value`` in ``unit`` expressed in ``to`` (same dimension)."""
    (dim, factor), (dim_to, factor_to) = UNITS[unit], UNITS[to]
    if dim != dim_to:
        raise ValueError(f"cannot convert {unit} to {to}")
    return value * factor / factor_to


def unit_in(text: str) -> str | None:
    """The unit a piece of text names (a unit word, or 'x 100' for cents from dollars)."""
    if _TIMES_100.search(text.lower()):
        return "cents"
    words = set(tokens(text))
    found = [u for u, spellings in UNIT_WORDS.items() if words & set(spellings)]
    return found[0] if len(found) == 1 else None


@dataclass(frozen=True)
class Convention:
    """How one field's values are read, as far as its name and description say.

    ``None`` means the text does not say (the reader falls back on what it assumes)."""

    unit: str | None = None
    scale: str | None = None  # "fraction" | "percent"
    positive: str | None = None  # what a positive value means, in the description's words
    negative: str | None = None
    zone: str | None = None  # UTC offset, e.g. "+00:00"
    meanings: dict[str, str] = field(default_factory=dict)  # value → the value it now means
    default: Any = None
    takes: str | None = None  # kind of identifier taken, e.g. "internal key"
    not_takes: str | None = None
    base: int | None = None  # where positions start counting: 0 or 1
    match: str | None = None  # how a pattern matches: "glob" or "substring" (part of a name)

    def differs(self, other: Convention) -> list[str]:
        """Names of the aspects both state and state differently."""
        out = []
        for name in ("unit", "scale", "positive", "zone", "default", "takes", "base", "match"):
            mine, theirs = getattr(self, name), getattr(other, name)
            if mine is not None and theirs is not None and mine != theirs:
                out.append(name)
        if self.meanings != other.meanings:
            out.append("meanings")
        return out


def _zone(text: str) -> str | None:
    match = _ZONE.search(text)
    if match is None:
        return None
    return match.group(1) or "+00:00"


def _meanings(desc: str) -> dict[str, str]:
    """Value → the value whose old meaning it has now (the operator states swaps)."""
    out: dict[str, str] = {}
    for match in _SWAP.finditer(desc):
        a, b = match.group(1), match.group(2)
        out.setdefault(a, b)
        out.setdefault(b, a)
    return out


def read_convention(name: str, prop: dict[str, Any]) -> Convention:
    """The convention field ``name`` with JSON-schema ``prop`` states."""
    default, maximum = prop.get("default"), prop.get("maximum")
    return _read(name, str(prop.get("description", "")), default, maximum)


@functools.lru_cache(maxsize=4096)
def _read(name: str, desc: str, default: Any, maximum: Any) -> Convention:
    """``read_convention`` on the parts of a property it reads (cached: schemas repeat)."""
    unit = unit_in(desc) or unit_in(" ".join(tokens(name)))  # the description outranks a name
    scale = "percent" if PERCENT_TEXT.search(desc) else None
    if scale is None and (FRACTION_TEXT.search(desc) or maximum == 1):
        scale = "fraction"
    signs = {m.group(1).lower(): m.group(2).strip().lower() for m in _SIGN.finditer(desc)}
    if default is None:
        stated = _DEFAULT.search(desc)
        if stated:
            default = (stated.group(1) or stated.group(2)).lower() == "true"
    takes = _TAKES.search(desc)
    based = _BASE.search(desc)
    base = (based.group(1) or based.group(2)).lower() if based else None
    return Convention(
        unit=unit,
        scale=scale,
        positive=signs.get("positive"),
        negative=signs.get("negative"),
        zone=_zone(desc),
        meanings=_meanings(desc),
        default=default,
        takes=takes.group(1).lower() if takes else None,
        not_takes=takes.group(2).lower() if takes else None,
        base=None if base is None else int(base in ("1", "one")),
        match="glob" if _GLOB.search(desc) else "substring" if _SUBSTRING.search(desc) else None,
    )


def read_stated(text: str) -> Convention:
    """The convention a free-text statement about a field makes (e.g. a recipe's clause)."""
    return read_convention("", {"description": text})
