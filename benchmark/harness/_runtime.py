"""The skill runtime's guard: a typed skill runs only on an interface it can vouch for."""

from __future__ import annotations

from dataclasses import dataclass

from benchmark.harness._skill_ir import InterfaceRequirement, TypedSkill
from drift import REQUIRED_KINDS, Change, ServedInterface, ToolSet, classify


@dataclass(frozen=True)
class InterfaceCheck:
    """The runtime's verdict: the skill to use (maybe rebound), or why to stop."""

    skill: TypedSkill | None
    stop: str | None = None
    note: str | None = None


def _declared_mismatch(req: InterfaceRequirement, now: ServedInterface, name: str) -> str | None:
    if now.version.label != req.version:
        return (
            f"skill {name!r} was written for {req.env} interface version {req.version}; "
            f"the server announces {now.version.label}"
        )
    if now.digest != req.schema_digest:
        return (
            f"skill {name!r}: {req.env} interface {req.version} changed without a new version "
            f"(schema digest {now.digest[:12]}…, expected {req.schema_digest[:12]}…)"
        )
    return None


def _rebind(
    skill: TypedSkill, req: InterfaceRequirement, now: ServedInterface, changes: list[Change]
) -> TypedSkill:
    tools = {c.was: c.tool for c in changes if c.kind == "tool_renamed" and c.was}
    fields = {(c.tool, c.was): c.path for c in changes if c.kind == "field_renamed" and c.was}
    return rebound_skill(skill, req, now, tools, fields)


def rebound_skill(
    skill: TypedSkill,
    req: InterfaceRequirement,
    now: ServedInterface,
    tools: dict[str, str],
    fields: dict[tuple[str, str], str],
    *,
    units: dict[str, str] | None = None,
    codes: dict[str, str] | None = None,
) -> TypedSkill:
    """``skill`` with ``tools`` (old → new name) and ``fields`` ((tool, old) → new) renamed in
    its steps, permissions and units, ``units`` and ``codes`` (old → new code) applied, and
    ``req`` replaced by a requirement of the served interface ``now``."""
    steps = []
    for step in skill.steps:
        tool = tools.get(step.tool, step.tool)
        args = {fields.get((tool, k), k): v for k, v in step.args.items()}
        steps.append(step.model_copy(update={"tool": tool, "args": args}))
    renamed = {old: new for (_, old), new in fields.items()}
    requires = tuple(
        InterfaceRequirement(
            env=r.env,
            version=now.version.label,
            schema_digest=now.digest,
            tools=tuple(now.tools.to_mcp()),
        )
        if r is req
        else r
        for r in skill.requires
    )
    return skill.model_copy(
        update={
            "steps": tuple(steps),
            "permissions": tuple(tools.get(t, t) for t in skill.permissions),
            "units": {**{renamed.get(k, k): v for k, v in skill.units.items()}, **(units or {})},
            "codes": {k: (codes or {}).get(v, v) for k, v in skill.codes.items()},
            "requires": requires,
        }
    )


def _classified(
    skill: TypedSkill, req: InterfaceRequirement, now: ServedInterface, mismatch: str
) -> InterfaceCheck:
    assert req.tools is not None
    report = classify(ToolSet.model_validate({"tools": req.tools}), now.tools)
    renamed_tools = {c.was: c.tool for c in report.changes if c.kind == "tool_renamed" and c.was}
    used = {renamed_tools.get(t, t) for t in skill.permissions}
    relevant = [c for c in report.changes if c.tool in used]
    renamed_fields = {(c.tool, c.was): c.path for c in relevant if c.kind == "field_renamed"}
    passed = {
        (renamed_tools.get(s.tool, s.tool), renamed_fields.get((s.tool, a), a))
        for s in skill.steps
        for a in s.args
    }
    for c in relevant:
        if c.kind in REQUIRED_KINDS and (c.tool, c.path) not in passed:
            return InterfaceCheck(
                skill=None,
                stop=f"{mismatch}; {c.tool} {c.path}: {c.kind}: the skill does not pass it",
            )
        moved = c.kind in ("field_nested", "field_flattened")
        if c.drift_class != "preserving" or moved:
            why = "cannot be rebound" if moved else c.drift_class
            return InterfaceCheck(
                skill=None,
                stop=f"{mismatch}; {c.tool} {c.path}: {c.kind} ({why}): {c.reason}",
            )
    return InterfaceCheck(
        skill=_rebind(skill, req, now, relevant),
        note=f"{mismatch}; {len(relevant)} preserving change(s) to its tools, rebound",
    )


_CHECKED: dict[tuple[str, tuple[tuple[str, str, str], ...]], InterfaceCheck] = {}
_CHECKED_MAX = 256


def check_interface(skill: TypedSkill, served: dict[str, ServedInterface]) -> InterfaceCheck:
    """``_check_interface``, remembered per (skill, served interfaces): every trial of an arm
    asks the same question, and classifying a changed interface takes tens of milliseconds."""
    key = (
        skill.model_dump_json(),
        tuple(sorted((env, s.version.label, s.digest) for env, s in served.items())),
    )
    if key not in _CHECKED:
        if len(_CHECKED) >= _CHECKED_MAX:
            _CHECKED.clear()
        _CHECKED[key] = _check_interface(skill, served)
    return _CHECKED[key]


def _check_interface(skill: TypedSkill, served: dict[str, ServedInterface]) -> InterfaceCheck:
    """Whether ``skill`` may run against the ``served`` interfaces (env id → served).

    Declared drift changes the version label; undeclared drift keeps it but changes the digest.
    Either way the skill stops safely, unless it asked to be rebound and carries the tools it
    was written against: then the drift classifier decides, and only meaning-preserving changes
    to the tools it uses are absorbed (renamed tools and fields are rebound).
    """
    current, notes = skill, []
    for req in skill.requires:
        now = served.get(req.env)
        if now is None:
            return InterfaceCheck(
                skill=None, stop=f"skill {skill.name!r} needs environment {req.env!r}, not served"
            )
        mismatch = _declared_mismatch(req, now, skill.name)
        if mismatch is None:
            continue
        if skill.on_interface_change == "stop" or req.tools is None:
            return InterfaceCheck(skill=None, stop=mismatch)
        req_now = next(r for r in current.requires if r.env == req.env)
        check = _classified(current, req_now, now, mismatch)
        if check.skill is None:
            return check
        current = check.skill
        notes.append(check.note or "")
    return InterfaceCheck(skill=current, note="; ".join(notes) or None)
