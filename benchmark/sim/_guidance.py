"""Reading artifacts — recipes, typed skills, retrieved episodes — into what they say.

Every form is read into one structure: the steps it asks for and the ones it forbids, the tool
and field names it uses, its code map, fixed values, the convention it states per field, the
steps it limits to one call or extends to every row, and where it applies. Content is applied,
not keywords: a wrong code map gives wrong codes however it is phrased, a prohibition in any
wording removes the step, a bare list of names says nothing, a unit stated for one field says
nothing about another, and a field the schema lacks is sent as written (the server says no).
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from benchmark.sim._intent import kind_scores, read_request, stated_values
from benchmark.sim._pack import Kind, KnowledgePack, packs
from benchmark.sim._reader import Reader, Said, reader_for
from benchmark.sim._text import IDENT, stemmed, stems, tokens
from drift import Convention, read_stated, unit_in

_TAG = re.compile(r"<(recipe|typed-skill|trajectory|skill)[^>]*>\n?(.*?)\n?</\1>", re.DOTALL)
_PATH = re.compile(r"`?\b[\w.-]+/[\w./-]+`?")
"""A file path (``references/codes.md``): what a skill names a file by, never a field or tool."""
_CONSTANT = re.compile(r"\b([a-z][a-z_]*)\b ?[:=]? ?[\"']([a-z][a-z_]*)[\"']")
_CUT = re.compile(r",|:|;| and | then ")
_SEGMENT = re.compile(r",|;|:|\band\b")
_VALUE_WORDS = re.compile(r"'([^']+)':\s*([^;']+)")
_FAILED = {"fail", "failur", "error", "wrong", "reject", "incorrect", "invalid", "mistak", "bad"}

Key = tuple[str, str]  # (action, input slot)
Schema = dict[str, dict[str, Any]]  # tool name → OpenAI function (name, description, parameters)
Call = tuple[str, dict[str, Any]]  # a tool's name and its arguments


@dataclass
class Guidance:
    """What the artifacts a model follows tell it."""

    named: set[str] = field(default_factory=set)  # actions an artifact is about
    steps: set[str] = field(default_factory=set)
    forbidden: set[str] = field(default_factory=set)
    each: set[str] = field(default_factory=set)  # steps to do for every row (every file)
    single: set[str] = field(default_factory=set)  # steps limited to one call
    scope: set[str] = field(default_factory=set)  # core actions it says it is for, if it says
    subject: str | None = None  # the action its title or name is about, if any
    tools: dict[str, str] = field(default_factory=dict)  # action → tool name
    fields: dict[Key, str] = field(default_factory=dict)  # (action, slot) → field name
    codes: dict[str, str] = field(default_factory=dict)  # concept → code
    constants: dict[Key, str] = field(default_factory=dict)
    conventions: dict[Key, Convention] = field(default_factory=dict)
    results: dict[str, str] = field(default_factory=dict)  # lookup → what it says they return

    def merge(self, other: Guidance) -> None:
        """Add ``other``'s content; what was read first wins a disagreement."""
        self.named |= other.named
        self.steps |= other.steps
        self.forbidden |= other.forbidden
        self.each |= other.each
        self.single |= other.single
        self.tools = {**other.tools, **self.tools}
        self.fields = {**other.fields, **self.fields}
        self.codes = {**other.codes, **self.codes}
        self.constants = {**other.constants, **self.constants}
        self.conventions = {**other.conventions, **self.conventions}
        self.results = {**other.results, **self.results}

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

    def take(self, said: Said) -> None:
        """Add what a text says it asks, forbids, limits and scopes."""
        self.steps |= set(said.steps)
        self.forbidden |= said.forbidden
        self.each |= said.each
        self.single |= said.single
        self.scope |= said.scope
        self.named |= said.named

    def applies(self, kind: Kind) -> bool:
        """Whether this reading is about a request of ``kind``: its stated scope, else its
        subject, else any action it names, must be the request's core."""
        core = {s.action for s in kind.steps if s.core}
        if self.scope:
            return bool(self.scope & core)
        if self.subject is not None:
            return self.subject in core
        return bool(self.named & core)


# --- the reader's context: the pack, the names the model knows, what codes mean ------------


