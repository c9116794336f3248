"""The classifier's output: one labelled change per difference found."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Label = Literal["preserving", "changing", "unknown"]


class Change(BaseModel):
    """One difference between two tool lists, labelled by what it does to a call's meaning."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    tool: str = Field(description="Tool name (the new name where it changed).")
    kind: str = Field(description="What changed, e.g. 'field_renamed' or 'unit_changed'.")
    drift_class: Label = Field(
        alias="class",
        description="'preserving': calls keep their meaning; 'changing': the same call can now "
        "mean something else; 'unknown': the schemas alone cannot tell.",
    )
    path: str = Field(
        description="Field path (dotted; 'output.' prefix for result fields; '<old tool>:' "
        "prefix for tools merged into one), or '(tool)', '(description)', '(order)', '(fields)'."
    )
    reason: str = Field(description="Why the change got its label.")
    was: str | None = Field(
        default=None,
        description="For renames and moves: the old tool name or field path. Not part of the "
        "--json form.",
    )


class DiffReport(BaseModel):
    """Every change between an old and a new tool list."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=1, description="Format version of this report.")
    changes: list[Change] = Field(description="The changes, grouped by tool.")

    def label(self) -> Literal["preserving", "changing"]:
        """'changing' if any change is, else 'preserving' (unknowns do not decide)."""
        return (
            "changing" if any(c.drift_class == "changing" for c in self.changes) else "preserving"
        )

    def to_json(self) -> dict[str, list[dict[str, str]]]:
        """The ``--json`` form: ``{"changes": [{"tool", "kind", "class", "path", "reason"}]}``."""
        return {
            "changes": [
                c.model_dump(mode="json", by_alias=True, exclude={"was"}) for c in self.changes
            ]
        }
