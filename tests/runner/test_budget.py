"""Prices from litellm's table (read, never written) and trial usage estimated from a pilot,
else from the sim's per-family defaults."""

from __future__ import annotations

import copy

import pytest

from benchmark import Usage, load_litellm, model_price, usage_cost
from runner import SIM_TRIAL_USAGE, estimate_cost, measured_usage, trial_usage
from tests.runner.test_store import make_record


def test_a_priced_model_costs_what_litellms_own_cost_function_says() -> None:
    litellm = load_litellm()
    before = copy.deepcopy(litellm.model_cost.get("gpt-4o-mini"))
    price = model_price("openai/gpt-4o-mini")
    assert price is not None and price.input_per_token > 0 and price.output_per_token > 0
    prompt, completion = litellm.cost_per_token(
        model="gpt-4o-mini", prompt_tokens=12_000, completion_tokens=345
    )
    usage = Usage(calls=3, prompt_tokens=12_000, completion_tokens=345, latency_s=1.0)
    assert usage_cost("openai/gpt-4o-mini", usage) == pytest.approx(prompt + completion)
    # Reading the price registers nothing.
    assert litellm.model_cost.get("gpt-4o-mini") == before
    assert "openai/gpt-4o-mini" not in litellm.model_cost


@pytest.mark.parametrize("model", ["hosted_vllm/qwen-7b", "openai/no-such-model-xyz"])
def test_a_model_litellm_does_not_list_has_no_price(model: str) -> None:
    assert model_price(model) is None
    estimate = estimate_cost({(model, "support_ops"): 10, ("sim/acme-2", "support_ops"): 5}, {})
    assert estimate.usd is None and estimate.unpriced == (model,)
    assert estimate.trials == 15


def test_sim_models_are_free_and_estimates_scale_with_the_trials() -> None:
    assert (
        model_price("sim/acme-2") is not None
        and usage_cost(
            "sim/acme-2", Usage(calls=1, prompt_tokens=10**6, completion_tokens=10**5, latency_s=1)
        )
        == 0.0
    )
    one = estimate_cost({("sim/acme-2", "reconciliation"): 1}, {})
    many = estimate_cost({("sim/acme-2", "reconciliation"): 40}, {})
    assert one.usd == 0.0 and one.calls == SIM_TRIAL_USAGE["reconciliation"].calls
    assert many.calls == pytest.approx(40 * one.calls)
    assert many.prompt_tokens == pytest.approx(40 * one.prompt_tokens)


def test_priced_estimates_follow_the_measured_tokens() -> None:
    price = model_price("openai/gpt-4o-mini")
    assert price is not None
    records = [
        make_record(
            model="openai/gpt-4o-mini",
            trial=j,
            usage=Usage(calls=4, prompt_tokens=1000 * (j + 1), completion_tokens=50, latency_s=1),
        )
        for j in range(2)
    ]
    measured = measured_usage(records)
    estimate = estimate_cost({("openai/gpt-4o-mini", "support_ops"): 10}, measured)
    assert estimate.calls == pytest.approx(40.0)
    assert estimate.usd == pytest.approx(10 * price.cost(1500, 50))


def test_usage_falls_back_from_the_model_to_the_family_to_the_sims_default() -> None:
    records = [
        make_record(
            model="sim/acme-3",
            usage=Usage(calls=9, prompt_tokens=900, completion_tokens=9, latency_s=1),
        )
    ]
    measured = measured_usage(records)
    assert trial_usage("sim/acme-3", "support_ops", measured).calls == 9
    family_wide = trial_usage("sim/orbit-2", "support_ops", measured)
    assert family_wide.calls == 9 and "every model" in family_wide.source
    assert (
        trial_usage("sim/acme-3", "reconciliation", measured) == SIM_TRIAL_USAGE["reconciliation"]
    )
    other = trial_usage("sim/acme-3", "some_plugin_family", measured)
    assert other.trials == 0 and "mean of its built-in families" in other.source
