"""Knowledge packs: what a sim model knows about one task family, declared, not scripted.

A pack says how the family's instructions parse into typed slots, which actions a request
needs and which slots each action's arguments take, where a slot's value comes from (stated in
the instruction, read from a tool result, or computed from one), and the words that match
actions and slots to whatever schema is served. The engine (``_engine``) knows no family: adding
a family means writing a pack, which its family returns from ``Family.sim_pack`` (or one
registered here).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

SlotType = Literal["money", "signed", "percent", "instant", "code", "id", "email", "text", "flag"]
"""Typed slots: money (minor units), signed money (a direction and an amount), percent (a
fraction), instant (UTC), code (a concept mapped onto an enum), id, email, text, flag (bool)."""

Lexicon = dict[str, int]
"""Word → weight: how strongly a word in a name or description points at an action or slot."""


@dataclass(frozen=True)
class FromResult:
    """A slot read from the latest successful result of ``action``: the value under the key whose
    words include all of ``key`` (searched at the top level); ``pick='last'`` takes a list's last
    element, ``pick='latest'`` its newest: the last where the tool's description says oldest
    first (or nothing), the first where it says newest first — as the model reads it."""

    action: str
    key: tuple[str, ...]
    pick: Literal["value", "last", "latest"] = "value"


@dataclass(frozen=True)
class LineTotal:
    """A money slot computed from ``action``'s result: in the list under a key with word
    ``rows``, the row whose name matches slot ``match``; its ``price`` × ``count`` (both found by
    key words), in the unit the price key's name states."""

    action: str
    rows: str
    match: str
    price: str = "price"
    count: str = "quant"


@dataclass(frozen=True)
class FromRow:
    """A slot read from one row of ``action``'s result: in the list under a key with word
    ``rows``, the first row in which the stated value of every slot in ``match`` appears within
    some value (case-insensitive); its value under the key with word ``key`` — with ``pattern``,
    the first match of that regex in it (group 1 if any). A search hit's document, a passage's
    text, a figure in that text. Misread like a ``LineTotal``: another row of the list."""

    action: str
    rows: str
    match: tuple[str, ...]
    key: str
    pattern: str | None = None


@dataclass(frozen=True)
class Slot:
    """One typed slot of a request: where its value comes from, in order of preference."""

    type: SlotType
    stated: str | None = None  # regex on the instruction; group 1 if present, else the match
    results: tuple[FromResult, ...] = ()
    keyed: FromResult | None = None  # ids: the result showing the id as the system keys it
    derive: LineTotal | FromRow | None = None  # worked out from a result
    concept: str | None = None  # code slots: the concept wanted
    fallback: str | None = None  # code slots: the concept a model unsure of the codes picks
    value: Any = None  # a constant the request implies (e.g. flag True)
    direction: str | None = None  # signed slots: the direction wanted (a word)


@dataclass(frozen=True)
class Step:
    """An action with effect the request needs. ``args`` maps the action's input slots to
    request slots. ``core`` steps are what the request is (always known); other steps are known
    when the request asks for them (in any words its action's lexicon knows), when the model
    knows the procedure, or when a followed artifact names them."""

    action: str
    args: dict[str, str]
    core: bool = False
    each: str | None = None
    """A request slot derived ``FromRow``: the step is done once per distinct value of the
    matching rows (each file a search finds) — past the first only by a model that knows the
    procedure or follows an artifact naming the step."""


@dataclass(frozen=True)
class Kind:
    """One kind of request: the words that tell it from the others, its slots, its steps.

    ``cues``: domain words (word → weight, matched in any inflection) that point at this kind
    beyond its core action; a request is of the kind whose cues, plus 3 when the request asks
    for the core action (minus 3 when it forbids it), score highest — at least 3."""

    name: str
    cues: Lexicon
    slots: dict[str, Slot]
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Action:
    """An action the family's tools offer, and the words that find it in any schema. An action
    no step names (a read) is planned when a slot's source needs its result."""

    lexicon: Lexicon
    inputs: dict[str, Lexicon]  # input slot → words that find its field


@dataclass(frozen=True)
class KnowledgePack:
    """Everything a sim model knows about one family."""

    family: str
    actions: dict[str, Action]
    kinds: tuple[Kind, ...]
    concepts: dict[str, Lexicon]  # code concepts → the words that mean them
    directions: dict[str, tuple[str, ...]] = field(default_factory=dict)  # signed: word → synonyms
    remembered: Callable[[], dict[str, dict[str, Any]]] = dict  # training-time tools (name → fn)
    stated_ids: str = "display number"  # what kind of identifier instructions give
    stated_base: int = 1  # where instructions start counting positions (a customer's 1st order)


_PACKS: dict[str, KnowledgePack] = {}
_SOURCE: Callable[[], Iterable[KnowledgePack]] = tuple
"""The packs of the families in play, given by whoever resolves families (see
``use_family_packs``); the sim imports no family registry."""


def register_pack(pack: KnowledgePack) -> None:
    """Make ``pack`` known to every sim model (replacing one of the same family)."""
    _PACKS[pack.family] = pack


def use_family_packs(source: Callable[[], Iterable[KnowledgePack]]) -> None:
    """Give the sim the packs of the families in play: ``source()`` is asked each time the
    packs are read, so families that become known later are seen."""
    global _SOURCE
    _SOURCE = source


def packs() -> list[KnowledgePack]:
    """The packs in play: the families' (in their order), a registered pack replacing its
    family's in place, then the other registered packs."""
    merged = {pack.family: pack for pack in _SOURCE()}
    merged.update(_PACKS)
    return list(merged.values())
