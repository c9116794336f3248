"""What a model's tokens cost: litellm's price table, read and never written.

A price is litellm's list price for the model string, from the table litellm ships
(``LITELLM_LOCAL_MODEL_COST_MAP``: vwt never fetches the online one). The table is only read:
registering a model's price changes what litellm does with that model's requests (commit
c243ac7 saw the sim's outcomes move), so a model litellm cannot price has no price here
(``None``), never a made-up one. The sim's in-process models (``sim/…``) cost nothing, and
their price is known without importing litellm.
"""

from __future__ import annotations

import functools
import math
from importlib.metadata import PackageNotFoundError, version

from pydantic import BaseModel, ConfigDict, Field

from benchmark._models import Usage
from benchmark.sim import PROVIDER as SIM_PROVIDER


class ModelPrice(BaseModel):
    """US dollars per token of one model, and where the figure comes from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(description="The litellm model string priced.")
    input_per_token: float = Field(ge=0, description="US dollars per prompt token.")
    output_per_token: float = Field(ge=0, description="US dollars per completion token.")
    source: str = Field(description="Where the price comes from, e.g. 'litellm 1.110.2'.")

    def cost(self, prompt_tokens: float, completion_tokens: float) -> float:
        """US dollars for that many prompt and completion tokens."""
        return prompt_tokens * self.input_per_token + completion_tokens * self.output_per_token


def _litellm_source() -> str:
    try:
        return f"litellm {version('litellm')}"
    except PackageNotFoundError:  # pragma: no cover - litellm is a dependency
        return "litellm"


@functools.lru_cache(maxsize=256)
def model_price(model: str) -> ModelPrice | None:
    """The price of ``model`` (a litellm model string), or None where litellm has none.

    ``sim/…`` is free. Otherwise the entry of litellm's table named by the whole string
    (``gemini/gemini-2.5-flash``), or by the name after the provider prefix when the entry is
    that provider's (``openai/gpt-4o-mini`` → ``gpt-4o-mini``, provider openai), with both a
    prompt and a completion price. Self-hosted models (``hosted_vllm/…``, ``ollama/…``) and
    names litellm does not list have none. Imports litellm, except for sim models.
    """
    provider, _, name = model.partition("/")
    if provider == SIM_PROVIDER:
        return ModelPrice(model=model, input_per_token=0.0, output_per_token=0.0, source="sim")
    from benchmark._models import load_litellm

    table = load_litellm().model_cost
    for key, owner in ((model, None), (name, provider)):
        entry = table.get(key) if key else None
        if not isinstance(entry, dict):
            continue
        if owner is not None and entry.get("litellm_provider") != owner:
            continue
        prices = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
        if all(isinstance(p, int | float) and math.isfinite(p) and p >= 0 for p in prices):
            return ModelPrice(
                model=model,
                input_per_token=float(prices[0]),  # type: ignore[arg-type]
                output_per_token=float(prices[1]),  # type: ignore[arg-type]
                source=_litellm_source(),
            )
    return None


def usage_cost(model: str, usage: Usage) -> float | None:
    """What ``usage`` of ``model`` cost in US dollars at its price; None without a price."""
    price = model_price(model)
    return None if price is None else price.cost(usage.prompt_tokens, usage.completion_tokens)