class _Context:
    def __init__(self, pack: KnowledgePack, schema: Schema) -> None:
        self.pack = pack
        known = {**pack.remembered(), **schema}
        self.tool_names = set(known)
        props = {
            p: v
            for fn in known.values()
            for p, v in fn.get("parameters", {}).get("properties", {}).items()
        }
        self.field_names = set(props)
        self.code_names = {str(e) for v in props.values() for e in v.get("enum") or []}
        self.reader: Reader = reader_for(
            pack, frozenset(self.tool_names | self.field_names | self.code_names)
        )
        self.concepts = _concepts(
            pack, tuple(str(v.get("description", "")) for v in props.values() if v.get("enum"))
        )
        self.signed = {
            (step.action, inp)
            for k in pack.kinds
            for step in k.steps
            for inp, slot in step.args.items()
            if k.slots[slot].type == "signed"
        }

    def action_of(self, name: str) -> str | None:
        return self.reader.action_of(name)

    def slot_of(self, action: str | None, name: str, minimum: int = 3) -> list[Key]:
        """(action, slot) pairs a field name stands for: in ``action`` if given, else in any;
        the slot whose lexicon its words score highest, at least ``minimum``."""
        words = tokens(name)
        actions = [action] if action else list(self.pack.actions)
        out = []
        for act in actions:
            scores = {
                slot: sum(lex.get(w, 0) for w in words)
                for slot, lex in self.pack.actions[act].inputs.items()
            }
            best = max(scores, key=lambda s: scores[s], default=None)
            if best is not None and scores[best] >= minimum:
                out.append((act, best))
        return out

    def concept_of(self, phrase: str) -> str | None:
        """The concept a phrase ('double charges', 'arrived late') describes."""
        words = stems(phrase)
        scores = {c: sum(lex.get(w, 0) for w in set(words)) for c, lex in self.concepts.items()}
        best = max(scores, key=lambda c: scores[c], default=None)
        return best if best is not None and scores[best] >= 2 else None


_CONCEPTS: dict[tuple[int, tuple[str, ...]], dict[str, dict[str, int]]] = {}


def _concepts(pack: KnowledgePack, descriptions: tuple[str, ...]) -> dict[str, dict[str, int]]:
    """The pack's concept words, plus the words the served schema's enum descriptions give
    each code ("'unidentified': no customer or invoice can be traced to the payment")."""
    key = (id(pack), descriptions)
    if key not in _CONCEPTS:
        out = {c: stemmed(lex) for c, lex in pack.concepts.items()}
        for desc in descriptions:
            for value, words in _VALUE_WORDS.findall(desc):
                concept = _best(stems(value), out, 3)
                if concept is not None:
                    for w in stems(words):
                        out[concept].setdefault(w, 1)
        if len(_CONCEPTS) > 256:
            _CONCEPTS.clear()
        _CONCEPTS[key] = out
    return _CONCEPTS[key]


def _best(words: tuple[str, ...], lexicons: dict[str, dict[str, int]], minimum: int) -> str | None:
    scores = {k: sum(lex.get(w, 0) for w in words) for k, lex in lexicons.items()}
    best = max(scores, key=lambda k: scores[k], default=None)
    return best if best is not None and scores[best] >= minimum else None


# --- recipes ------------------------------------------------------------------------------


def _segment(text: str) -> str:
    """The words about one field: up to the next field, comma, colon or 'and', keeping a
    parenthesis whole (leading punctuation skipped; a field right after says nothing)."""
    stripped = text.lstrip(" ,:;")
    if IDENT.match(stripped):
        return ""
    depth = 0
    for i, ch in enumerate(stripped):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ((IDENT.match(stripped, i) and i > 0) or _CUT.match(stripped, i)):
            return stripped[:i]
    return stripped


def _stated(name: str, segment: str) -> Convention:
    """What a segment says about a field named ``name``: its own words outrank the name's."""
    said = read_stated(segment)
    if said.unit is None:
        said = replace(said, unit=unit_in(" ".join(tokens(name))))
    return said


def _signs(text: str, pack: KnowledgePack) -> Convention:
    """What positive and negative values mean, stated in either order ("positive values are
    credits", "money going out (a debit) is negative")."""
    found: dict[str, str] = {}
    for piece in re.split(r",|;|\band\b", text):
        words = set(tokens(piece))
        sign = [s for s in ("positive", "negative") if s in words]
        directions = [d for d, syn in pack.directions.items() if words & {d, *syn}]
        if len(sign) == 1 and len(directions) == 1:
            found.setdefault(sign[0], directions[0])
    return Convention(positive=found.get("positive"), negative=found.get("negative"))


