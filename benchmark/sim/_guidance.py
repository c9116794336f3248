"""Reading artifacts — recipes, typed skills, retrieved episodes — into what they say.

Every form is read into one structure: the steps it names and the ones it forbids, the tool
and field names it uses, its code map, fixed values, and the convention it states per field.
Content is applied, not keywords: a wrong code map gives wrong codes, "never close the ticket"
forbids closing, and a unit stated for one field says nothing about another.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from benchmark.sim._intent import read_request
from benchmark.sim._pack import Kind, KnowledgePack, Lexicon, packs
from benchmark.sim._text import IDENT, NEGATION, tokens
from drift import Convention, read_stated

_TAG = re.compile(r"<(recipe|typed-skill|trajectory|skill)[^>]*>\n?(.*?)\n?</\1>", re.DOTALL)
_PATH = re.compile(r"`?\b[\w.-]+/[\w./-]+`?")
"""A file path (``references/codes.md``): what a skill names a file by, never a field or tool."""
_PAIR = re.compile(r"['\"]?\b([a-z][a-z_]*)\b['\"]? for ([^,;.]+)")
_ARROW = re.compile(r"([a-z][a-z ]*?) ?(?:→|->|=>) ?['\"]?([a-z][a-z_]*)")
_CONSTANT = re.compile(r"\b([a-z][a-z_]*)\b ?[:=]? ?[\"']([a-z][a-z_]*)[\"']")
_CUT = re.compile(r",|:|;| and | then ")

Key = tuple[str, str]  # (action, input slot)


@dataclass
class Guidance:
    """What the artifacts a model follows tell it."""

    named: set[str] = field(default_factory=set)  # actions an artifact is about
    steps: set[str] = field(default_factory=set)
    forbidden: set[str] = field(default_factory=set)
    tools: dict[str, str] = field(default_factory=dict)  # action → tool name
    fields: dict[Key, str] = field(default_factory=dict)  # (action, slot) → field name
    codes: dict[str, str] = field(default_factory=dict)  # concept → code
    constants: dict[Key, str] = field(default_factory=dict)
    conventions: dict[Key, Convention] = field(default_factory=dict)

    def merge(self, other: Guidance) -> None:
        """Add ``other``'s content; what was read first wins a disagreement."""
        self.named |= other.named
        self.steps |= other.steps
        self.forbidden |= other.forbidden
        self.tools = {**other.tools, **self.tools}
        self.fields = {**other.fields, **self.fields}
        self.codes = {**other.codes, **self.codes}
        self.constants = {**other.constants, **self.constants}
        self.conventions = {**other.conventions, **self.conventions}

    def state(self, key: Key, stated: Convention) -> None:
        """Record a convention stated for ``key`` (aspects already stated are kept)."""
        if stated == Convention():
            return
        old = self.conventions.get(key, Convention())
        merged = {
            name: getattr(old, name) if getattr(old, name) not in (None, {}) else value
            for name, value in vars(stated).items()
        }
        self.conventions[key] = replace(old, **merged)


class _Reader:
    def __init__(self, pack: KnowledgePack) -> None:
        self.pack = pack

    def action_of(self, name: str) -> str | None:
        """The action a tool name stands for (its words must point at it clearly)."""
        return _by_words(name, {a: spec.lexicon for a, spec in self.pack.actions.items()}, 3)

    def action_in(self, clause: str) -> str | None:
        """The action a clause of prose names, by its words."""
        for ident in IDENT.findall(clause):
            action = self.action_of(ident)
            if action:
                return action
        return self.action_of(clause)

    def slot_of(self, action: str | None, name: str) -> list[Key]:
        """(action, slot) pairs a field name stands for: in ``action`` if given, else in any."""
        words = tokens(name)
        actions = [action] if action else list(self.pack.actions)
        out = []
        for act in actions:
            for slot, lex in self.pack.actions[act].inputs.items():
                if words and lex.get(words[0], 0) >= 3:
                    out.append((act, slot))
                    break
        return out

    def concept_of(self, phrase: str) -> str | None:
        """The concept a phrase ('double charges', 'arrived late') describes."""
        return _by_words(phrase, self.pack.concepts, 2)


