"""How a sim model uses the harness's skill tools: it activates a skill whose description fits
the request, then reads the files and runs the scripts the skill's instructions point to.

Activation reads the index the harness shows (``- name: description``) the way the engine reads
anything: by the words of the request's core action (a skill about refunds is activated for a
refund, not for an email change). A skill's instructions — its body, in the context or in a
``load_skill`` result — point to its files by path; on the lines the model takes in (the formats
it follows), a path under ``scripts/`` on a line that says to run it is run, any other path is
read; a line that says not to is skipped. What a read file or a script's output says is read
like the skill's body (``<skill …>`` elements, see ``_guidance``).
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from benchmark.sim._guidance import followed_lines
from benchmark.sim._intent import Request
from benchmark.sim._profile import Profile
from benchmark.sim._text import NEGATION, tokens

LOAD_SKILL = "load_skill"
READ_SKILL_FILE = "read_skill_file"
RUN_SKILL_SCRIPT = "run_skill_script"
SKILL_TOOLS = frozenset({LOAD_SKILL, READ_SKILL_FILE, RUN_SKILL_SCRIPT})
"""The harness's skill tools: not the environment's, never an action of a request."""

_INDEX = re.compile(r"^- ([a-z0-9][a-z0-9._-]*): (.*)$", re.MULTILINE)
_SKILL = re.compile(r'<skill name="([^"]+)">\n?(.*?)\n?</skill>', re.DOTALL)
_FILES = re.compile(r"^Files: (.*)$", re.MULTILINE)
_RUN = re.compile(r"\b(?:run|execute)\b", re.IGNORECASE)
_CODE = re.compile(r"`([^`]+)`")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ed", "es", "s", "e")
RELEVANT = 3
"""Lexicon weight a skill's name and description must reach for the request's core action."""


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def relevance(name: str, description: str, request: Request) -> int:
    """How well a skill's name (three times) and description fit the request's core action."""
    named = {_stem(t) for t in tokens(name)}
    described = {_stem(t) for t in tokens(description)}
    best = 0
    for step in request.kind.steps:
        if not step.core:
            continue
        lexicon = request.pack.actions[step.action].lexicon
        fit = sum(
            w * (3 * (_stem(word) in named) + (_stem(word) in described))
            for word, w in lexicon.items()
        )
        best = max(best, fit)
    return best


def _calls(messages: list[dict[str, Any]], tool: str) -> list[dict[str, Any]]:
    """The arguments of every call of ``tool`` the model made."""
    out = []
    for m in messages:
        for tc in m.get("tool_calls") or []:
            if tc["function"]["name"] != tool:
                continue
            try:
                args = json.loads(tc["function"].get("arguments") or "{}")
            except json.JSONDecodeError:
                args = {}
            out.append(args if isinstance(args, dict) else {})
    return out


def _activation(
    sent: dict[str, dict[str, Any]], messages: list[dict[str, Any]], context: str, request: Request
) -> str | None:
    """The unloaded skill to activate: the one whose index line fits the request best."""
    loader = sent.get(LOAD_SKILL)
    if loader is None:
        return None
    names = loader.get("parameters", {}).get("properties", {}).get("name", {}).get("enum", [])
    loaded = {a.get("name") for a in _calls(messages, LOAD_SKILL)}
    index = dict(_INDEX.findall(context))
    fits = {
        n: relevance(n, index.get(n, ""), request) for n in names if n not in loaded and n in index
    }
    best = max(fits, key=lambda n: fits[n], default=None)
    return best if best is not None and fits[best] >= RELEVANT else None


def _script_args(line: str, path: str) -> list[str]:
    """The literal arguments a line gives a script inside one code span (``scripts/x.py A B``);
    none when they are placeholders."""
    for span in _CODE.findall(line):
        if not span.startswith(path):
            continue
        try:
            words = shlex.split(span)[1:]
        except ValueError:
            return []
        return [] if any(c in w for w in words for c in "<>$") else words
    return []


def _pointers(context: str, follows: frozenset[str]) -> list[tuple[str, str, str, list[str]]]:
    """(tool, skill, path, args) for every file a skill's followed lines point to, in order."""
    found = []
    for name, text in _SKILL.findall(context):
        listed = _FILES.findall(text)
        files = [f.strip() for f in listed[-1].split(",")] if listed else []
        for line in followed_lines(_FILES.sub("", text), follows):
            if NEGATION.search(line):
                continue
            for path in files:
                if path not in line:
                    continue
                if path.startswith("scripts/") and _RUN.search(line):
                    found.append((RUN_SKILL_SCRIPT, name, path, _script_args(line, path)))
                elif not path.startswith("scripts/"):
                    found.append((READ_SKILL_FILE, name, path, []))
    return found


def skill_move(
    sent: dict[str, dict[str, Any]],
    messages: list[dict[str, Any]],
    context: str,
    request: Request,
    profile: Profile,
) -> tuple[str, dict[str, Any]] | None:
    """The skill tool call to make next, as (tool, arguments), or None: activate a fitting
    skill (a model that loads skills), else read or run what an activated skill points to."""
    if profile.loads_skills:
        name = _activation(sent, messages, context, request)
        if name is not None:
            return LOAD_SKILL, {"name": name}
    done = {
        tool: {(a.get("skill"), a.get("path")) for a in _calls(messages, tool)}
        for tool in (READ_SKILL_FILE, RUN_SKILL_SCRIPT)
    }
    for tool, skill, path, args in _pointers(context, profile.follows):
        if tool in sent and (skill, path) not in done[tool]:
            arguments: dict[str, Any] = {"skill": skill, "path": path}
            if tool == RUN_SKILL_SCRIPT:
                arguments["args"] = args
            return tool, arguments
    return None
