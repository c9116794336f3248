"""Typed skills (Skill IR): contracts with declared tool interfaces, permissions and steps."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from drift import DriftError, parse_tool_list

_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class InterfaceRequirement(_Strict):
    """The tool interface a skill was written for."""

    env: str = Field(description="Environment id, e.g. 'support-ops'.")
    version: str = Field(description="Interface version label the server announces.")
    schema_digest: str = Field(description="SHA-256 of the canonical served tool list.")
    tools: tuple[dict[str, Any], ...] | None = Field(
        default=None,
        description="The served tool list (MCP form) the skill was written against; lets the "
        "runtime classify a changed interface instead of only noticing it.",
    )

    @model_validator(mode="after")
    def _digest_is_hex(self) -> InterfaceRequirement:
        if not _HEX64.match(self.schema_digest):
            raise ValueError("schema_digest must be 64 lower-case hex characters")
        if self.tools is not None:
            try:
                digest = parse_tool_list(list(self.tools), "requires.tools").digest()
            except DriftError as e:
                raise ValueError(str(e)) from None
            if digest != self.schema_digest:
                raise ValueError("requires.tools does not match schema_digest")
        return self


class SkillTriggers(_Strict):
    """When a skill applies."""

    families: tuple[str, ...] = Field(min_length=1, description="Task families it serves.")


class SkillStep(_Strict):
    """One tool call of the skill's procedure; argument values are bindings like '$order'."""

    tool: str = Field(description="Tool to call.")
    args: dict[str, str] = Field(default_factory=dict, description="Argument → binding.")
    note: str = Field(default="", description="When or why this step runs.")


class TypedSkill(_Strict):
    """A typed skill. The harness's skill runtime checks ``requires`` against the served
    interface before the model sees the skill, and stops safely on a mismatch."""

    v: int = Field(default=1, description="Format version.")
    name: str = Field(min_length=1, description="Skill name.")
    description: str = Field(description="What the skill does.")
    triggers: SkillTriggers = Field(description="When it applies.")
    requires: tuple[InterfaceRequirement, ...] = Field(
        min_length=1, description="Tool interfaces it depends on, by version and digest."
    )
    preconditions: tuple[str, ...] = Field(default=(), description="What must hold first.")
    permissions: tuple[str, ...] = Field(description="Tools the skill may call.")
    steps: tuple[SkillStep, ...] = Field(min_length=1, description="The procedure.")
    codes: dict[str, str] = Field(
        default_factory=dict, description="Situation → code value, for enum arguments."
    )
    units: dict[str, str] = Field(default_factory=dict, description="Argument → unit.")
    verifier: str = Field(default="", description="Postcondition that shows success.")
    on_interface_change: Literal["stop", "rebind_preserving"] = Field(
        default="stop",
        description="What the runtime does when the served interface is not the declared one: "
        "stop safely, or — when the requirement carries its tools — rebind renamed tools and "
        "fields if every change to the tools the skill uses preserves meaning, else stop.",
    )

    @model_validator(mode="after")
    def _steps_within_permissions(self) -> TypedSkill:
        outside = sorted({s.tool for s in self.steps} - set(self.permissions))
        if outside:
            raise ValueError(f"steps call tools outside permissions: {', '.join(outside)}")
        return self

    @model_validator(mode="after")
    def _steps_match_declared_tools(self) -> TypedSkill:
        """Where the skill declares the tools it was written against, every step must call one
        of them with arguments they take: a name no declared tool has would only fail at the
        server."""
        declared: dict[str, set[str]] = {}
        for req in self.requires:
            for tool in req.tools or ():
                props = (tool.get("inputSchema") or {}).get("properties") or {}
                declared[str(tool.get("name"))] = set(props)
        if not declared:
            return self
        for i, step in enumerate(self.steps, 1):
            if step.tool not in declared:
                raise ValueError(
                    f"step {i} calls {step.tool!r}, which no declared tool is "
                    f"(declared: {', '.join(sorted(declared))})"
                )
            unknown = sorted(set(step.args) - declared[step.tool])
            if unknown:
                raise ValueError(
                    f"step {i} ({step.tool}) passes {', '.join(map(repr, unknown))}, which "
                    f"{step.tool} does not take (inputs: {', '.join(sorted(declared[step.tool]))})"
                )
        return self

    def applies_to(self, family: str) -> bool:
        """Whether the skill's triggers cover ``family``."""
        return family in self.triggers.families
