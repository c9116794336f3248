"""What trials will cost before they run: model calls and tokens per trial, and their dollars.

A trial's model calls and tokens are estimated from trials that ran before (a pilot: a dev run
or a cycle's store): the same model and family's trials, else the family's trials of any model,
else the sim's figures for the family (``SIM_TRIAL_USAGE``, measured on a demo home). The
dollars come from litellm's price for each model (``benchmark.model_price``); a model litellm
cannot price leaves the estimate's dollars unknown (None), never made up.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from benchmark import model_price
from runner._records import TrialRecord


class TrialUsage(BaseModel):
    """Mean model usage of one trial of a model on a family, and what it rests on."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    calls: float = Field(ge=0, description="Model calls per trial.")
    prompt_tokens: float = Field(ge=0, description="Prompt tokens per trial.")
    completion_tokens: float = Field(ge=0, description="Completion tokens per trial.")
    trials: int = Field(ge=0, description="Trials measured (0: a default).")
    source: str = Field(description="Where the figures come from.")


SIM_SOURCE = "the sim's default"
SIM_TRIAL_USAGE: dict[str, TrialUsage] = {
    family: TrialUsage(
        calls=calls,
        prompt_tokens=prompt,
        completion_tokens=completion,
        trials=0,
        source=f"{SIM_SOURCE} for {family}",
    )
    for family, calls, prompt, completion in (
        ("support_ops", 3.73, 6857.0, 70.0),
        ("reconciliation", 2.44, 4318.0, 40.0),
        ("research_evidence", 4.93, 7584.0, 90.0),
    )
}
"""Per built-in family: mean calls and tokens per trial attempt of a default demo home (every
model, arm and phase; 9,576 attempts, docs/planning.md)."""
_SIM = tuple(SIM_TRIAL_USAGE.values())
SIM_FALLBACK = TrialUsage(
    calls=sum(u.calls for u in _SIM) / len(_SIM),
    prompt_tokens=sum(u.prompt_tokens for u in _SIM) / len(_SIM),
    completion_tokens=sum(u.completion_tokens for u in _SIM) / len(_SIM),
    trials=0,
    source=f"{SIM_SOURCE}: the mean of its built-in families",
)
"""For a family the sim's figures do not cover (a plugin or folder family, code maintenance)."""


def measured_usage(records: Iterable[TrialRecord]) -> dict[tuple[str, str], TrialUsage]:
    """Mean usage per trial attempt by (model, family) over ``records``, and by ("", family)
    over every model (invalid attempts included: their calls were made too)."""
    sums: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for r in records:
        for key in ((r.model, r.family), ("", r.family)):
            s = sums[key]
            s[0] += 1
            s[1] += r.usage.calls
            s[2] += r.usage.prompt_tokens
            s[3] += r.usage.completion_tokens
    return {
        key: TrialUsage(
            calls=c / n,
            prompt_tokens=p / n,
            completion_tokens=o / n,
            trials=int(n),
            source=f"{int(n)} measured trials of {key[0] or 'every model'} on {key[1]}",
        )
        for key, (n, c, p, o) in sums.items()
    }


def trial_usage(
    model: str, family: str, measured: Mapping[tuple[str, str], TrialUsage]
) -> TrialUsage:
    """The usage to expect of one trial: measured for this model and family, else for the
    family, else the sim's default for the family."""
    for key in ((model, family), ("", family)):
        found = measured.get(key)
        if found is not None:
            return found
    return SIM_TRIAL_USAGE.get(family, SIM_FALLBACK)


class CostEstimate(BaseModel):
    """Trials, model calls, tokens and dollars a set of trials is expected to take."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    trials: int = Field(ge=0, description="Trials.")
    calls: float = Field(ge=0, description="Expected model calls.")
    prompt_tokens: float = Field(ge=0, description="Expected prompt tokens.")
    completion_tokens: float = Field(ge=0, description="Expected completion tokens.")
    usd: float | None = Field(
        description="Expected US dollars at litellm's prices; None when a model has no price."
    )
    unpriced: tuple[str, ...] = Field(description="Models litellm has no price for.")
    sources: tuple[str, ...] = Field(description="Where the usage figures come from.")


def estimate_cost(
    counts: Mapping[tuple[str, str], int], measured: Mapping[tuple[str, str], TrialUsage]
) -> CostEstimate:
    """The cost of ``counts`` trials per (model, family), each at ``trial_usage``."""
    calls = prompt = completion = 0.0
    dollars: list[float] = []
    unpriced: set[str] = set()
    sources: set[str] = set()
    for (model, family), n in sorted(counts.items()):
        u = trial_usage(model, family, measured)
        sources.add(u.source)
        calls += n * u.calls
        prompt += n * u.prompt_tokens
        completion += n * u.completion_tokens
        price = model_price(model)
        if price is None:
            unpriced.add(model)
        else:
            dollars.append(n * price.cost(u.prompt_tokens, u.completion_tokens))
    return CostEstimate(
        trials=sum(counts.values()),
        calls=calls,
        prompt_tokens=prompt,
        completion_tokens=completion,
        usd=None if unpriced else math.fsum(dollars),
        unpriced=tuple(sorted(unpriced)),
        sources=tuple(sorted(sources)),
    )


def usd_text(x: float | None) -> str:
    """Dollars as the CLI shows them: 4 decimals below $1, else 2; "unknown" for None."""
    if x is None:
        return "unknown"
    return f"${x:,.4f}" if x < 1 else f"${x:,.2f}"
