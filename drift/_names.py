"""Realistic new names for renamed tools, fields and enum values, drawn from a seed."""

from __future__ import annotations

import functools
import re

import numpy as np

SYNONYMS: dict[str, tuple[str, ...]] = {
    "id": ("ref", "identifier"),
    "amount": ("value", "sum"),
    "email": ("email_address", "mail"),
    "reason": ("cause", "reason_code"),
    "note": ("comment", "remark"),
    "name": ("title", "label"),
    "query": ("search", "text"),
    "limit": ("max_results", "page_size"),
    "description": ("summary", "details"),
    "status": ("state",),
    "state": ("status",),
    "resolution": ("outcome", "resolution_code"),
    "get": ("fetch", "retrieve"),
    "find": ("search", "lookup"),
    "list": ("query", "browse"),
    "issue": ("create", "make"),
    "close": ("resolve", "finish"),
    "create": ("add", "new"),
    "update": ("modify", "edit"),
    "delete": ("remove",),
    "send": ("post", "deliver"),
}
"""Word-level synonyms that keep a name's meaning."""


def tokens(name: str) -> list[str]:
    """Lower-case word tokens of a snake_case, kebab-case or camelCase name."""
    return list(_tokens(name))


@functools.lru_cache(maxsize=8192)
def _tokens(name: str) -> tuple[str, ...]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return tuple(t.lower() for t in re.split(r"[^A-Za-z0-9]+", spaced) if t)


def camel(words: list[str]) -> str:
    """``words`` joined as camelCase."""
    return words[0] + "".join(w.capitalize() for w in words[1:])


def _candidates(name: str, context: str) -> list[str]:
    words = tokens(name)
    out = []
    for i, word in enumerate(words):
        for syn in SYNONYMS.get(word, ()):
            out.append("_".join([*words[:i], syn, *words[i + 1 :]]))
    if len(words) > 1:
        out.append(camel(words) if "_" in name else "_".join(words))
    if context and context not in words:
        out.append(f"{context}_{'_'.join(words)}")
    return out


def new_name(name: str, taken: set[str], rng: np.random.Generator, context: str = "") -> str:
    """A new name meaning the same as ``name``, not in ``taken``; ``context`` may prefix it."""
    options = [c for c in dict.fromkeys(_candidates(name, context)) if c not in taken]
    if not options:
        options = [f"{name}_v2"]
    return options[int(rng.integers(len(options)))]
