"""A sim model's policy: from the messages and tool schemas it is sent to its next move."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from benchmark._task import stable_int
from benchmark.sim._catalogue import SimModelSpec
from benchmark.sim._reading import (
    ACTIONS,
    SLOTS,
    Directives,
    Intent,
    action_of,
    best_match,
    read_artifacts,
    read_instruction,
)

_SITUATION_WORDS = {
    "duplicate": {"duplicate": 3, "charge": 1, "double": 2},
    "damaged": {"damaged": 3, "broken": 2, "damage": 2},
    "late": {"late": 3, "delivery": 1, "delay": 2},
}


@dataclass(frozen=True)
class Profile:
    """This trial's draws for one model: fixed by (model, seed, instruction) alone, so the
    arms of a paired comparison share them."""

    understood: bool
    procedure: bool
    codes: bool
    rereads: bool
    reads_units: bool
    recovers: bool
    loads_skills: bool


def draw_profile(spec: SimModelSpec, seed: int, instruction: str) -> Profile:
    """The per-trial draws (common random numbers across arms)."""
    u = np.random.default_rng(stable_int(spec.name, seed, instruction)).random(7)
    return Profile(
        understood=bool(u[0] < spec.understanding.get("support_ops", 0.0)),
        procedure=bool(u[1] < spec.procedure),
        codes=bool(u[2] < spec.codes),
        rereads=bool(u[3] < spec.reread_schema),
        reads_units=bool(u[4] < spec.read_units),
        recovers=bool(u[5] < spec.recover),
        loads_skills=bool(u[6] < spec.skill_tool),
    )


@dataclass(frozen=True)
class Move:
    """A tool call to make, or a final answer (``tool`` is None)."""

    tool: str | None = None
    arguments: dict[str, Any] | None = None
    text: str = ""


@dataclass
class _Past:
    action: str
    ok: bool
    result: Any


@cache
def remembered_tools(interface_id: str) -> dict[str, dict[str, Any]]:
    """The tool schemas a model remembers from training (name → OpenAI function)."""
    from benchmark.support_ops import base_tools, interface_versions
    from drift import ServedInterface

    served = ServedInterface(base_tools(), interface_versions()[interface_id])
    return {t.name: t.to_openai()["function"] for t in served.tools.tools}


class _Mind:
    def __init__(
        self,
        spec: SimModelSpec,
        profile: Profile,
        directives: Directives,
        sent: dict[str, dict[str, Any]],
        recovering: bool,
    ) -> None:
        self.spec, self.profile, self.directives = spec, profile, directives
        self.sent, self.recovering = sent, recovering
        self.rereads = profile.rereads or recovering

    def schema_tools(self) -> dict[str, dict[str, Any]]:
        return self.sent if self.rereads else remembered_tools(self.spec.remembers)

    def tool_for(self, action: str) -> tuple[str, dict[str, Any]]:
        tools = self.schema_tools()
        forced = self.directives.tool_names.get(action)
        name = forced if forced and not self.recovering else None
        name = name or best_match(
            {n: f.get("description", "") for n, f in tools.items()}, ACTIONS[action]
        )
        return name or action, tools.get(name or "", {})

    def field_for(self, action: str, slot: str, fn: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        props = fn.get("parameters", {}).get("properties", {})
        forced = self.directives.field_names.get((action, slot))
        name = forced if forced and not self.recovering else None
        name = name or best_match(
            {p: str(v.get("description", "")) for p, v in props.items()}, SLOTS[action][slot]
        )
        return name or slot, props.get(name or "", {})

    def unit_of(self, field: str, prop: dict[str, Any]) -> str:
        if self.directives.unit:
            return self.directives.unit
        for unit in ("cents", "dollars"):
            if unit in field:
                return unit
        desc = str(prop.get("description", "")).lower()
        if self.rereads and self.profile.reads_units:
            for unit in ("cents", "dollars"):
                if unit in desc:
                    return unit
        return "cents"  # what the remembered interface used

    def call(self, action: str, values: dict[str, Any]) -> Move:
        name, fn = self.tool_for(action)
        args: dict[str, Any] = {}
        for slot, value in values.items():
            field, prop = self.field_for(action, slot, fn)
            if slot == "amount":
                value = value if self.unit_of(field, prop) == "cents" else round(value / 100, 2)
            elif slot in ("reason", "resolution"):
                value = self.code(prop, value)
            args[field] = value
        return Move(tool=name, arguments=args)

    def code(self, prop: dict[str, Any], wanted: str) -> str:
        enum = [str(e) for e in prop.get("enum", [])] or [wanted]
        if wanted in _SITUATION_WORDS:
            if self.profile.codes or self.directives.codes:
                return best_match({e: "" for e in enum}, _SITUATION_WORDS[wanted]) or enum[0]
            if self.directives.example_code in enum:  # unsure: copy what the example did
                return str(self.directives.example_code)
            return "goodwill" if "goodwill" in enum else enum[-1]
        return wanted if wanted in enum else enum[0]


def _action_name(tool_name: str) -> str:
    """The action a called tool stood for, or the tool's own name."""
    return action_of(tool_name, minimum=1) or tool_name


