"""A sim model asked to rewrite a playbook for changed tools (the adaptation's recipe rewrite).

The request holds the playbook between ``<playbook>`` tags and the changes from the tools it was
written for, one per line, as the drift classifier words them. What the model does with them is
what it reads: with ``read_schema`` it carries renamed tools and fields into the text; with
``read_conventions`` as well it restates a field whose unit changed (the old statement after
the field, e.g. "(the dollar amount x 100)", becomes "(in dollars)"). A model that reads
neither returns the playbook unchanged. It never invents a change the list does not name.
"""

from __future__ import annotations

import re

from benchmark.sim._catalogue import SimModelSpec
from benchmark.sim._profile import draw_profile

_PLAYBOOK = re.compile(r"<playbook>\s*(.*?)\s*</playbook>", re.DOTALL)
_RENAMED = re.compile(r"^\S+ \S+: (?:field|tool)_renamed \(\w+\): '(\w+)' is now '(\w+)'", re.M)
_UNIT = re.compile(r"^\S+ (\w+): unit_changed \(\w+\): unit (\w+) → (\w+)", re.M)


def playbook_of(text: str) -> str | None:
    """The playbook a rewrite request holds, if ``text`` is one."""
    found = _PLAYBOOK.search(text)
    return found.group(1) if found else None


def _restate(text: str, field: str, unit: str) -> str:
    """``text`` with the statement after the first mention of ``field`` saying ``unit``."""
    mention = re.search(rf"\b{re.escape(field)}\b( \([^)]*\))?", text)
    if mention is None:
        return text
    return text[: mention.start()] + f"{field} (in {unit})" + text[mention.end() :]


def rewrite(spec: SimModelSpec, seed: int, request: str) -> str:
    """The model's reply to a rewrite ``request``: the playbook as it rewrites it, tagged."""
    playbook = playbook_of(request) or ""
    profile = draw_profile(spec, seed, playbook)
    text = playbook
    if profile.reads_schema:
        for old, new in _RENAMED.findall(request):
            text = re.sub(rf"\b{re.escape(old)}\b", new, text)
        if profile.reads_conventions:
            for field, _old, new in _UNIT.findall(request):
                text = _restate(text, field, new)
    return f"<recipe>\n{text}\n</recipe>"