def _read_fields(ctx: _Context, clause: str, action: str | None, g: Guidance) -> None:
    """Tool and field names in a clause, and what the words after a field state about it."""
    keys: list[Key] = []
    owner = action  # a field belongs to the tool named last before it
    for match in IDENT.finditer(clause):
        ident = match.group()
        if ident in ctx.code_names:
            continue  # a code, read with the code map
        named = ctx.action_of(ident)
        is_tool = ident in ctx.tool_names or (
            ident not in ctx.field_names and named is not None and named != owner
        )
        if is_tool and named is not None:  # a tool's name, however often it is named
            g.tools.setdefault(named, ident)
            owner = named
            continue
        found = ctx.slot_of(owner, ident)
        if not found and owner is not None and ident not in ctx.field_names:
            # a name no schema has: whose field it is, its neighbours say
            context = clause[max(0, match.start() - 30) : match.start()]
            near = " ".join(tokens(context)[-5:]) + " " + _segment(clause[match.end() :])
            found = ctx.slot_of(owner, near)
        for key in found:
            g.fields.setdefault(key, ident)
            g.state(key, _stated(ident, _segment(clause[match.end() :])))
            keys.append(key)
    if action is None:
        return
    low = clause.lower()
    for slot, lexicon in ctx.pack.actions[action].inputs.items():
        for word in (w for w, weight in lexicon.items() if weight >= 3):
            found_word = re.search(rf"\b{re.escape(word)}\b", low)
            if found_word:
                g.state((action, slot), read_stated(_segment(clause[found_word.end() :])))
                break
    signs = _signs(clause, ctx.pack)
    if signs != Convention():
        for key in {k for k in ctx.signed if k[0] == action} | {k for k in keys if k in ctx.signed}:
            g.state(key, signs)


def _read_codes(ctx: _Context, clause: str, g: Guidance) -> None:
    """A code map in any order: in each segment one code and the situation it is for
    ("duplicate_charge for double charges", "a double charge gets duplicate_charge",
    "when the goods arrived broken use damaged")."""
    for part in _split_outside_parens(clause):
        words = re.findall(r"[a-z][a-z_]*", part.lower())
        codes = [w for w in words if w in ctx.code_names]
        if len(set(codes)) != 1:
            continue
        code = codes[0]
        rest = list(words)
        rest.reverse()
        rest.remove(code)  # the last mention is the code; an earlier one describes
        rest.reverse()
        phrase = " ".join(w for w in rest if w not in ctx.field_names and w not in ctx.tool_names)
        if ctx.action_of(code):
            continue
        concept = ctx.concept_of(phrase)
        if concept is not None:
            g.codes.setdefault(concept, code)


def _split_outside_parens(text: str) -> list[str]:
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")" and depth > 0
        if depth == 0:
            m = _SEGMENT.match(text, i)
            if m:
                out.append(text[start:i])
                start = m.end()
    out.append(text[start:])
    return out


def _read_text(ctx: _Context, text: str, g: Guidance, line_action: str | None = None) -> None:
    """Everything one piece of prose says."""
    said = ctx.reader.read(text, line_action)
    g.take(said)
    for positive, action in said.positive:
        _read_fields(ctx, positive, action, g)
        for ident in IDENT.findall(positive):
            lookup = ctx.action_of(ident) if ident in ctx.tool_names else None
            if lookup is not None and lookup not in ctx.reader.effectful:
                # what a clause naming a lookup says about its results (their unit, order)
                g.results.setdefault(lookup, positive)
        for match in _CONSTANT.finditer(positive):
            for key in ctx.slot_of(action, match.group(1)):
                g.constants.setdefault(key, match.group(2))
        _read_codes(ctx, positive, g)


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


