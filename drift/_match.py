"""Pairing the tools and fields of two tool lists by name and similarity, not by position."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any

from drift._names import tokens
from drift._semantics import UNIT_SPELLING, containment, is_identifier, text_similarity
from drift._tools import JSON, Tool

MATCH_AT = 0.5
"""Least similarity at which an unpaired old and new item count as one renamed item."""


@dataclass(frozen=True)
class Leaf:
    """One input field at any depth: its dotted path, schema and whether it is required."""

    path: str
    prop: JSON
    required: bool
    index: int = 0
    """Position among its sibling properties."""

    @property
    def name(self) -> str:
        """The last path segment."""
        return self.path.rsplit(".", 1)[-1]

    @property
    def depth(self) -> int:
        """How many objects it sits inside (0 = top level)."""
        return self.path.count(".")

    @property
    def desc(self) -> str:
        """Its description, or ''."""
        return str(self.prop.get("description", ""))

    @property
    def type(self) -> Any:
        """Its JSON type (``None`` when unstated; a list for a union)."""
        return self.prop.get("type")

    @functools.cached_property
    def types(self) -> frozenset[str]:
        """Every JSON type it accepts (from ``type`` or ``anyOf``/``oneOf``; empty = unstated)."""
        return type_set(self.prop)


def leaves(schema: JSON, prefix: str = "", required: bool = True) -> dict[str, Leaf]:
    """Every non-object field of an object schema by dotted path; objects are descended into."""
    out: dict[str, Leaf] = {}
    props = schema.get("properties")
    needed = set(schema.get("required", []) or [])
    if not isinstance(props, dict):
        return out
    for index, (name, prop) in enumerate(props.items()):
        if not isinstance(prop, dict):
            continue
        path = f"{prefix}{name}"
        inner = prop.get("properties")
        if prop.get("type") == "object" and isinstance(inner, dict) and inner:
            out.update(leaves(prop, f"{path}.", required and name in needed))
        else:
            out[path] = Leaf(path, prop, required and name in needed, index)
    return out


def type_set(prop: JSON) -> frozenset[str]:
    """The JSON types a property accepts, read from ``type`` or its ``anyOf``/``oneOf`` arms."""
    declared = prop.get("type")
    if isinstance(declared, str):
        return frozenset({declared})
    if isinstance(declared, list):
        return frozenset(t for t in declared if isinstance(t, str))
    arms = prop.get("anyOf") or prop.get("oneOf") or []
    return frozenset(t for arm in arms if isinstance(arm, dict) for t in type_set(arm))


def norm(name: str) -> str:
    """A name without case, separators or unit words: ``perPage`` ≡ ``per_page``."""
    words = tokens(name)
    kept = [w for w in words if w not in UNIT_SPELLING] or words
    return "".join(kept)


def name_similarity(a: str, b: str) -> float:
    """Similarity of two identifiers in [0, 1]; an abbreviation of the other scores 0.8."""
    na, nb = norm(a), norm(b)
    if na == nb:
        return 1.0
    ta, tb = set(tokens(a)), set(tokens(b))
    jaccard = len(ta & tb) / len(ta | tb)
    prefix = 0.8 if na and nb and (na.startswith(nb) or nb.startswith(na)) else 0.0
    return max(jaccard, prefix, SequenceMatcher(None, na, nb).ratio() * 0.8)


NUMERIC = frozenset({"integer", "number"})


def types_compatible(a: frozenset[str], b: frozenset[str]) -> bool:
    """Whether values of JSON types ``a`` could be the same quantity as values of ``b``."""
    widen = lambda ts: ts | NUMERIC if ts & NUMERIC else ts  # noqa: E731
    return not a or not b or bool(widen(a) & widen(b))


def leaf_similarity(a: Leaf, b: Leaf) -> float:
    """How alike two fields are: name and description, zero when the types differ (an
    identifier may move between number and string: it names the same thing)."""
    if not types_compatible(a.types, b.types) and not both_identifiers(a, b):
        return 0.0
    name = name_similarity(a.name, b.name)
    if a.desc and b.desc:
        return 0.5 * name + 0.5 * text_similarity(a.desc, b.desc)
    return name


def both_identifiers(a: Leaf, b: Leaf) -> bool:
    """Whether both fields hold identifiers, by name or description."""
    return is_identifier(a.name, a.desc) and is_identifier(b.name, b.desc)


RENAME_AT = 0.5
"""Least description agreement at which two differently named fields are one renamed field."""


def rename_similarity(a: Leaf, b: Leaf) -> float:
    """How surely ``b`` is ``a`` renamed when their names share nothing: same parent object and
    type, descriptions that say the same (one's words within the other's), and a bonus of 0.2
    for the same position. Zero without descriptions: then nothing says the meaning is kept."""
    parent = lambda leaf: leaf.path.rpartition(".")[0]  # noqa: E731
    if parent(a) != parent(b) or not (a.desc and b.desc):
        return 0.0
    if not (a.types == b.types or both_identifiers(a, b)):
        return 0.0
    said = max(text_similarity(a.desc, b.desc), containment(a.desc, b.desc))
    return said + (0.2 if a.index == b.index else 0.0)


def tool_similarity(a: Tool, b: Tool) -> float:
    """How alike two tools are: field names, description and tool name."""
    fa, fb = {norm(p) for p in leaves(a.input_schema)}, {norm(p) for p in leaves(b.input_schema)}
    fields = len(fa & fb) / len(fa | fb) if fa | fb else 1.0
    desc = text_similarity(a.description or "", b.description or "")
    return 0.4 * fields + 0.3 * desc + 0.3 * name_similarity(a.name, b.name)


def greedy_pairs(
    old: list[str], new: list[str], score: Any, at: float = MATCH_AT
) -> list[tuple[str, str]]:
    """Best-first one-to-one pairs of ``old`` × ``new`` whose ``score(o, n)`` ≥ ``at``."""
    ranked = sorted(
        ((score(o, n), i, j) for i, o in enumerate(old) for j, n in enumerate(new)),
        key=lambda t: (-t[0], t[1], t[2]),
    )
    used_o: set[int] = set()
    used_n: set[int] = set()
    pairs = []
    for s, i, j in ranked:
        if s < at:
            break
        if i in used_o or j in used_n:
            continue
        used_o.add(i)
        used_n.add(j)
        pairs.append((old[i], new[j]))
    return pairs
