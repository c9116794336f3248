"""The skill runtime's guard: a typed skill runs only on the interface it was written for."""

from __future__ import annotations

from benchmark.harness._skill_ir import TypedSkill
from drift import ServedInterface


def interface_mismatch(skill: TypedSkill, served: dict[str, ServedInterface]) -> str | None:
    """Why ``skill`` must not run against the ``served`` interfaces (env id → served), or None.

    Declared drift changes the version label; undeclared drift keeps it but changes the digest.
    Either way the skill stops safely instead of guessing.
    """
    for req in skill.requires:
        now = served.get(req.env)
        if now is None:
            return f"skill {skill.name!r} needs environment {req.env!r}, which is not served"
        if now.version.label != req.version:
            return (
                f"skill {skill.name!r} was written for {req.env} interface version "
                f"{req.version}; the server announces {now.version.label}"
            )
        if now.digest != req.schema_digest:
            return (
                f"skill {skill.name!r}: {req.env} interface {req.version} changed without a "
                f"new version (schema digest {now.digest[:12]}…, expected "
                f"{req.schema_digest[:12]}…)"
            )
    return None
