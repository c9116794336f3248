"""The metered gateway enforces the budget to the call: calls, wall seconds and tokens, the
refused call never made; harness calls routed through it are metered the same way."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from adapt import Budget, BudgetExceeded, MeteredGateway
from benchmark import ModelCallFailed, Usage, complete
from tests.adapt._helpers import SPEC, Writer, install_writer

MESSAGES = [{"role": "user", "content": "Say something short."}]


def assert_refused_without_call(g: MeteredGateway, writer: Writer, model: str) -> None:
    made = len(writer.requests)
    with pytest.raises(BudgetExceeded):
        g.complete(model, MESSAGES)
    assert len(writer.requests) == made, "a refused call must not reach the model"


def test_the_call_over_the_call_budget_is_refused_before_it_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer = Writer("fine")
    model = install_writer(monkeypatch, writer)
    g = MeteredGateway(Budget(tokens=10_000, calls=3, seconds=600))
    for _ in range(3):
        assert g.complete(model, MESSAGES).choices[0].message.content == "fine"
    assert_refused_without_call(g, writer, model)
    cost = g.cost()
    assert (cost.calls, cost.refused, len(writer.requests)) == (3, 1, 3)
    assert cost.prompt_tokens == 300 and cost.completion_tokens == 150  # from the usage
    assert cost.stopped is not None and "call 4" in cost.stopped


def test_a_prompt_that_would_pass_the_token_budget_is_refused_before_it_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer = Writer("fine", prompt=100, completion=50)
    model = install_writer(monkeypatch, writer)
    g = MeteredGateway(Budget(tokens=200, calls=100, seconds=600))
    g.complete(model, MESSAGES)  # 150 tokens charged
    long = [{"role": "user", "content": "word " * 200}]  # counted before the call: > 50 tokens
    made = len(writer.requests)
    with pytest.raises(BudgetExceeded, match="prompt tokens would exceed"):
        g.complete(model, long)
    assert len(writer.requests) == made
    assert g.cost().tokens == 150 and g.closed


def test_a_completion_that_passes_the_token_budget_is_charged_then_the_gateway_closes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer = Writer("long answer", prompt=100, completion=500)
    model = install_writer(monkeypatch, writer)
    g = MeteredGateway(Budget(tokens=400, calls=100, seconds=600))
    g.complete(model, MESSAGES)  # admitted (short prompt); its completion passes the budget
    cost = g.cost()
    assert cost.tokens == 600 and cost.calls == 1, "the call that passed the budget is charged"
    assert g.closed and cost.stopped is not None and "over the budget" in cost.stopped
    assert_refused_without_call(g, writer, model)


def test_no_call_once_the_wall_seconds_are_spent(monkeypatch: pytest.MonkeyPatch) -> None:
    writer = Writer("fine")
    model = install_writer(monkeypatch, writer)
    now = [0.0]
    g = MeteredGateway(Budget(tokens=10_000, calls=100, seconds=30), clock=lambda: now[0])
    now[0] = 29.0
    g.complete(model, MESSAGES)
    now[0] = 30.0
    assert_refused_without_call(g, writer, model)
    assert g.cost().seconds == 30.0 and g.remaining_seconds() == 0


def test_a_zero_budget_allows_no_call(monkeypatch: pytest.MonkeyPatch) -> None:
    writer = Writer("fine")
    model = install_writer(monkeypatch, writer)
    assert_refused_without_call(MeteredGateway(Budget(tokens=0, calls=0, seconds=0)), writer, model)


def test_human_minutes_are_declared_within_the_budget() -> None:
    g = MeteredGateway(Budget(tokens=0, calls=0, seconds=0, human_minutes=30))
    g.declare_human_minutes(20)
    with pytest.raises(BudgetExceeded, match="31 declared human minutes"):
        g.declare_human_minutes(11)
    g.declare_human_minutes(10)
    assert g.finish().human_minutes == 30


def test_harness_calls_routed_through_the_gateway_are_metered_and_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The harness calls litellm itself: the routed model string brings its calls (with their
    tools and seed) to the gateway, and a refusal fails the call (the trial is invalid)."""
    writer = Writer("done")
    model = install_writer(monkeypatch, writer)
    g = MeteredGateway(Budget(tokens=10_000, calls=2, seconds=600))
    routed = g.routed(model)
    tools: list[dict[str, Any]] = [
        {"type": "function", "function": {"name": "noop", "parameters": {"type": "object"}}}
    ]
    usage = Usage()
    for _ in range(2):
        reply = asyncio.run(complete(routed, MESSAGES, tools, seed=5, usage=usage))
        assert reply["content"] == "done"
    assert g.cost().calls == 2 and usage.calls == 2
    with pytest.raises(ModelCallFailed, match="refused"):
        asyncio.run(complete(routed, MESSAGES, tools, seed=5, usage=usage))
    assert len(writer.requests) == 2 and g.cost().calls == 2 and g.cost().refused >= 1


def test_the_sim_answers_through_the_gateway_offline() -> None:
    g = MeteredGateway(Budget(tokens=10_000, calls=1, seconds=600))
    reply = g.complete("sim/acme-2", MESSAGES)
    assert isinstance(reply.choices[0].message.content, str)
    cost = g.finish()
    assert cost.calls == 1 and cost.tokens > 0 and cost.stopped == "finished"
    with pytest.raises(BudgetExceeded):
        g.complete("sim/acme-2", MESSAGES)


def test_tokens_are_counted_offline_when_the_response_reports_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writer = Writer("a reply of several words for the counter", prompt=0, completion=0)
    model = install_writer(monkeypatch, writer)
    g = MeteredGateway(Budget(tokens=10_000, calls=1, seconds=600))
    g.complete(model, MESSAGES)
    cost = g.cost()
    assert cost.prompt_tokens > 0 and cost.completion_tokens > 0


def test_the_budget_is_the_cycle_specs() -> None:
    budget = Budget.from_spec(SPEC.adaptation)
    assert (budget.tokens, budget.calls, budget.seconds, budget.human_minutes) == (
        SPEC.adaptation.budget_tokens,
        SPEC.adaptation.budget_calls,
        SPEC.adaptation.budget_seconds,
        SPEC.adaptation.human_minutes,
    )


def test_a_call_goes_to_the_models_endpoint_with_its_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmark.sim import SimServer
    from conditions import ModelEndpoint

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("VWT_TEST_ADAPT_KEY", "k")
    with SimServer() as server:
        endpoint = ModelEndpoint(api_base=server.url, api_key_env="VWT_TEST_ADAPT_KEY")
        g = MeteredGateway(
            Budget(tokens=10_000, calls=3, seconds=600), endpoints={"openai/acme-2": endpoint}
        )
        reply = g.complete("openai/acme-2", [{"role": "user", "content": "hello"}])
        assert reply.choices[0].message is not None
        assert server.stats.answered == 1 and g.cost().calls == 1
