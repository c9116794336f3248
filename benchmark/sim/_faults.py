"""Fault injection for the sim HTTP server: which requests fail, and how, decided by a seed."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator


class Fault(StrEnum):
    """What the server does to a request instead of answering it."""

    ERROR = "error"
    """An HTTP error status with an OpenAI-style error body."""
    MALFORMED = "malformed"
    """A 200 whose body is not a valid chat completion."""
    DROP = "drop"
    """The connection is closed without any response."""


class FaultPlan(BaseModel):
    """Which chat-completion requests fail and how: seeded, so a plan replays exactly.

    Request ``i`` (counted from 0) fails with ``status`` if ``i < fail_first``; otherwise one
    uniform draw from ``numpy.random.default_rng([seed, i])`` picks an error, a malformed body,
    a dropped connection or an answer, with the given rates.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = Field(default=0, ge=0, description="Seed of the per-request fault draws.")
    fail_first: int = Field(default=0, ge=0, description="The first N requests get `status`.")
    error_rate: float = Field(
        default=0.0, ge=0.0, le=1.0, description="Probability a later request gets `status`."
    )
    status: Literal[400, 401, 403, 404, 429, 500, 503] = Field(
        default=500,
        description="HTTP status of injected errors: 429, 500 and 503 are transient (the "
        "gateway retries them); 400, 401, 403 and 404 are not.",
    )
    delay_s: float = Field(
        default=0.0, ge=0.0, le=600.0, description="Seconds every request waits before its reply."
    )
    retry_after_s: float | None = Field(
        default=None,
        ge=0.0,
        le=3600.0,
        description="Retry-After (seconds) sent with injected 429 and 503 errors; None: no header.",
    )
    malformed_rate: float = Field(
        default=0.0, ge=0.0, le=1.0, description="Probability of a 200 that is not a completion."
    )
    drop_rate: float = Field(
        default=0.0, ge=0.0, le=1.0, description="Probability the connection is closed unanswered."
    )

    @model_validator(mode="after")
    def _rates_fit(self) -> FaultPlan:
        total = self.error_rate + self.malformed_rate + self.drop_rate
        if total > 1.0:
            raise ValueError(
                f"error_rate + malformed_rate + drop_rate is {total:g}; at most 1 is possible"
            )
        return self

    def fault_for(self, index: int) -> Fault | None:
        """The fault injected into request ``index`` (None: answer it)."""
        if index < self.fail_first:
            return Fault.ERROR
        u = float(np.random.default_rng([self.seed, index]).random())
        for fault, rate in (
            (Fault.ERROR, self.error_rate),
            (Fault.MALFORMED, self.malformed_rate),
            (Fault.DROP, self.drop_rate),
        ):
            if u < rate:
                return fault
            u -= rate
        return None


class ServerStats(BaseModel):
    """What a sim server has served so far."""

    model_config = ConfigDict(extra="forbid")

    requests: int = Field(default=0, description="Chat-completion requests received.")
    answered: int = Field(default=0, description="Requests answered with a valid completion.")
    rejected: int = Field(
        default=0, description="Requests refused as invalid (bad JSON, unknown model: 4xx)."
    )
    peak_in_flight: int = Field(
        default=0, description="Most chat-completion requests being served at one time."
    )
    faults: dict[Fault, int] = Field(
        default_factory=lambda: dict.fromkeys(Fault, 0), description="Injected faults by kind."
    )
