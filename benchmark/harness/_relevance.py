"""Which tools a harness that exposes only relevant tools shows for a task: a deterministic
word-overlap rule between each tool's name and description and the instruction."""

from __future__ import annotations

import math
import re
from typing import Any

KEPT_TOOLS = 5
"""The best-scoring tools kept (in served order on ties), besides those artifacts name."""
_MIN_PREFIX = 4
_WORD = re.compile(r"[a-z][a-z0-9]*")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_STOP = frozenset(("and", "any", "for", "from", "that", "the", "their", "then", "this", "with"))


def words(text: str) -> frozenset[str]:
    """The content words of ``text``: lower-case, at least 3 letters, no stop words; a tool
    name's parts count as words (``issue_refund``: issue, refund), an email address as the word
    'email'."""
    found = _WORD.findall(_EMAIL.sub(" email ", text.lower()).replace("_", " "))
    return frozenset(w for w in found if len(w) >= 3 and w not in _STOP)


def _same(a: str, b: str) -> bool:
    """Equal, or the shorter (at least 4 letters) begins the longer: refund ~ refunded."""
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= _MIN_PREFIX and long.startswith(short))


def _tool_words(tool: dict[str, Any]) -> tuple[frozenset[str], frozenset[str]]:
    fn = tool["function"]
    return words(fn["name"]), words(str(fn.get("description", "")))


def scores(tools: list[dict[str, Any]], instruction: str) -> list[float]:
    """Each tool's relevance to ``instruction``: over the instruction's words the tool shares,
    2 for a word of its name and 1 of its description, times the word's rarity among the tools
    (log((n + 1) / (tools sharing it + 0.5))), so 'customer' in every description counts little."""
    asked, own = words(instruction), [_tool_words(t) for t in tools]

    def shares(w: str, tool: frozenset[str]) -> bool:
        return any(_same(w, t) for t in tool)

    out = [0.0] * len(tools)
    for w in asked:
        hits = [2 if shares(w, name) else int(shares(w, desc)) for name, desc in own]
        rarity = math.log((len(tools) + 1) / (sum(h > 0 for h in hits) + 0.5))
        out = [s + h * rarity for s, h in zip(out, hits, strict=True)]
    return out


def relevant_tools(
    tools: list[dict[str, Any]], instruction: str, artifacts: str
) -> list[dict[str, Any]]:
    """The tools (OpenAI form) relevant to ``instruction``, in served order: the
    ``KEPT_TOOLS`` best-scoring ones, and every tool the ``artifacts`` text names. A tool the
    request does not put in words can be left out, as deployments' tool retrieval does."""
    score = scores(tools, instruction)
    best = sorted(range(len(tools)), key=lambda i: -score[i])[:KEPT_TOOLS]
    named = {
        i
        for i, t in enumerate(tools)
        if re.search(rf"\b{re.escape(t['function']['name'])}\b", artifacts)
    }
    keep = set(best) | named
    return [t for i, t in enumerate(tools) if i in keep]
