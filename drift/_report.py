"""The classifier's output: one labelled change per difference found."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from drift._semantics import sentences

Label = Literal["preserving", "changing", "unknown"]

REQUIRED_KINDS = frozenset({"field_required", "required_field_added"})
"""Kinds of preserving change a caller survives only if it passes the field: a call without it
is rejected (an error, not a different answer)."""


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
    evidence: tuple[str, ...] = Field(
        min_length=1,
        description="What the label rests on: the schema parts compared (``old: private has no "
        'default``) and the words quoted from descriptions (``new: "…the last 24 hours"``).',
    )
    was: str | None = Field(
        default=None,
        description="For renames and moves: the old tool name or field path. Not part of the "
        "--json form.",
    )


class DiffReport(BaseModel):
    """Every change between an old and a new tool list."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=2, description="Format version (2: every change carries evidence).")
    changes: list[Change] = Field(description="The changes, grouped by tool.")

    def label(self) -> Label:
        """'changing' if any change is, else 'unknown' if any change is, else 'preserving'."""
        found = {c.drift_class for c in self.changes}
        if "changing" in found:
            return "changing"
        return "unknown" if "unknown" in found else "preserving"

    def to_json(self) -> dict[str, list[dict[str, Any]]]:
        """The ``--json`` form: ``{"changes": [{"tool", "kind", "class", "path", "reason",
        "evidence"}]}``."""
        return {
            "changes": [
                c.model_dump(mode="json", by_alias=True, exclude={"was"}) for c in self.changes
            ]
        }


QUOTE_MAX = 200
"""Longest quoted description text in a piece of evidence."""


def quote(side: str, text: str, phrase: str | None = None) -> str:
    """Evidence from a description: the sentence of ``text`` holding ``phrase`` (all of
    ``text`` without one), shortened, as ``side: "…"``."""
    said = " ".join(text.split())
    if phrase:
        phrase = " ".join(phrase.split())
        said = next((s for s in sentences(said) if phrase in s), said)
    if len(said) > QUOTE_MAX:
        said = said[: QUOTE_MAX - 1] + "…"
    return f'{side}: "{said}"'
