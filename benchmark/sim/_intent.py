"""Reading a request: which kind it is (by the packs), and the typed values it states.

A model that does not read every detail right misreads one, the way people do: a transposed
digit in an amount or a percentage, an afternoon hour read on a 12-hour clock, another line of
an order, the first of a list where the last was meant. Never a blanket scale factor, and never
when the model read the request right.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from benchmark.sim._pack import Kind, KnowledgePack, Slot, packs
from benchmark.sim._reader import reader_for
from benchmark.sim._text import score, tokens

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
_ZONE = re.compile(r"\bUTC(?:([+-])(\d{2}):(\d{2}))?")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Request:
    """What a model read an instruction to ask for."""

    pack: KnowledgePack
    kind: Kind
    stated: dict[str, Any]
    misread: str | None = None  # the slot whose value was misread, if any
    variant: float = 0.0
    text: str = field(default="", repr=False)
    asked: frozenset[str] = frozenset()  # actions the request asks for
    refused: frozenset[str] = frozenset()  # actions it says not to take


def _instant(text: str) -> str | None:
    """A stated time as local UTC 'YYYY-MM-DDTHH:MM:SS', or None."""
    date, time = _DATE.search(text), _TIME.search(text)
    if date is None or time is None:
        return None
    hours, minutes = (int(p) for p in time.group().split(":"))
    zone = _ZONE.search(text)
    offset = timedelta()
    if zone and zone.group(1):
        sign = -1 if zone.group(1) == "-" else 1
        offset = sign * timedelta(hours=int(zone.group(2)), minutes=int(zone.group(3)))
    local = datetime.fromisoformat(date.group()).replace(hour=hours, minute=minutes)
    moment = local.replace(tzinfo=timezone(offset)).astimezone(UTC)
    return moment.replace(tzinfo=None).isoformat(timespec="seconds")


def typed(slot: Slot, text: str) -> Any:
    """The typed value of a slot stated as ``text``."""
    if slot.type in ("money", "signed", "percent"):
        number = _NUMBER.search(text.replace(",", ""))
        if number is None:
            return None
        value = float(number.group())
        return round(value * 100) if slot.type != "percent" else round(value / 100, 6)
    if slot.type == "instant":
        return _instant(text)
    return text


def _stated(kind: Kind, text: str) -> dict[str, Any]:
    out = {}
    for name, slot in kind.slots.items():
        if slot.stated is None:
            continue
        match = re.search(slot.stated, text)
        if match:
            value = typed(slot, match.group(1) if match.groups() else match.group())
            if value is not None:
                out[name] = value
    return out


def _transpose(digits: str, u: float) -> str:
    """``digits`` with one adjacent pair of different digits (after the first) swapped."""
    pairs = [i for i in range(1, len(digits) - 1) if digits[i] != digits[i + 1]]
    if not pairs:
        return digits
    i = pairs[int(u * len(pairs))]
    return digits[:i] + digits[i + 1] + digits[i] + digits[i + 2 :]


def _misread_value(slot: Slot, value: Any, u: float) -> Any:
    if slot.type in ("money", "signed"):
        return int(_transpose(str(value), u))
    if slot.type == "percent":
        whole = str(round(value * 100))
        swapped = len(whole) == 2 and whole[0] != whole[1]
        return round(int(whole[::-1]) / 100, 6) if swapped else value
    if slot.type == "instant":
        hour = int(value[11:13])
        return f"{value[:11]}{hour - 12:02d}{value[13:]}" if hour > 12 else value
    return value


def misreadable(kind: Kind, stated: dict[str, Any]) -> list[str]:
    """Slots a model can misread in this request: stated numbers and times, and values it
    must pick out of a result (a line of an order, an element of a list)."""
    out = []
    for name, slot in sorted(kind.slots.items()):
        if name in stated:
            picked = _misread_value(slot, stated[name], 0.5) != stated[name]
        else:
            picked = slot.derive is not None or any(r.pick == "last" for r in slot.results)
        if picked:
            out.append(name)
    return out


def _fit(pack: KnowledgePack, tools: dict[str, str]) -> float:
    """The share of ``pack``'s actions that some offered tool (name → description) clearly
    fits."""
    found = [
        any(score(name, desc, action.lexicon) >= 3 for name, desc in tools.items())
        for action in pack.actions.values()
    ]
    return sum(found) / max(1, len(found))


_CUES: dict[int, dict[str, int]] = {}


def _singular(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _cues(kind: Kind) -> dict[str, int]:
    """A kind's cue words, singular: cues match words as written, but for a plural ('counted'
    is not 'count', 'installments' is 'installment')."""
    key = id(kind)
    if key not in _CUES:
        _CUES[key] = {_singular(w.lower()): v for w, v in kind.cues.items()}
    return _CUES[key]


def kind_scores(pack: KnowledgePack, text: str) -> dict[str, int]:
    """How well ``text`` reads as each kind of ``pack`` (by name): its cues; plus 3 when the
    request asks for the kind's core action (1 when that action is only a follow-up step of
    other kinds, like closing a ticket), minus 3 when it forbids it; plus 2 when it forbids
    another kind's core action that this kind does not take ("do not refund")."""
    said = reader_for(pack, frozenset()).read(text)
    words = {_singular(w) for w in tokens(text)}
    cores = {s.action for k in pack.kinds for s in k.steps if s.core}
    follow_ups = {s.action for k in pack.kinds for s in k.steps if not s.core}
    out = {}
    for kind in pack.kinds:
        core = next((s.action for s in kind.steps if s.core), None)
        points = sum(w for cue, w in _cues(kind).items() if cue in words)
        if core in said.steps:
            points += 1 if core in follow_ups else 3
        elif core in said.forbidden:
            points -= 3
        if (said.forbidden & cores) - {s.action for s in kind.steps}:
            points += 2
        out[kind.name] = points
    return out


