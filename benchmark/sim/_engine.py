"""The sim engine: from the messages and tool schemas a model is sent to its next move.

It knows no family. A knowledge pack says what a request is and needs; the engine plans the
next unmet step, matches actions and slots to the schema the model reads (the served one, or
the one it remembers), works out each value (stated, read from a result, computed), believes a
convention for each field (what it remembers, what it reads in the schema, what an artifact
states — and, when those disagree, what it does about it), and writes the value accordingly.
No side channel: only messages, tool schemas, the model's spec and the request seed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields, replace
from typing import Any

from benchmark.sim._catalogue import SimModelSpec
from benchmark.sim._guidance import _TAG, Guidance, Key, read_guidance
from benchmark.sim._intent import Request, read_request
from benchmark.sim._pack import FromResult, FromRow, LineTotal, Slot, Step
from benchmark.sim._profile import Profile, draw_profile
from benchmark.sim._rewrite import playbook_of, rewrite
from benchmark.sim._schema import read_field
from benchmark.sim._skill_use import SKILL_TOOLS, skill_move
from benchmark.sim._text import best_match, score, tokens
from benchmark.sim._values import OMIT, encode, meaning_of, pick_code
from drift import Convention, unit_in
from drift._ops_silent import shift_position

_MISSING = object()
_SAME_ROLE = 0.8
"""Word overlap (Jaccard) at which a served field's description is the one a model remembers
for an input: rewording and a changed unit stay below it when the field moved nowhere."""
_ORDER = re.compile(r"\b(newest|latest|most recent|oldest|earliest) first\b", re.IGNORECASE)
_ROLE_GAP = 0.3
"""How much closer to the remembered description another field must be than the one the name
points at before a model trusts the description over the name."""
_STOP_PROTOCOL = re.compile(r"stop and reply '([^'<]*?)\s*<")


@dataclass(frozen=True)
class Move:
    """A tool call to make, or a final answer (``tool`` is None)."""

    tool: str | None = None
    arguments: dict[str, Any] | None = None
    text: str = ""


@dataclass(frozen=True)
class _Need:
    action: str


@dataclass
class _Past:
    action: str | None
    ok: bool
    result: Any
    arguments: dict[str, Any]


class _Stop(Exception):
    pass


_BLOCK_KEYS = frozenset({"type", "text", "annotations", "meta", "_meta"})
"""The fields of an MCP text content block, which some agent frameworks hand the model whole."""


def _unwrapped(text: str) -> str:
    """A tool result's text, read through an MCP text block serialised whole
    (``{"type": "text", "text": …}``, as openai-agents before 0.8 sends a result): a model reads
    the text inside, not the wrapper."""
    if not text.startswith("{"):
        return text
    try:
        block = json.loads(text)
    except json.JSONDecodeError:
        return text
    if (
        isinstance(block, dict)
        and block.keys() <= _BLOCK_KEYS
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ):
        return str(block["text"])
    return text


def message_text(message: dict[str, Any]) -> str:
    """What a model reads of a message: its content as a string, or its text parts joined (the
    OpenAI API's list form, which frameworks send too); a tool result through any MCP block
    wrapped around it."""
    content = message.get("content")
    if isinstance(content, list):
        content = "\n".join(
            str(part.get("text") or "")
            for part in content
            if isinstance(part, dict) and part.get("type") == "text"
        )
    text = str(content or "")
    return _unwrapped(text) if message.get("role") == "tool" else text


def _phrase(code: str, text: str) -> bool:
    """Whether ``text`` says ``code`` in words ('no_action' in '… with no action')."""
    words = " ".join(tokens(code))
    return bool(words) and re.search(rf"\b{re.escape(words)}\b", text, re.IGNORECASE) is not None


def _overlay(base: Convention, over: Convention) -> Convention:
    """``base`` with every aspect ``over`` states."""
    stated = {
        f.name: getattr(over, f.name)
        for f in fields(Convention)
        if getattr(over, f.name) not in (None, {})
    }
    return replace(base, **stated)


class _Mind:
    def __init__(
        self,
        spec: SimModelSpec,
        profile: Profile,
        request: Request,
        guidance: Guidance,
        sent: dict[str, dict[str, Any]],
        past: list[_Past],
    ) -> None:
        self.spec, self.profile, self.request, self.guidance = spec, profile, request, guidance
        self.pack, self.kind = request.pack, request.kind
        self.sent, self.past = sent, past
        self.recovering = any(not p.ok for p in past) and profile.recovers
        self.rereads = profile.reads_schema or self.recovering
        self.sees = self.rereads and (profile.reads_conventions or self.recovering)

    # --- the schema the model reads -------------------------------------------------------
    def schema(self) -> dict[str, dict[str, Any]]:
        return self.sent if self.rereads else self.pack.remembered()

    def _tool_in(self, tools: dict[str, dict[str, Any]], action: str) -> str | None:
        descs = {n: str(f.get("description", "")) for n, f in tools.items() if n not in SKILL_TOOLS}
        return best_match(descs, self.pack.actions[action].lexicon)

    def tool_for(self, action: str) -> tuple[str, dict[str, Any]]:
        tools = self.schema()
        forced = None if self.recovering else self.guidance.tools.get(action)
        name = forced or self._tool_in(tools, action) or action
        return name, tools.get(name, {})

    @staticmethod
    def _field_in(fn: dict[str, Any], lexicon: dict[str, int]) -> tuple[str | None, dict[str, Any]]:
        props = fn.get("parameters", {}).get("properties", {})
        name = best_match({p: str(v.get("description", "")) for p, v in props.items()}, lexicon)
        return name, props.get(name or "", {})

    def field_for(self, key: Key, fn: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        action, slot = key
        props = fn.get("parameters", {}).get("properties", {})
        forced = None if self.recovering else self.guidance.fields.get(key)
        if forced:
            return forced, props.get(forced, {})
        name, prop = self._field_in(fn, self.pack.actions[action].inputs[slot])
        if self.sees:
            name, prop = self._by_role(key, props, name, prop)
        return name or slot, prop

    def _by_role(
        self, key: Key, props: dict[str, Any], name: str | None, prop: dict[str, Any]
    ) -> tuple[str | None, dict[str, Any]]:
        """A model that reads descriptions knows a field by what it is for: where another served
        field now carries the description it remembers for this input, and the field its name
        points at does not (two fields that traded roles), it takes the other."""
        action, slot = key
        memory = self.pack.remembered()
        mem_fn = memory.get(self._tool_in(memory, action) or "", {})
        _, mem_prop = self._field_in(mem_fn, self.pack.actions[action].inputs[slot])
        remembered = set(tokens(str(mem_prop.get("description", ""))))
        if not remembered:
            return name, prop

        def likeness(field: str) -> float:
            said = set(tokens(str(props.get(field, {}).get("description", ""))))
            return len(said & remembered) / len(said | remembered) if said else 0.0

        best = max(props, key=likeness, default=None)
        if best is None or best == name:
            return name, prop
        if likeness(best) >= _SAME_ROLE and likeness(best) - likeness(name or "") >= _ROLE_GAP:
            return best, props[best]
        return name, prop

    # --- what the model believes a field means --------------------------------------------
    def believe(self, key: Key, field: str, prop: dict[str, Any], fn: dict[str, Any]) -> Convention:
        action, slot = key
        memory = self.pack.remembered()
        mem_tool = self._tool_in(memory, action)
        mem_fn = memory.get(mem_tool or "", {})
        mem_field, mem_prop = self._field_in(mem_fn, self.pack.actions[action].inputs[slot])
        belief = Convention()
        if mem_field:
            belief = _with_tool(mem_field, read_field(mem_field, mem_prop), mem_fn)
        seen = (
            _with_tool(field, read_field(field, prop), fn) if self.sees else read_field(field, {})
        )
        if self.rereads:
            belief = _overlay(belief, seen)
        stated = self.guidance.conventions.get(key)
        if stated is None:
            return belief
        conflict = self.sees and stated.differs(seen)
        if conflict and self.noticed():
            if self.spec.on_conflict == "stop":
                differs = ", ".join(stated.differs(seen))
                raise _Stop(f"'{field}': my instructions and its description disagree ({differs})")
            if self.spec.on_conflict == "schema":
                return belief
        return _overlay(belief, stated)

    def noticed(self) -> bool:
        """Whether the model notices an artifact/schema conflict it could see (a recovering
        model re-reads the schema, so it can see one; noticing is still its own draw)."""
        return self.profile.notices_conflicts

    # --- values ---------------------------------------------------------------------------
    def done(self, action: str) -> _Past | None:
        return next((p for p in reversed(self.past) if p.ok and p.action == action), None)

    def from_result(self, source: FromResult, name: str) -> Any:
        past = self.done(source.action)
        if past is None:
            return _Need(source.action)
        if not isinstance(past.result, dict):
            return _MISSING
        for key, value in past.result.items():
            if not set(source.key) <= set(tokens(key)):
                continue
            if source.pick in ("last", "latest") and isinstance(value, list) and value:
                end = -1
                if source.pick == "latest" and self.result_order(source.action) == "newest":
                    end = 0
                return value[-1 - end if self.request.misread == name else end]
            if self.kind.slots[name].type in ("money", "signed") and isinstance(value, int | float):
                unit = unit_in(" ".join(tokens(key))) or self.result_unit(source.action)
                return round(value * (100 if unit == "dollars" else 1))
            return value
        return _MISSING

    def result_order(self, action: str) -> str | None:
        """'newest' or 'oldest': which comes first in a tool's lists, as a followed artifact or
        else its description says to the model."""
        found = next(filter(None, map(_ORDER.search, self._about_results(action))), None)
        if found is None:
            return None
        return (
            "newest" if found.group(1).lower() in ("newest", "latest", "most recent") else "oldest"
        )

    def _about_results(self, action: str) -> list[str]:
        """What the model reads about a lookup's results, first what counts most: what a
        followed artifact says, then the tool's description (served, if it reads descriptions;
        else as it remembers it)."""
        tools = self.sent if self.sees else self.pack.remembered()
        desc = str(tools.get(self._tool_in(tools, action) or "", {}).get("description", ""))
        return [self.guidance.results.get(action, ""), desc]

    def result_unit(self, action: str) -> str:
        """The unit a tool's results give amounts in where a key names none: what its
        description says, as the model reads it (served, if it reads descriptions; else as it
        remembers it) — cents when it says nothing."""
        return next(filter(None, map(unit_in, self._about_results(action))), None) or "cents"

    def line_total(self, rule: LineTotal, name: str) -> Any:
        past = self.done(rule.action)
        if past is None:
            return _Need(rule.action)
        rows = (
            next((v for k, v in (past.result or {}).items() if rule.rows in tokens(k)), None)
            if isinstance(past.result, dict)
            else None
        )
        wanted = str(self.request.stated.get(rule.match, "")).lower()
        if not isinstance(rows, list) or not wanted:
            return _MISSING
        rows = [r for r in rows if isinstance(r, dict)]
        index = next(
            (i for i, r in enumerate(rows) if wanted in (str(v).lower() for v in r.values())), None
        )
        if index is None:
            return _MISSING
        if self.request.misread == name and len(rows) > 1:  # another line of the order
            others = [i for i in range(len(rows)) if i != index]
            index = others[int(self.request.variant * len(others))]
        row = rows[index]
        price_key = next((k for k in row if rule.price in tokens(k)), None)
        count_key = next((k for k in row if any(t.startswith(rule.count) for t in tokens(k))), None)
        price, count = row.get(price_key or ""), row.get(count_key or "", 1)
        if not isinstance(price, int | float) or not isinstance(count, int | float):
            return _MISSING
        unit = unit_in(" ".join(tokens(price_key or ""))) or self.result_unit(rule.action)
        return round(price * count * (100 if unit == "dollars" else 1))

    def from_row(self, rule: FromRow, name: str) -> Any:
        found = self.from_rows(rule, name)
        return found[0] if isinstance(found, list) else found

    def from_rows(self, rule: FromRow, name: str) -> Any:
        """The values of every row ``rule`` matches, in order and distinct (a misread puts
        another row's first); a ``_Need`` before the read, ``_MISSING`` when none matches."""
        past = self.done(rule.action)
        if past is None:
            return _Need(rule.action)
        rows = (
            next((v for k, v in past.result.items() if rule.rows in tokens(k)), None)
            if isinstance(past.result, dict)
            else None
        )
        wanted = [str(self.request.stated.get(m, "")).lower() for m in rule.match]
        if not isinstance(rows, list) or not all(wanted):
            return _MISSING
        rows = [r for r in rows if isinstance(r, dict)]
        matching = [
            i
            for i, r in enumerate(rows)
            if all(any(w in str(v).lower() for v in r.values()) for w in wanted)
        ]
        if not matching:
            return _MISSING
        if self.request.misread == name and len(rows) > 1:  # another row of the list
            others = [i for i in range(len(rows)) if i != matching[0]]
            matching[0] = others[int(self.request.variant * len(others))]
        values = [v for v in (self._cell(rows[i], rule) for i in matching) if v is not _MISSING]
        return list(dict.fromkeys(values)) or _MISSING

    @staticmethod
    def _cell(row: dict[str, Any], rule: FromRow) -> Any:
        key = next((k for k in row if rule.key in tokens(k)), None)
        if key is None:
            return _MISSING
        value = row[key]
        if rule.pattern is None:
            return value
        found = re.search(rule.pattern, str(value))
        if found is None:
            return _MISSING
        return found.group(1) if found.groups() else found.group()

    def value(self, name: str, belief: Convention) -> Any:
        found = self._value(name, belief)
        slot = self.kind.slots[name]
        rebased = belief.base not in (None, self.pack.stated_base)
        if slot.type == "id" and rebased and not isinstance(found, _Need) and found is not _MISSING:
            # requests and lookups count positions from the pack's base; the field, the model
            # believes, from another: the same item has another number there
            return shift_position(found, int(belief.base or 0) - self.pack.stated_base)
        return found

    def _value(self, name: str, belief: Convention) -> Any:
        slot = self.kind.slots[name]
        if slot.value is not None:
            return slot.value
        keyed = belief.takes is not None and belief.not_takes == self.pack.stated_ids
        wrong_kind = slot.type == "id" and keyed  # a stated id is not what the field takes
        if wrong_kind and slot.keyed is not None:
            return self.from_result(slot.keyed, name)
        if wrong_kind and not slot.results:
            raise _Stop(f"the {name} field takes the {belief.takes}, which I cannot look up")
        if name in self.request.stated and not wrong_kind:
            return self.request.stated[name]
        need: Any = _MISSING
        sources: list[FromResult | LineTotal | FromRow] = [*slot.results]
        if slot.derive is not None:
            sources.append(slot.derive)
        for source in sources:
            if isinstance(source, FromResult):
                found = self.from_result(source, name)
            elif isinstance(source, FromRow):
                found = self.from_row(source, name)
            else:
                found = self.line_total(source, name)
            if isinstance(found, _Need):
                need = found if need is _MISSING else need
            elif found is not _MISSING:
                return found
        return need

    def code(self, key: Key, name: str, belief: Convention, prop: dict[str, Any]) -> Any:
        slot = self.kind.slots[name]
        concept = str(slot.concept)
        enum = [str(e) for e in prop.get("enum") or []]
        # the request names the code ("close it as escalated"), where the model has no
        # catch-all to fall back on (a reason it names is still a code it must know)
        explicit = slot.fallback is None and any(
            _phrase(meaning_of(e, belief), self.request.text)
            and pick_code([e], self.pack.concepts[concept], belief) == e
            for e in enum
        )
        said = self.guidance.constants.get(key) or self.guidance.codes.get(concept)
        if said is not None and not explicit:
            served = read_field("", prop) if self.sees else Convention()
            changed = meaning_of(said, served) != said
            if not (changed and self.noticed() and self._on_conflict(key, said)):
                return said
        if self.profile.maps_enums or slot.fallback is None or explicit:
            chosen = concept
        else:
            chosen = slot.fallback
        if not enum:
            return chosen
        return pick_code(enum, self.pack.concepts[chosen], belief) or enum[-1]

    def _on_conflict(self, key: Key, said: str) -> bool:
        """True when the model drops the artifact's value for the schema's reading."""
        if self.spec.on_conflict == "stop":
            raise _Stop(f"'{said}' is described as meaning something else than I was told")
        return self.spec.on_conflict == "schema"

    # --- moves ----------------------------------------------------------------------------
    def call(
        self, action: str, args: dict[str, str], depth: int = 0, bind: dict[str, Any] | None = None
    ) -> Move:
        name, fn = self.tool_for(action)
        out: dict[str, Any] = {}
        for input_slot, slot_name in args.items():
            key = (action, input_slot)
            field, prop = self.field_for(key, fn)
            belief = self.believe(key, field, prop, fn)
            slot: Slot = self.kind.slots[slot_name]
            props = fn.get("parameters", {}).get("properties", {})
            named = not self.recovering and key in self.guidance.fields
            if slot.type == "flag" and field not in props and not named:
                continue  # an option the schema it reads lacks, and no artifact names: unknown
            if slot.type == "code":
                out[field] = self.code(key, slot_name, belief, prop)
                continue
            found = bind[slot_name] if bind and slot_name in bind else self.value(slot_name, belief)
            if isinstance(found, _Need):
                return self.read(found.action, depth)
            if found is _MISSING or found is None:
                return Move(text=f"I could not work out the {slot_name.replace('_', ' ')}.")
            written = encode(slot, found, belief, self.pack)
            if written is not OMIT:
                out[field] = written
        return Move(tool=name, arguments=out)

    def read(self, action: str, depth: int) -> Move:
        inputs = self.pack.actions[action].inputs
        if depth > 3 or self.done(action) or not set(inputs) <= set(self.kind.slots):
            return Move(text="I could not find what I needed to go on.")
        return self.call(action, {s: s for s in inputs}, depth + 1)

    def known(self, step: Step) -> bool:
        if step.action in self.guidance.forbidden or step.action in self.request.refused:
            return False
        return bool(
            step.core
            or step.action in self.request.asked
            or self.profile.knows_procedure
            or step.action in self.guidance.steps
        )

    def repeats(self, step: Step) -> bool:
        """Whether the model goes on to the next row after acting on one (every call site, not
        just the first): procedure it knows, or a followed artifact that says every one — unless
        one it follows limits the step to one call ("only the first file")."""
        if step.action in self.guidance.single:
            return False
        return self.profile.knows_procedure or step.action in self.guidance.each

    def pending(self, step: Step) -> Any:
        """The values of ``step.each`` still to act on (a ``_Need`` before the read that lists
        them; None when the rows list nothing, and the step is then an ordinary one)."""
        rule = self.kind.slots[str(step.each)].derive
        if not isinstance(rule, FromRow):
            return None
        values = self.from_rows(rule, str(step.each))
        if isinstance(values, _Need) or values is _MISSING:
            return values if isinstance(values, _Need) else None
        used = [
            v for p in self.past if p.ok and p.action == step.action for v in p.arguments.values()
        ]
        return [v for v in values if v not in used]

    def next(self, context: str) -> Move:
        try:
            for step in self.kind.steps:
                if not self.known(step):
                    continue
                todo = self.pending(step) if step.each else None
                if isinstance(todo, _Need):
                    return self.read(todo.action, 0)
                if todo and (not self.done(step.action) or self.repeats(step)):
                    return self.call(step.action, step.args, bind={str(step.each): todo[0]})
                if self.done(step.action):
                    continue
                return self.call(step.action, step.args)
        except _Stop as stop:
            # report the way the system prompt asks for, if it asks
            protocol = _STOP_PROTOCOL.search(context)
            prefix = protocol.group(1) if protocol else "I stopped:"
            return Move(text=f"{prefix} {stop}. I stopped without acting.")
        acted = [p.action for p in self.past if p.ok and p.action]
        return Move(text="Done: " + ", ".join(dict.fromkeys(acted)) + "." if acted else "Done.")


_PATTERN_FIELDS = frozenset({"pattern", "query", "glob", "q", "search", "filter"})
"""Words naming a field that holds what a search matches."""


def _with_tool(field: str, said: Convention, fn: dict[str, Any]) -> Convention:
    """``said`` with how a search pattern matches read from the tool's description, for a
    pattern field whose own description says nothing (servers often state it only there)."""
    if said.match is not None or not _PATTERN_FIELDS & set(tokens(field)):
        return said
    return replace(said, match=read_field("", {"description": fn.get("description", "")}).match)


def _action_of_tool(name: str, sent: dict[str, dict[str, Any]], request: Request) -> str | None:
    desc = str(sent.get(name, {}).get("description", ""))
    scores = {a: score(name, desc, spec.lexicon) for a, spec in request.pack.actions.items()}
    best = max(scores, key=lambda a: scores[a], default=None)
    return best if best is not None and scores[best] >= 3 else None


def _text_result(text: str) -> dict[str, Any]:
    """A plain-text tool result as the model reads it: ``lines`` (each row's ``text``: a
    search hit, a directory entry) and the whole ``text``."""
    return {"lines": [{"text": line} for line in text.splitlines() if line.strip()], "text": text}


def _history(
    messages: list[dict[str, Any]], sent: dict[str, dict[str, Any]], request: Request
) -> list[_Past]:
    names: dict[str, str] = {}
    sent_args: dict[str, dict[str, Any]] = {}
    past = []
    for m in messages:
        for tc in m.get("tool_calls") or []:
            names[tc["id"]] = tc["function"]["name"]
            try:
                parsed = json.loads(tc["function"].get("arguments") or "{}")
            except json.JSONDecodeError:
                parsed = {}
            sent_args[tc["id"]] = parsed if isinstance(parsed, dict) else {}
        if m.get("role") == "tool":
            content = message_text(m)
            ok = not content.startswith("error")
            tool = names.get(m.get("tool_call_id", ""), "")
            action = None if tool in SKILL_TOOLS else _action_of_tool(tool, sent, request)
            try:
                result = json.loads(content) if ok else content
            except json.JSONDecodeError:
                # text, e.g. a loaded skill; a lookup's text (a file, search hits one per
                # line, as real servers answer) is read as its lines and its whole text
                result = _text_result(content) if action is not None else content
            past.append(_Past(action, ok, result, sent_args.get(m.get("tool_call_id", ""), {})))
    return past


def next_move(
    spec: SimModelSpec, seed: int, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> Move:
    """The model's next move given everything it was sent."""
    turn = next((message_text(m) for m in messages if m.get("role") == "user"), "")
    if not tools and playbook_of(turn) is not None:  # asked to rewrite a playbook, not to act
        return Move(text=rewrite(spec, seed, turn))
    # artifacts sit in the system prompt, in loaded skills, or in the user turn after the request
    context = "\n".join(
        [
            *(message_text(m) for m in messages if m.get("role") in ("system", "tool")),
            *(tagged.group(0) for tagged in _TAG.finditer(turn)),
        ]
    )
    user = _TAG.sub("", turn).strip()
    profile = draw_profile(spec, seed, user)
    sent = {t["function"]["name"]: t["function"] for t in tools if "function" in t}
    offered = {n: str(f.get("description", "")) for n, f in sent.items() if n not in SKILL_TOOLS}
    request = read_request(user, profile.reads_numbers, profile.misread, profile.variant, offered)
    if request is None or not profile.understands:
        return Move(text="I do not know how to help with this request.")
    past = _history(messages, sent, request)
    errors = [p for p in past if not p.ok]
    if past and not past[-1].ok and (not profile.recovers or len(errors) >= 3):
        return Move(text=f"I could not complete this: {past[-1].result}")
    skill_call = skill_move(sent, messages, context, request, profile)
    if skill_call is not None:
        return Move(tool=skill_call[0], arguments=skill_call[1])
    guidance = read_guidance(request.pack, request.kind, context, profile.follows, sent)
    return _Mind(spec, profile, request, guidance, sent, past).next(context)
