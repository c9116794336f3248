"""Reading instructions the way a reader does: clauses, what they ask, forbid and limit.

A text — a recipe line, a skill's description or note, a request — is cut into clauses. In
each the reader finds the actions named (a tool's name, or a word its action's lexicon weighs
3, in any inflection), and decides what the clause does with them:

- it **forbids** them when they fall in the scope of a negation: after ``never``, ``do not``,
  ``must not``, ``avoid``, ``under no circumstances``, ``instead of``, ``rather than``, ``not``,
  ``no``, ``without`` (up to the next comma, colon, ``but``, ``after``, ``once``, …); before
  ``is off limits`` / ``is forbidden``, or before a negation whose own scope names none
  (``submit_answer must not be called``); or between ``leave`` and ``alone`` / ``open`` /
  ``untouched`` (``leave the ticket open`` forbids the action done to a ticket);
- it **asks** for them when it is an instruction: not a bare list of names, not about what
  someone else does (``an editor submits``), not about what already happened (``was refunded``);
- it **limits** them (``only the first file``) or **extends** them (``every file``, ``not just
  the first``), and an artifact may state its own **scope** (``this playbook is for refunds
  only``).

The cues are English (negation, instruction, agents, scope); the domain words are the pack's.
Nothing here knows a family or a generator's phrasing.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from benchmark.sim._pack import KnowledgePack
from benchmark.sim._text import stem, stemmed, stems

_CLAUSE = re.compile(r";|\n|(?<=[a-z0-9)\"'`])[.!?](?=\s|$)")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:'[a-z]+)?")
_PREFIX = re.compile(
    r"\b(?:never|nor|not|no|without|avoid(?:ing)?|skip|refrain from|instead of|rather than"
    r"|under no circumstances|at no (?:point|time)|no need to|no longer"
    r"|(?:do|does|did|must|should|shall|will|may|can|could|would|need)(?: not|n't)"
    r"|don't|doesn't|mustn't|shouldn't|cannot|can't|won't)\b",
    re.IGNORECASE,
)
_BACKWARD = re.compile(
    r"never|(?:do|does|did|must|should|shall|will|may|can|could|would|need)(?: not|n't)"
    r"|don't|doesn't|mustn't|shouldn't|cannot|can't|won't",
    re.IGNORECASE,
)
"""Negations of a verb: their scope may name an action by a weaker word ('do not edit'), and
when it is passive, come first ('submit_answer must not be called')."""
_FACT = re.compile(r"\b(?:was|were|is|are|has|have|had|been|got)\s+$", re.IGNORECASE)
"""An auxiliary right before a negation: 'was never recorded', 'is not in the ledger'."""
_POSTFIX = re.compile(
    r"\b(?:off[- ]limits|is forbidden|are forbidden|not allowed|prohibited)\b", re.I
)
_SCOPE_END = re.compile(
    r"[,:;()]|\s[-–—]\s|\b(?:but|instead|rather|after|before|once|when|until|because|since|so "
    r"that|unless|then|as soon as|while)\b",
    re.IGNORECASE,
)
_LEAVE = re.compile(
    r"\bleave\b(.*?)\b(alone|open|untouched|unchanged|as (?:it|they) (?:is|are)|as is|in place"
    r"|unflagged|unsubmitted|unedited|be)\b",
    re.IGNORECASE,
)
_OTHERS = {"other", "others", "rest", "remaining"}
_AGENTS = {
    stem(w)
    for w in [
        "editor",
        "reviewer",
        "supervisor",
        "manager",
        "lead",
        "team",
        "colleague",
        "someone",
        "somebody",
        "human",
        "staff",
        "controller",
        "admin",
        "operator",
        "owner",
        "approver",
        "auditor",
        "they",
        "he",
        "she",
    ]
}
_PAST = re.compile(r"\b(?:was|were|been|had|already|got)\b", re.IGNORECASE)
_MODAL = re.compile(r"\b(?:should|must|need to|needs to|has to|have to|please)\b", re.IGNORECASE)
_EACH = re.compile(r"\b(?:every|each|all)\b|\bnot (?:only|just)\b", re.IGNORECASE)
_SINGLE = re.compile(r"\b(?:only|just)\b[^,;]*?\b(?:first|one|single)\b|\bsingle\b", re.I)
_ARTIFACT = re.compile(
    r"\b(?:this|these) (?:playbook|skill|checklist|guide|recipe|procedure|steps|instructions)\b"
    r"|\b(?:playbook|skill|checklist|guide|recipe) (?:is|applies)\b",
    re.IGNORECASE,
)
_ONLY = re.compile(r"\b(?:only|solely|exclusively|just)\b", re.IGNORECASE)
_FUNCTION = {"with", "to", "for", "the", "a", "an", "if", "when", "then", "of", "in", "on", "by"}


def _described(part: str, at: int) -> bool:
    """Whether the word at ``at`` is a verb in the third person after a subject ('a payment
    that matches no customer', 'billing closes tickets'): a description, not an instruction."""
    word = _WORD.match(part, at)
    before = part[:at].strip()
    return bool(
        word
        and before
        and re.fullmatch(r"[a-z]+(?:es|s)", word.group())
        and "_" not in word.group()
    )


def clauses(text: str) -> list[str]:
    """``text`` cut at sentence ends, semicolons and line breaks (a parenthesis stays whole)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")" and depth > 0
        if depth == 0 and _CLAUSE.match(text, i):
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [c.strip() for c in out if c.strip()]


@dataclass
class Said:
    """What a text asks, forbids, limits and extends, and the text its negations leave."""

    steps: list[str] = field(default_factory=list)
    forbidden: set[str] = field(default_factory=set)
    each: set[str] = field(default_factory=set)
    single: set[str] = field(default_factory=set)
    scope: set[str] = field(default_factory=set)
    named: set[str] = field(default_factory=set)
    positive: list[tuple[str, str | None]] = field(default_factory=list)
    """Per clause: the clause without its negated spans, and the action it is about."""

    def add_step(self, action: str) -> None:
        """Record ``action`` as asked for (once, in order)."""
        if action not in self.steps:
            self.steps.append(action)


class Reader:
    """A reader of one pack's domain: which words and names stand for which action."""

    def __init__(self, pack: KnowledgePack, names: frozenset[str] = frozenset()) -> None:
        self.pack = pack
        self.names = names  # tool, field and code names in the schemas the model knows
        self.lexicons = {a: stemmed(spec.lexicon) for a, spec in pack.actions.items()}
        self.objects = {  # what an action is done to: its own words count twice
            a: {
                **stemmed({w: 1 for lex in spec.inputs.values() for w in lex}),
                **stemmed(dict.fromkeys(spec.lexicon, 2)),
            }
            for a, spec in pack.actions.items()
        }
        self.effectful = {s.action for k in pack.kinds for s in k.steps}

    # --- names --------------------------------------------------------------------------
    def action_of(self, name: str, minimum: int = 3) -> str | None:
        """The action a tool name or a phrase stands for (its words must point at it)."""
        words = stems(name)
        scores = {a: sum(lex.get(w, 0) for w in words) for a, lex in self.lexicons.items()}
        best = max(scores, key=lambda a: scores[a], default=None)
        return best if best is not None and scores[best] >= minimum else None

    def mentions(self, text: str, minimum: int = 3) -> list[tuple[int, str]]:
        """(position, action) of every action ``text`` names: a tool's name, or a word one
        action's lexicon weighs at least ``minimum``."""
        out = []
        for m in _WORD.finditer(text):
            word = m.group().split("'")[0]
            if "_" in word:
                action = self.action_of(word)
            else:
                s = stem(word)
                weights = {a: lex.get(s, 0) for a, lex in self.lexicons.items()}
                best = max(weights, key=lambda a: weights[a])
                action = best if weights[best] >= minimum else None
            if action is not None:
                out.append((m.start(), action))
        return out

    def object_of(self, text: str) -> set[str]:
        """The effectful actions done to what ``text`` names ('the ticket' → closing it)."""
        words = set(stems(text))
        scores = {a: sum(self.objects[a].get(w, 0) for w in words) for a in self.effectful}
        top = max(scores.values(), default=0)
        return {a for a, s in scores.items() if s == top} if top else set()

    # --- clauses ------------------------------------------------------------------------
    def listy(self, clause: str) -> bool:
        """A bare list of names: three or more, hardly another word, none that makes a
        sentence of them."""
        body = clause.split(":", 1)[1] if ":" in clause else clause
        words = [w.lower() for w in _WORD.findall(body)]
        names = [w for w in words if "_" in w or w in self.names]
        others = len(words) - len(names)
        return len(names) >= 3 and others <= len(names) / 4 and not _FUNCTION & set(words)

    def _negated(self, clause: str, said: Said) -> str:
        """Record what ``clause``'s negations forbid; return the clause without those spans."""
        spans: list[tuple[int, int]] = []
        for m in _LEAVE.finditer(clause):
            inner = m.group(1)
            named = {a for _, a in self.mentions(inner) or self.mentions(inner, 2)}
            named = named or self.object_of(inner)
            if _OTHERS & {w.lower() for w in _WORD.findall(inner)}:
                said.single |= {a for _, a in self.mentions(clause, 2)} | named
            else:
                said.forbidden |= named
            spans.append(m.span())
        for m in _PREFIX.finditer(clause):
            if any(a <= m.start() < b for a, b in spans) or _FACT.search(clause[: m.start()]):
                continue
            if re.match(r"\s+been\b", clause[m.end() :]) or m.group().lower().startswith("did"):
                continue  # what has not happened yet is a fact, not a prohibition
            end = _SCOPE_END.search(clause, m.end())
            stop = end.start() if end else len(clause)
            scope = clause[m.end() : stop]
            verb = _BACKWARD.fullmatch(m.group()) is not None  # "do not", "never", "must not"
            after = [
                a for _, a in self.mentions(scope) or (self.mentions(scope, 2) if verb else [])
            ]
            if not after and verb and re.match(r"\s*(?:ever )?be(?:en)?\b", scope):
                after = [a for _, a in self.mentions(clause[: m.start()])][-1:]
            said.forbidden |= set(after)
            spans.append((m.start(), stop))
        for m in _POSTFIX.finditer(clause):
            said.forbidden |= {a for _, a in self.mentions(clause[: m.start()])}
            spans.append((0, m.end()))
        keep, last = [], 0
        for a, b in sorted(spans):
            if a > last:
                keep.append(clause[last:a])
            last = max(last, b)
        keep.append(clause[last:])
        return " ".join(keep)

    def _instructs(self, text: str) -> bool:
        """Whether ``text`` tells the reader to act (not what someone else does or did)."""
        if _PAST.search(text) and not _MODAL.search(text):
            return False
        return not (_AGENTS & set(stems(text)))

    def read(self, text: str, line_action: str | None = None, minimum: int = 3) -> Said:
        """What ``text`` says, clause by clause; an action is asked for when an instructing
        clause names it by a word its lexicon weighs at least ``minimum``."""
        return _cached(self, text, line_action, minimum)


@functools.lru_cache(maxsize=8192)
def _cached(reader: Reader, text: str, line_action: str | None, minimum: int) -> Said:
    said = Said()
    for clause in clauses(text):
        if reader.listy(clause):
            continue
        positive = reader._negated(clause, said)
        named = [a for _, a in reader.mentions(positive)]
        said.named |= set(named) | said.forbidden
        action = named[0] if named else line_action
        said.positive.append((positive, action))
        if _ARTIFACT.search(clause) and _ONLY.search(clause):
            said.scope |= {a for a in named if a in reader.effectful}
            continue
        limited = set(named) | ({line_action} if line_action else set())
        if _SINGLE.search(positive):
            said.single |= limited
        elif _EACH.search(clause):
            said.each |= limited
        for part in re.split(r"[,:]", positive):
            if reader._instructs(part):
                for at, a in reader.mentions(part, minimum):
                    if not _described(part, at):
                        said.add_step(a)
    return said


_READERS: dict[tuple[int, frozenset[str]], Reader] = {}


def reader_for(pack: KnowledgePack, names: frozenset[str]) -> Reader:
    """The reader of ``pack``'s domain, knowing ``names`` (one per pack and schema)."""
    key = (id(pack), names)
    if key not in _READERS:
        if len(_READERS) > 256:
            _READERS.clear()
        _READERS[key] = Reader(pack, names)
    return _READERS[key]
