"""How a sim model reads what it is sent: the instruction, recipes and typed skills.

Everything here works on message text alone; nothing looks at a task's answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_TAG = re.compile(r"<(recipe|typed-skill|trajectory)[^>]*>\n?(.*?)\n?</\1>", re.DOTALL)
_IDENT = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")

# What each action and slot is called, as a model that has seen many APIs would guess.
ACTIONS: dict[str, dict[str, int]] = {
    "find_customer": {"customer": 2, "find": 2, "email": 1, "lookup": 1, "search": 1},
    "get_order": {"order": 2, "get": 2, "fetch": 2, "read": 1},
    "refund": {"refund": 3, "reimburse": 2, "credit": 1},
    "close": {"close": 3, "resolve": 2, "ticket": 1},
}
SLOTS: dict[str, dict[str, dict[str, int]]] = {
    "find_customer": {"email": {"email": 3, "mail": 2, "address": 1}},
    "get_order": {"order": {"order": 3, "id": 1, "number": 1, "ref": 1}},
    "refund": {
        "order": {"order": 3, "id": 1, "number": 1, "ref": 1},
        "amount": {"amount": 3, "cents": 2, "dollars": 2, "sum": 1, "value": 1, "money": 1},
        "reason": {"reason": 3, "code": 1, "why": 1},
    },
    "close": {
        "ticket": {"ticket": 3, "id": 1},
        "resolution": {"resolution": 3, "outcome": 2, "code": 1},
    },
}


def tokens(text: str) -> list[str]:
    """Lower-case word tokens, splitting snake_case and camelCase."""
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)
    return re.findall(r"[a-z]+", text.lower())


def best_match(candidates: dict[str, str], lexicon: dict[str, int]) -> str | None:
    """The candidate (name → description) whose name and description best fit ``lexicon``."""
    best, best_score = None, 0
    for name, desc in candidates.items():
        score = 3 * sum(lexicon.get(t, 0) for t in tokens(name))
        score += sum(lexicon.get(t, 0) for t in set(tokens(desc)))
        if score > best_score:
            best, best_score = name, score
    return best


@dataclass(frozen=True)
class Intent:
    """What the instruction asks for, as read by the model."""

    situation: str  # duplicate | damaged | late
    ticket: str | None
    order: str | None
    email: str | None
    item: str | None
    dollars: float | None
    shipping: bool


def read_instruction(text: str) -> Intent | None:
    """Parse a support instruction; None when the model does not recognise the request."""
    low = text.lower()
    if "twice" in low or "identical charges" in low or "duplicate" in low:
        situation = "duplicate"
    elif re.search(r"\blate\b", low):
        situation = "late"
    elif "damaged" in low or "broken" in low:
        situation = "damaged"
    else:
        return None
    ticket = re.search(r"\bTCK-\d+\b", text)
    order = re.search(r"\bORD-\d+\b", text)
    email = re.search(r"[\w.+-]+@[\w-]+\.[\w.]+\w", text)
    dollars = re.search(r"\$(\d+(?:\.\d{1,2})?)", text)
    item = re.search(r"(?:the|every) ([A-Z][\w-]*(?: [A-Z][\w-]*)*)", text)
    return Intent(
        situation=situation,
        ticket=ticket.group(0) if ticket else None,
        order=order.group(0) if order else None,
        email=email.group(0) if email else None,
        item=item.group(1) if item else None,
        dollars=float(dollars.group(1)) if dollars else None,
        shipping="shipping" in low,
    )


@dataclass
class Directives:
    """What artifacts in the context tell the model to do; each overrides its own reading."""

    procedure: bool = False
    codes: bool = False
    unit: str | None = None
    tool_names: dict[str, str] = field(default_factory=dict)
    field_names: dict[tuple[str, str], str] = field(default_factory=dict)
    example_code: str | None = None  # a reason code seen in an example, copied when unsure


def _line_format(line: str) -> str | None:
    if re.match(r"\s*\d+[.)]\s+", line):
        return "numbered"
    if re.match(r"\s*[-*•]\s+", line):
        return "bullets"
    if re.match(r"\s*\|", line):
        return "tables"
    return None


def followed_lines(text: str, formats: tuple[str, ...]) -> list[str]:
    """The recipe lines a model that follows ``formats`` takes in. Under a heading, the lines
    that follow are taken in by models that follow headings."""
    out, under_heading = [], False
    for line in text.splitlines():
        if re.match(r"\s*#{1,6}\s+", line):
            under_heading = "headings" in formats
            continue
        if not line.strip():
            continue
        fmt = _line_format(line)
        if (fmt is not None and fmt in formats) or under_heading:
            out.append(line)
    return out


def action_of(tool: str, minimum: int = 3) -> str | None:
    """The action a tool name best fits in the lexicon, if it scores at least ``minimum``."""
    scores = {a: sum(lex.get(t, 0) for t in tokens(tool)) for a, lex in ACTIONS.items()}
    best = max(scores, key=lambda a: scores[a])
    return best if scores[best] >= minimum else None


def _name_directives(ident: str, d: Directives) -> None:
    action = action_of(ident)
    if action is not None:
        d.tool_names.setdefault(action, ident)
        return
    for act in SLOTS:
        slot = _slot_of(act, ident)
        if slot is not None:
            d.field_names.setdefault((act, slot), ident)


def _slot_of(action: str, field: str) -> str | None:
    words = tokens(field)
    for slot, lexicon in SLOTS[action].items():
        if words and lexicon.get(words[0], 0) >= 3:
            return slot
    return None


def _recipe_directives(lines: list[str], d: Directives) -> None:
    text = "\n".join(lines)
    low = text.lower()
    if re.search(r"close[^.\n]*ticket", low):
        d.procedure = True
    if (
        "reason" in low
        and len(re.findall(r"\b(?:damaged|duplicate_charge|late_delivery)\b", low)) >= 2
    ):
        d.codes = True
    if re.search(r"\bin cents\b|(?:×|x|times) ?100|by 100\b", low):
        d.unit = "cents"
    elif re.search(r"\bin dollars\b", low):
        d.unit = "dollars"
    for ident in _IDENT.findall(text):
        _name_directives(ident, d)


def _skill_directives(raw: str, d: Directives) -> None:
    try:
        skill: Any = json.loads(raw)
    except json.JSONDecodeError:
        return
    if not isinstance(skill, dict):
        return
    _named_calls([s for s in skill.get("steps", []) if isinstance(s, dict)], d)
    if skill.get("codes"):
        d.codes = True
    units = skill.get("units") or {}
    if isinstance(units, dict) and units:
        d.unit = str(next(iter(units.values())))


def _named_calls(calls: list[Any], d: Directives) -> None:
    """Tool and argument names, as a structured list of calls uses them."""
    for call in calls:
        tool = str(call.get("tool") or call.get("name") or "")
        _name_directives(tool, d)
        action = action_of(tool)
        args = call.get("args") or call.get("arguments") or {}
        for arg in args if isinstance(args, dict) else {}:
            # a structured call says exactly which tool each argument name belongs to
            slot = _slot_of(action, str(arg)) if action else None
            if action and slot:
                d.field_names[(action, slot)] = str(arg)
        if "close" in tokens(tool):
            d.procedure = True


def _trajectory_directives(raw: str, d: Directives) -> None:
    """Imitation of an episode: its names, its procedure, its unit, its reason code."""
    try:
        episode: Any = json.loads(raw)
    except json.JSONDecodeError:
        return
    calls = [c for c in episode.get("calls", []) if isinstance(c, dict)]
    _named_calls(calls, d)
    asked = read_instruction(str(episode.get("instruction", "")))
    for call in calls:
        if action_of(str(call.get("name", ""))) != "refund":
            continue
        for arg, value in (call.get("arguments") or {}).items():
            if _slot_of("refund", arg) == "amount" and asked and asked.dollars is not None:
                if value == round(asked.dollars * 100):
                    d.unit = "cents"
                elif value == asked.dollars:
                    d.unit = "dollars"
            elif _slot_of("refund", arg) == "reason" and isinstance(value, str):
                d.example_code = value


def read_artifacts(system_text: str, formats: tuple[str, ...]) -> Directives:
    """Directives from the recipes a model can follow, every typed skill and every example."""
    d = Directives()
    for kind, body in _TAG.findall(system_text):
        if kind == "recipe":
            _recipe_directives(followed_lines(body, formats), d)
        elif kind == "typed-skill":
            _skill_directives(body, d)
        else:
            _trajectory_directives(body, d)
    return d
