"""The interval record every cell field uses, and the slack of every threshold gate."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

TOLERANCE = 1e-9
"""Slack of every threshold gate: a value must clear a threshold by more than this, so a bound
of 2e-18 is not above 0."""


class Interval(BaseModel):
    """A two-sided interval."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    lo: float = Field(description="Lower bound.")
    hi: float = Field(description="Upper bound.")