def _history(messages: list[dict[str, Any]]) -> list[_Past]:
    names: dict[str, str] = {}
    past = []
    for m in messages:
        for tc in m.get("tool_calls") or []:
            names[tc["id"]] = tc["function"]["name"]
        if m.get("role") == "tool":
            content = str(m.get("content") or "")
            ok = not content.startswith("error")
            try:
                result = json.loads(content) if ok else content
            except json.JSONDecodeError:
                result = content  # text, e.g. a loaded skill
            past.append(_Past(_action_name(names.get(m.get("tool_call_id", ""), "")), ok, result))
    return past


def _order_from_customer(past: list[_Past]) -> str | None:
    for p in past:
        if p.action == "find_customer" and p.ok and isinstance(p.result, dict):
            for value in p.result.values():
                if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                    return str(value[-1])
    return None


def _order_details(past: list[_Past]) -> dict[str, Any] | None:
    for p in reversed(past):
        if p.action == "get_order" and p.ok and isinstance(p.result, dict):
            return p.result
    return None


def _key(d: dict[str, Any], word: str) -> Any:
    return next((v for k, v in d.items() if word in k.lower()), None)


def _amount_from_order(intent: Intent, order: dict[str, Any]) -> int | None:
    if intent.shipping:
        value = _key(order, "shipping")
        return int(value) if isinstance(value, int | float) else None
    for item in order.get("items") or []:
        if (
            isinstance(item, dict)
            and intent.item
            and str(item.get("name", "")).lower() == intent.item.lower()
        ):
            price, qty = _key(item, "price"), _key(item, "quant") or 1
            return int(price * qty) if isinstance(price, int | float) else None
    return None


LOAD_SKILL = "load_skill"


def _unloaded_skills(sent: dict[str, dict[str, Any]], messages: list[dict[str, Any]]) -> list[str]:
    """Skill names an on-demand loader offers that the model has not loaded yet."""
    loader = sent.get(LOAD_SKILL)
    if loader is None:
        return []
    names = loader.get("parameters", {}).get("properties", {}).get("name", {}).get("enum", [])
    loaded = {
        json.loads(tc["function"]["arguments"]).get("name")
        for m in messages
        for tc in m.get("tool_calls") or []
        if tc["function"]["name"] == LOAD_SKILL
    }
    return [n for n in names if n not in loaded]


def next_move(
    spec: SimModelSpec, seed: int, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> Move:
    """The model's next move given everything it was sent."""
    # What the model has read: the system prompt and any skill text a tool returned.
    system = "\n".join(
        str(m.get("content") or "") for m in messages if m.get("role") in ("system", "tool")
    )
    user = next((str(m.get("content") or "") for m in messages if m.get("role") == "user"), "")
    intent = read_instruction(user)
    if intent is None:
        return Move(text="I do not know how to help with this request.")
    profile = draw_profile(spec, seed, user)
    past = _history(messages)
    errors = [p for p in past if not p.ok]
    if past and not past[-1].ok and (not profile.recovers or len(errors) >= 3):
        return Move(text=f"I could not complete this: {past[-1].result}")
    sent = {t["function"]["name"]: t["function"] for t in tools if "function" in t}
    loadable = _unloaded_skills(sent, messages)
    if loadable and profile.loads_skills:
        return Move(tool=LOAD_SKILL, arguments={"name": loadable[0]})
    mind = _Mind(
        spec,
        profile,
        read_artifacts(system, spec.recipe_formats),
        sent,
        bool(errors) and profile.recovers,
    )
    directives = mind.directives
    order = intent.order or _order_from_customer(past)
    if order is None:
        if intent.email and not any(p.action == "find_customer" and p.ok for p in past):
            return mind.call("find_customer", {"email": intent.email})
        return Move(text="I could not find the order.")
    if intent.dollars is not None:
        amount = round(intent.dollars * 100)
    else:
        details = _order_details(past)
        if details is None:
            return mind.call("get_order", {"order": order})
        found = _amount_from_order(intent, details)
        if found is None:
            return Move(text="I could not work out the amount to refund.")
        amount = found
    if not profile.understood:
        amount = round(amount * 0.9)
    if not any(p.action == "refund" and p.ok for p in past):
        return mind.call("refund", {"order": order, "amount": amount, "reason": intent.situation})
    knows_procedure = profile.procedure or directives.procedure
    if knows_procedure and intent.ticket and not any(p.action == "close" and p.ok for p in past):
        return mind.call("close", {"ticket": intent.ticket, "resolution": "refunded"})
    return Move(
        text="The refund has been issued." + (" The ticket is closed." if knows_procedure else "")
    )