def _by_words(text: str, lexicons: dict[str, Lexicon], minimum: int) -> str | None:
    """The lexicon ``text``'s words score highest on, if at least ``minimum``."""
    words = tokens(text)
    scores = {k: sum(lex.get(w, 0) for w in words) for k, lex in lexicons.items()}
    best = max(scores, key=lambda k: scores[k], default=None)
    return best if best is not None and scores[best] >= minimum else None


def _segment(text: str) -> str:
    """The words about one field: up to the next field, comma, colon or 'and', keeping a
    parenthesis whole."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ((IDENT.match(text, i) and i > 0) or _CUT.match(text, i)):
            return text[:i]
    return text


def _read_clause(reader: _Reader, clause: str, line_action: str | None, g: Guidance) -> None:
    negated = bool(NEGATION.search(clause))
    action = reader.action_in(clause) or line_action
    if action is not None:
        g.named.add(action)
        (g.forbidden if negated else g.steps).add(action)
    if negated:
        return
    for match in IDENT.finditer(clause):
        ident = match.group()
        tool_action = reader.action_of(ident)
        if tool_action is not None:  # a tool's name, however often it is named
            g.tools.setdefault(tool_action, ident)
            continue
        for key in reader.slot_of(action, ident):
            g.fields.setdefault(key, ident)
            g.state(
                key, read_stated(f"{' '.join(tokens(ident))} {_segment(clause[match.end() :])}")
            )
    if action is not None:
        _read_slot_words(reader, clause, action, g)
    for match in _CONSTANT.finditer(clause):
        for key in reader.slot_of(action, match.group(1)):
            g.constants.setdefault(key, match.group(2))
    _read_codes(reader, clause, g)


def _read_slot_words(reader: _Reader, clause: str, action: str, g: Guidance) -> None:
    """Conventions stated for a field named in plain words ('the refund amount is in cents')."""
    low = clause.lower()
    for slot, lexicon in reader.pack.actions[action].inputs.items():
        for word in (w for w, weight in lexicon.items() if weight >= 3):
            found = re.search(rf"\b{re.escape(word)}\b", low)
            if found:
                g.state((action, slot), read_stated(_segment(clause[found.end() :])))
                break


def _read_codes(reader: _Reader, clause: str, g: Guidance) -> None:
    after = clause.split(":", 1)[1] if ":" in clause else ""
    pairs = [(m.group(1), m.group(2)) for m in _PAIR.finditer(after)]
    pairs += [(m.group(2), m.group(1)) for m in _ARROW.finditer(clause)]
    for code, phrase in pairs:
        if reader.action_of(code):
            continue
        concept = reader.concept_of(phrase)
        if concept is not None:
            g.codes.setdefault(concept, code)


def _line_format(line: str) -> str:
    if re.match(r"\s*\d+[.)]\s+", line):
        return "numbered"
    if re.match(r"\s*[-*•]\s+", line):
        return "bullets"
    if re.match(r"\s*\|", line):
        return "tables"
    return "prose"


def followed_lines(text: str, follows: frozenset[str]) -> list[str]:
    """The recipe lines a model that follows ``follows`` takes in. Under a heading, the lines
    that follow are taken in by models that follow headings."""
    out, under_heading = [], False
    for line in text.splitlines():
        if re.match(r"\s*#{1,6}\s+", line):
            under_heading = "headings" in follows
            continue
        if line.strip() and (_line_format(line) in follows or under_heading):
            out.append(line)
    return out


def read_recipe(pack: KnowledgePack, body: str, follows: frozenset[str]) -> Guidance:
    """What the lines of a recipe a model follows say."""
    reader, g = _Reader(pack), Guidance()
    for line in followed_lines(body, follows):
        line_action = reader.action_in(line)
        for clause in re.split(r";|(?<=[a-z0-9)])\. ", line):
            _read_clause(reader, clause, line_action, g)
    return g


def _named_calls(reader: _Reader, calls: list[tuple[str, dict[str, Any]]], g: Guidance) -> None:
    for tool, args in calls:
        action = reader.action_of(tool)
        if action is None:
            continue
        g.named.add(action)
        g.steps.add(action)
        g.tools.setdefault(action, tool)
        for arg, value in args.items():
            for key in reader.slot_of(action, arg):
                g.fields[key] = arg  # a structured call says exactly whose argument it is
                g.state(key, read_stated(" ".join(tokens(arg))))
                if isinstance(value, str) and not value.startswith("$") and " " not in value:
                    g.constants.setdefault(key, value)


def _json_object(body: str) -> dict[str, Any] | None:
    """``body`` as a JSON object, or None (a model skips what it cannot read)."""
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def read_skill(pack: KnowledgePack, body: str) -> Guidance:
    """What a typed skill says: its steps, arguments, code map and units."""
    reader, g = _Reader(pack), Guidance()
    skill = _json_object(body)
    if skill is None:
        return g
    steps = [s for s in skill.get("steps") or [] if isinstance(s, dict)]
    calls = [(str(s.get("tool", "")), dict(s.get("args") or {})) for s in steps]
    _named_calls(reader, calls, g)
    for phrase, code in (skill.get("codes") or {}).items():
        concept = reader.concept_of(str(phrase))
        if concept is not None:
            g.codes.setdefault(concept, str(code))
    for arg, unit in (skill.get("units") or {}).items():
        users = [reader.action_of(t) for t, args in calls if arg in args]
        for action in users:
            for key in reader.slot_of(action, str(arg)):
                g.conventions[key] = replace(
                    g.conventions.get(key, Convention()), unit=read_stated(str(unit)).unit
                )
    return g


def read_episode(pack: KnowledgePack, body: str) -> Guidance:
    """What imitating a retrieved episode takes from it: its names, steps, codes and units."""
    reader, g = _Reader(pack), Guidance()
    episode = _json_object(body)
    if episode is None:
        return g
    calls = [
        (str(c.get("name", "")), dict(c.get("arguments") or {}))
        for c in episode.get("calls") or []
        if isinstance(c, dict)
    ]
    _named_calls(reader, calls, g)
    g.constants.clear()  # an example's values are its own, except what they show below
    # the episode's own calls say which family its request belongs to, as its tools would
    known = {n: str(f.get("description", "")) for p in packs() for n, f in p.remembered().items()}
    called = {name: known.get(name, "") for name, _ in calls}
    asked = read_request(str(episode.get("instruction", "")), True, 0.0, 0.0, called)
    if asked is None or asked.pack.family != pack.family:
        return g
    for tool, args in calls:
        action = reader.action_of(tool)
        step = next((s for s in asked.kind.steps if s.action == action), None)
        if step is None:
            continue
        for input_slot, slot_name in step.args.items():
            arg = g.fields.get((str(action), input_slot))
            if arg is None or arg not in args:
                continue
            _learn(g, (str(action), input_slot), asked.kind, slot_name, args[arg], asked.stated)
    return g


def _learn(
    g: Guidance, key: Key, kind: Kind, slot_name: str, value: Any, stated: dict[str, Any]
) -> None:
    """What one example value shows: the unit of a money field, the code of a concept."""
    slot = kind.slots[slot_name]
    if slot.type == "code" and slot.concept and isinstance(value, str):
        g.codes.setdefault(slot.concept, value)
    elif slot.type in ("money", "signed") and slot_name in stated and _number(value):
        cents = abs(stated[slot_name])
        unit = "cents" if abs(value) == cents else "dollars" if abs(value) * 100 == cents else None
        if unit:
            g.conventions[key] = replace(g.conventions.get(key, Convention()), unit=unit)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def read_guidance(pack: KnowledgePack, kind: Kind, text: str, follows: frozenset[str]) -> Guidance:
    """What the artifacts in ``text`` (system prompt and loaded skills) that apply to this kind
    of request tell a model following ``follows``. An artifact applies when it is about the
    request's core action."""
    core = {s.action for s in kind.steps if s.core}
    out = Guidance()
    for form, body in _TAG.findall(text):
        if form == "recipe":
            g = read_recipe(pack, body, follows)
        elif form == "skill":  # an Agent Skill's text is read like a recipe, its paths aside
            g = read_recipe(pack, _PATH.sub("", body), follows)
        elif form == "typed-skill" and "skill" in follows:
            g = read_skill(pack, body)
        elif form == "trajectory" and "episode" in follows:
            g = read_episode(pack, body)
        else:
            continue
        if g.named & core:
            out.merge(g)
    return out
