"""The five-axis condition an evaluation runs in."""

from __future__ import annotations

import hashlib
import hmac

import rfc8785
from pydantic import BaseModel, ConfigDict, Field, field_validator

AXES: tuple[str, ...] = ("model", "provider", "tool_interface", "task_family", "harness")
"""The five axes of change, in their canonical order."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ModelAxis(_Frozen):
    """Which model answers: a litellm model string and a human version label."""

    model: str = Field(description="litellm model string, e.g. 'sim/acme-2' or 'openai/gpt-4o'.")
    version: str = Field(description="Version label of the model, e.g. '2'.")


class TaskFamilyAxis(_Frozen):
    """Which tasks are drawn: one family, or a set of families, and a split of each.

    A set runs ``tasks_per_split`` tasks of every family in it, and its intervals resample
    families (clusters). One family is written as its id, a set as the sorted list of its ids,
    so single-family conditions keep the canonical form they always had.
    """

    family: str | tuple[str, ...] = Field(
        description="Task family id, e.g. 'support_ops', or a list of at least two ids."
    )
    split: str = Field(description="Split of every family, e.g. 'dev' or 'sealed'.")

    @field_validator("family", mode="before")
    @classmethod
    def _normal(cls, value: object) -> object:
        if isinstance(value, list | tuple):
            ids = sorted(set(value))
            if not ids or not all(isinstance(i, str) and i for i in ids):
                raise ValueError("a family set is a list of family ids")
            if len(ids) != len(value):
                raise ValueError("a family set lists a family twice")
            return ids[0] if len(ids) == 1 else tuple(ids)
        return value

    @property
    def families(self) -> tuple[str, ...]:
        """The family ids, sorted."""
        return (self.family,) if isinstance(self.family, str) else self.family

    @property
    def label(self) -> str:
        """The families joined by '+' and the split, e.g. 'reconciliation+research/sealed'."""
        return f"{'+'.join(self.families)}/{self.split}"


class Condition(_Frozen):
    """A point in the five-axis space: model version, provider, tool interface, family, harness.

    Frozen and strict, because conditions are committed to before submissions open.
    """

    model: ModelAxis = Field(description="Model and its version label.")
    provider: str = Field(description="Model provider id, e.g. 'acme'.")
    tool_interface: dict[str, str] = Field(
        description="Served tool-interface version id per environment id."
    )
    task_family: TaskFamilyAxis = Field(description="Task family and split.")
    harness: str = Field(description="Harness (agent runtime) version id, e.g. 'harness-v1'.")

    def canonical(self) -> bytes:
        """RFC 8785 canonical JSON of this condition."""
        return rfc8785.dumps(self.model_dump(mode="json"))

    @property
    def id(self) -> str:
        """Stable public id: a prefix of the SHA-256 of the canonical JSON.

        Only for public conditions (the source, dev runs); committed targets carry keyed ids
        (``keyed_condition_id``), which cannot be recomputed from a guessed condition.
        """
        return "c-" + hashlib.sha256(self.canonical()).hexdigest()[:12]

    def axis_value(self, axis: str) -> object:
        """The value that decides whether ``axis`` changed: the model axis is its version label."""
        return self.model.version if axis == "model" else getattr(self, axis)

    def differs_on(self, other: Condition) -> list[str]:
        """Names of the axes on which this condition differs from ``other``, in ``AXES`` order.

        The model axis compares version labels and the provider axis provider ids, so moving
        from sim/acme-2 to sim/orbit-2 (both version "2") differs on ["provider"] only.
        """
        return [a for a in AXES if self.axis_value(a) != other.axis_value(a)]


def keyed_condition_id(condition: Condition, salt_hex: str) -> str:
    """The id of a committed target: a prefix of HMAC-SHA256(key=salt, canonical JSON).

    Without the salt (private until the reveal, then in the revealed leaf) the id says
    nothing about the condition, unlike ``Condition.id``, which anyone can recompute.
    """
    mac = hmac.new(bytes.fromhex(salt_hex), condition.canonical(), hashlib.sha256)
    return "c-" + mac.hexdigest()[:16]
