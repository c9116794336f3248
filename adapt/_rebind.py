"""Re-binding a typed skill to a served interface, with the drift classifier (no model calls).

Meaning-preserving changes to the tools a skill uses are absorbed (renamed tools, fields and
enum values are rebound). A meaning-changing change is rewritten only where the skill can say
the new convention and the served schema states it: a unit (the skill's ``units``) or swapped
enum meanings (its ``codes``). Anything else leaves the skill as it was, declaring the
interface it was written for, so the runtime stops it safely.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from benchmark.harness import InterfaceRequirement, TypedSkill, rebound_skill
from drift import REQUIRED_KINDS, Change, ServedInterface, ToolSet, classify, read_convention

_RESPELLED = re.compile(r"'([^']+)' → '([^']+)'")


@dataclass
class _Plan:
    """What re-binding one requirement takes."""

    tools: dict[str, str] = field(default_factory=dict)  # old tool → new
    fields: dict[tuple[str, str], str] = field(default_factory=dict)  # (new tool, old) → new
    units: dict[str, str] = field(default_factory=dict)  # new field → unit
    codes: dict[str, str] = field(default_factory=dict)  # old code → new code
    blocked: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)


def _input_field(c: Change) -> str | None:
    """The top-level input field a change is about (None for output, nested or tool-level)."""
    if c.path.startswith(("(", "output.")) or "." in c.path or ":" in c.path:
        return None
    return c.path


def _rewrite(plan: _Plan, c: Change, now: ServedInterface) -> None:
    """Plan the rewrite of a meaning-changing change, or record why it cannot be."""
    name = _input_field(c)
    tool = next((t for t in now.tools.tools if t.name == c.tool), None)
    prop = tool.properties().get(name or "", {}) if tool is not None else {}
    stated = read_convention(name or "", prop)
    if c.kind == "unit_changed" and name and stated.unit:
        plan.units[name] = stated.unit
        plan.done.append(f"{c.tool}.{name}: unit now {stated.unit} (the served schema says so)")
    elif c.kind == "enum_meaning_changed" and stated.meanings:
        # stated.meanings: value → the value whose old meaning it has now
        for value, meant in stated.meanings.items():
            plan.codes[meant] = value
        plan.done.append(f"{c.tool}.{name}: codes follow the swapped meanings the schema states")
    else:
        plan.blocked.append(f"{c.tool} {c.path}: {c.kind} ({c.drift_class}): {c.reason}")


def _plan(skill: TypedSkill, req: InterfaceRequirement, now: ServedInterface) -> _Plan:
    assert req.tools is not None
    report = classify(ToolSet.model_validate({"tools": req.tools}), now.tools)
    plan = _Plan()
    plan.tools = {c.was: c.tool for c in report.changes if c.kind == "tool_renamed" and c.was}
    used = {plan.tools.get(t, t) for t in skill.permissions}
    passed = {(plan.tools.get(s.tool, s.tool), a) for s in skill.steps for a in s.args}
    for c in report.changes:
        if c.tool not in used or c.kind == "tool_renamed":
            continue
        name = _input_field(c)
        if c.kind == "field_renamed" and c.was and name and "." not in c.was:
            plan.fields[(c.tool, c.was)] = name
            plan.done.append(f"{c.tool}: field {c.was} → {name}")
        elif c.kind == "enum_values_renamed":
            plan.codes.update(dict(_RESPELLED.findall(c.reason)))
            plan.done.append(f"{c.tool}.{name}: {c.reason}")
        elif c.kind in REQUIRED_KINDS and (c.tool, name) not in passed:
            plan.blocked.append(f"{c.tool} {c.path}: {c.kind}: the skill does not pass it")
        elif c.kind in ("field_nested", "field_flattened"):
            plan.blocked.append(f"{c.tool} {c.path}: {c.kind}: a moved field cannot be rebound")
        elif c.drift_class == "preserving":
            continue
        elif c.drift_class == "changing":
            _rewrite(plan, c, now)
        elif name is None or (c.tool, name) in passed or c.kind.startswith("tool_"):
            plan.blocked.append(f"{c.tool} {c.path}: {c.kind} ({c.drift_class}): {c.reason}")
    return plan


def _apply(
    skill: TypedSkill, req: InterfaceRequirement, now: ServedInterface, plan: _Plan
) -> TypedSkill:
    return rebound_skill(
        skill, req, now, plan.tools, plan.fields, units=plan.units, codes=plan.codes
    )


def skill_text(skill: TypedSkill) -> str:
    """A skill as an artifact file: the fields it sets, two-space indented JSON."""
    return json.dumps(skill.model_dump(mode="json", exclude_unset=True), indent=2) + "\n"


def rebind_skill(
    skill: TypedSkill, served: dict[str, ServedInterface]
) -> tuple[TypedSkill, list[str]]:
    """``skill`` re-bound to the ``served`` interfaces (env id → served), and what was done.

    Returns the skill unchanged (with the reason) when any requirement cannot be re-bound:
    it then still declares its old interface, and the runtime stops it safely.
    """
    current, notes = skill, []
    for req in skill.requires:
        now = served.get(req.env)
        if now is None:
            notes.append(f"{req.env}: not served by the target; requirement kept")
            continue
        if (now.version.label, now.digest) == (req.version, req.schema_digest):
            notes.append(f"{req.env}: served as declared; nothing to rebind")
            continue
        if req.tools is None:
            notes.append(
                f"{req.env}: the skill does not carry the tools it was written for, so the "
                "change cannot be classified; left to stop safely"
            )
            return skill, notes
        plan = _plan(skill, req, now)
        if plan.blocked:
            notes += [f"{req.env}: cannot rebind, left to stop safely: {b}" for b in plan.blocked]
            return skill, notes
        req_now = next(r for r in current.requires if r.env == req.env)
        current = _apply(current, req_now, now, plan)
        what = "; ".join(plan.done) or "no change to the tools it uses"
        notes.append(f"{req.env}: rebound to version {now.version.label} ({what})")
    return current, notes
