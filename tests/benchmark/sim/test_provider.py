"""The sim provider through litellm: behaviour from the request alone, seeded."""

import asyncio
import json
from typing import Any

import litellm
import pytest

from benchmark import family, served_interface
from benchmark._seeds import request_seed
from benchmark.sim import register_sim_provider, sim_model
from benchmark.sim._profile import draw_profile

register_sim_provider()

TASK = family("support_ops").tasks("sealed", 4, 3)[0]  # duplicate charge: amount in the text
CENTS = TASK.reference_calls[0].arguments["amount_cents"]


def _ask(model: str, version: str, seed: int) -> dict[str, Any]:
    tools = [t.to_openai() for t in served_interface("support-ops", version).tools.tools]
    messages = [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": TASK.instruction},
    ]
    response = asyncio.run(
        litellm.acompletion(model=model, messages=messages, tools=tools, seed=seed)
    )
    call = response.choices[0].message.tool_calls[0]
    assert response.usage.total_tokens > 0
    return {"name": call.function.name, **json.loads(call.function.arguments)}


def test_same_request_same_answer() -> None:
    assert _ask("sim/acme-2", "support-ops@1", 5) == _ask("sim/acme-2", "support-ops@1", 5)


def test_field_names_follow_the_schema_only_when_the_model_rereads_it() -> None:
    spec = sim_model("acme-2")
    seen = set()
    for seed in range(40):
        seed = request_seed(seed, "baseline")
        profile = draw_profile(spec, seed, TASK.instruction)
        if not profile.understands:  # "I do not know how to help": no call to look at
            continue
        call = _ask("sim/acme-2", "support-ops@2-rename", seed)
        expected = "order_number" if profile.reads_schema else "order_id"
        assert expected in call, (seed, call)
        seen.add(expected)
    assert seen == {"order_number", "order_id"}


def test_units_are_read_from_descriptions_with_some_probability() -> None:
    spec = sim_model("acme-2")
    amounts = set()
    for seed in range(60):
        seed = request_seed(seed, "baseline")
        profile = draw_profile(spec, seed, TASK.instruction)
        if not (profile.understands and profile.reads_schema and profile.reads_numbers):
            continue
        call = _ask("sim/acme-2", "support-ops@2-units", seed)
        if not (profile.reads_schema and profile.reads_numbers):
            continue
        want = CENTS / 100 if profile.reads_conventions else CENTS
        assert call["amount"] == pytest.approx(want)
        amounts.add(profile.reads_conventions)
    assert amounts == {True, False}


def test_unknown_sim_model_is_an_error() -> None:
    with pytest.raises(Exception, match="unknown sim model"):
        _ask("sim/nope-9", "support-ops@1", 0)