def _kind_of(pack: KnowledgePack, text: str) -> tuple[int, Kind | None]:
    """The kind of ``pack`` a request reads as (the first of the best-scoring kinds,
    ``kind_scores``), and its score: at least 3 to count."""
    best: tuple[int, Kind | None] = (2, None)
    for kind, points in zip(pack.kinds, kind_scores(pack, text).values(), strict=True):
        if points > best[0]:
            best = (points, kind)
    return best


def stated_values(kind: Kind, text: str) -> dict[str, Any]:
    """The typed values ``text`` states for ``kind``'s slots (read right)."""
    return _stated(kind, text)


def read_request(
    text: str,
    reads_numbers: bool,
    which: float,
    variant: float,
    tools: dict[str, str] | None = None,
) -> Request | None:
    """The request ``text`` makes, as a model reads it; None if no pack recognises it. When
    the kinds of several packs match, the pack whose actions the offered ``tools`` (name →
    description) fit best reads it; then the higher score; registration order breaks ties."""
    matched: list[tuple[float, int, KnowledgePack, Kind]] = []
    for pack in packs():
        points, kind = _kind_of(pack, text)
        if kind is not None:
            matched.append((_fit(pack, tools or {}), points, pack, kind))
    if not matched:
        return None
    *_, pack, kind = max(matched, key=lambda m: (m[0], m[1]))
    said = reader_for(pack, frozenset()).read(text, minimum=2)
    stated = _stated(kind, text)
    misread = None
    candidates = misreadable(kind, stated)
    if not reads_numbers and candidates:
        misread = candidates[int(which * len(candidates))]
        if misread in stated:
            slot = kind.slots[misread]
            stated[misread] = _misread_value(slot, stated[misread], variant)
    return Request(
        pack,
        kind,
        stated,
        misread,
        variant,
        text,
        asked=frozenset(said.steps),
        refused=frozenset(said.forbidden),
    )