def _title(text: str) -> str:
    """A recipe's title: its first line, when that is neither a step nor a sentence."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if _line_format(first) != "prose" or first.rstrip().endswith((".", "!", "?")):
        return ""
    return first.lstrip("# ")


def _subject(ctx: _Context, title: str) -> str | None:
    """The effectful action a title or name is about ('Refund playbook' → the refund)."""
    action = ctx.action_of(title)
    return action if action in ctx.reader.effectful else None


@functools.lru_cache(maxsize=1024)
def _recipe(ctx: _Context, body: str, follows: frozenset[str]) -> Guidance:
    title = _title(body)
    g = Guidance(subject=_subject(ctx, title))
    for line in followed_lines(body, follows):
        if title and line.strip().lstrip("# ") == title:
            continue
        first = ctx.reader.mentions(line)
        _read_text(ctx, line, g, first[0][1] if first else None)
    return g


def read_recipe(
    pack: KnowledgePack, body: str, follows: frozenset[str], schema: Schema | None = None
) -> Guidance:
    """What the lines of a recipe a model follows say (``schema``: the tools it was sent)."""
    return _recipe(_context(pack, schema or {}), body, follows)


_CONTEXTS: dict[tuple[int, str], _Context] = {}


def _context(pack: KnowledgePack, schema: Schema) -> _Context:
    key = (id(pack), json.dumps(schema, sort_keys=True, default=str))
    if key not in _CONTEXTS:
        if len(_CONTEXTS) > 128:
            _CONTEXTS.clear()
        _CONTEXTS[key] = _Context(pack, schema)
    return _CONTEXTS[key]


# --- typed skills and episodes ------------------------------------------------------------


def _compatible(slot_type: str, value: Any) -> bool:
    if isinstance(value, bool):
        return slot_type == "flag"
    if isinstance(value, int | float):
        return slot_type in ("money", "signed", "percent")
    return slot_type in ("id", "text", "code", "email", "instant")


def _named_calls(
    ctx: _Context,
    calls: list[Call],
    g: Guidance,
    kind: Kind | None = None,
) -> None:
    """Names a structured call says exactly: its tool, and whose argument each field is — by
    its binding's name ('$kept' is the record to keep, whatever the field is called), else the
    field's name, else (with the episode's ``kind``) the one input left whose slot takes a
    value like this one."""
    for tool, args in calls:
        action = ctx.action_of(tool)
        if action is None:
            continue
        g.named.add(action)
        g.steps.add(action)
        g.tools.setdefault(action, tool)
        bound: dict[str, Key] = {}
        for arg, value in args.items():
            keys = ctx.slot_of(action, arg)
            if isinstance(value, str) and value.startswith("$"):
                keys = ctx.slot_of(action, value[1:], minimum=2) or keys
            if keys:
                bound[arg] = keys[0]
        step = next((s for s in kind.steps if s.action == action), None) if kind else None
        if step is not None and kind is not None:
            free = [i for i in step.args if (action, i) not in bound.values()]
            for arg, value in args.items():
                fits = [i for i in free if _compatible(kind.slots[step.args[i]].type, value)]
                if arg not in bound and len(fits) == 1:
                    bound[arg] = (action, fits[0])
                    free.remove(fits[0])
        for arg, key in bound.items():
            g.fields[key] = arg  # a structured call says exactly whose argument it is
            g.state(key, _stated(arg, ""))
            value = args[arg]
            if isinstance(value, str) and not value.startswith("$") and " " not in value:
                g.constants.setdefault(key, value)
        if sum(1 for t, _ in calls if t == tool) > 1:
            g.each.add(action)  # the same step on several rows


def _json_object(body: str) -> dict[str, Any] | None:
    """``body`` as a JSON object, or None (a model skips what it cannot read)."""
    try:
        value = json.loads(body)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def read_skill(pack: KnowledgePack, body: str, schema: Schema | None = None) -> Guidance:
    """What a typed skill says: its steps, arguments, code map and units, and what its
    description, preconditions and notes forbid, limit or scope."""
    return _skill(_context(pack, schema or {}), body)


@functools.lru_cache(maxsize=1024)
def _skill(ctx: _Context, body: str) -> Guidance:
    g = Guidance()
    skill = _json_object(body)
    if skill is None:
        return g
    g.subject = _subject(ctx, str(skill.get("name", "")))
    steps = [s for s in skill.get("steps") or [] if isinstance(s, dict)]
    calls = [(str(s.get("tool", "")), dict(s.get("args") or {})) for s in steps]
    _named_calls(ctx, calls, g)
    prose = [str(skill.get("description", "")), *map(str, skill.get("preconditions") or [])]
    for text in prose:
        said = ctx.reader.read(text)
        g.forbidden |= said.forbidden
        g.scope |= said.scope
    for s in steps:
        said = ctx.reader.read(str(s.get("note", "")), ctx.action_of(str(s.get("tool", ""))))
        g.each |= said.each
        g.single |= said.single
    for phrase, code in (skill.get("codes") or {}).items():
        concept = ctx.concept_of(str(phrase))
        if concept is not None:
            g.codes.setdefault(concept, str(code))
    for arg, unit in (skill.get("units") or {}).items():
        for key in {k for k, name in g.fields.items() if name == arg}:
            g.conventions[key] = replace(
                g.conventions.get(key, Convention()), unit=read_stated(str(unit)).unit
            )
    return g


def _failed(outcome: str) -> bool:
    """Whether an episode's outcome says it went wrong ('failure', 'failed: …', 'wrong
    answer', 'rejected by the verifier')."""
    return bool(set(stems(outcome)) & _FAILED)


def read_episode(
    pack: KnowledgePack, body: str, kind: Kind, schema: Schema | None = None
) -> Guidance:
    """What imitating an episode retrieved for a request of ``kind`` takes from it: its names,
    steps, codes and units — nothing from an episode marked as failed."""
    return _episode(_context(pack, schema or {}), body, kind.name)


def _imitated(
    ctx: _Context, text: str, calls: list[Call], current: Kind, read: Kind | None
) -> bool:
    """Whether a model takes an episode as an example of the request it was retrieved for
    (``current``): the episode does that request's procedure (its core step, and no step with
    effect the request's kind does not take) with tools the model knows, and its own request
    reads as no kind of this pack, or as none ahead of ``current`` — a reader that cannot tell
    what an example was about imitates it as the example it was shown."""
    steps = {s.action for s in current.steps}
    core = next((s.action for s in current.steps if s.core), None)
    done = {ctx.action_of(tool) for tool, _ in calls if tool in ctx.tool_names}
    if core not in done or (done & ctx.reader.effectful) - steps:
        return False
    if read is None:
        return True
    scores = kind_scores(ctx.pack, text)
    return scores[current.name] >= scores[read.name]


@functools.lru_cache(maxsize=4096)
def _episode(ctx: _Context, body: str, current: str) -> Guidance:
    pack, g = ctx.pack, Guidance()
    episode = _json_object(body)
    if episode is None or _failed(str(episode.get("outcome", "success"))):
        return g
    calls = [
        (str(c.get("name", "")), dict(c.get("arguments") or {}))
        for c in episode.get("calls") or []
        if isinstance(c, dict)
    ]
    # the episode's own calls say which family its request belongs to, as its tools would
    known = {n: str(f.get("description", "")) for p in packs() for n, f in p.remembered().items()}
    called = {name: known.get(name, "") for name, _ in calls}
    text = str(episode.get("instruction", ""))
    asked = read_request(text, True, 0.0, 0.0, called)
    kind = asked.kind if asked is not None and asked.pack.family == pack.family else None
    stated = asked.stated if asked is not None and kind is not None else {}
    mine = next((k for k in pack.kinds if k.name == current), None)
    if mine is not None and kind is not mine and _imitated(ctx, text, calls, mine, kind):
        kind, stated = mine, stated_values(mine, text)
    _named_calls(ctx, calls, g, kind)
    g.constants.clear()  # an example's values are its own, except what they show below
    if kind is None:
        return g
    g.subject = next((s.action for s in kind.steps if s.core), None)
    for tool, args in calls:
        action = ctx.action_of(tool)
        step = next((s for s in kind.steps if s.action == action), None)
        if step is None:
            continue
        for input_slot, slot_name in step.args.items():
            arg = g.fields.get((str(action), input_slot))
            if arg is None or arg not in args:
                continue
            _learn(g, (str(action), input_slot), kind, slot_name, args[arg], stated)
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


def read_guidance(
    pack: KnowledgePack,
    kind: Kind,
    text: str,
    follows: frozenset[str],
    schema: Schema | None = None,
) -> Guidance:
    """What the artifacts in ``text`` (system prompt and loaded skills) that apply to this kind
    of request tell a model following ``follows`` and sent ``schema``. An artifact applies when
    its scope, subject or content is the request's core action (``Guidance.applies``)."""
    ctx, out = _context(pack, schema or {}), Guidance()
    for form, body in _TAG.findall(text):
        if form == "recipe":
            g = _recipe(ctx, body, follows)
        elif form == "skill":  # an Agent Skill's text is read like a recipe, its paths aside
            g = _recipe(ctx, _PATH.sub("", body), follows)
        elif form == "typed-skill" and "skill" in follows:
            g = _skill(ctx, body)
        elif form == "trajectory" and "episode" in follows:
            g = _episode(ctx, body, kind.name)
        else:
            continue
        if g.applies(kind):
            out.merge(g)
    return out
