"""Each trial record carries its cost: usage × litellm's price for the model string, 0 for the
sim's in-process models, None where litellm has no price."""

from __future__ import annotations

from typing import Any

import pytest

import benchmark._prices
from benchmark import ModelPrice, default_cycle_spec_path
from benchmark.sim import SimServer
from conditions import CycleSpec
from runner import EXECUTOR_ENV, TrialStore, execute, plan_phase
from runner._dev import dev_condition


def _run(spec: CycleSpec, model: str | None, tmp_path: Any) -> list[Any]:
    endpoint = spec.endpoints.get(model) if model else None
    condition = dev_condition(spec.source, model, endpoint) if model else spec.source
    batches = plan_phase(
        cycle=spec.cycle,
        cycle_seed=spec.seed,
        phase="dev",
        conditions=[(condition.id, condition)],
        bundles=[],
        tasks_per_split=2,
        k=1,
        interfaces=spec.interfaces,
        endpoints=spec.endpoints,
    )
    store = TrialStore(tmp_path / f"{len(list(tmp_path.iterdir()))}.sqlite")
    execute(store, batches, sandbox="local")
    records = store.records()
    assert len(records) == 2 and all(r.outcome != "invalid" for r in records)
    return records


def _served_spec(url: str) -> CycleSpec:
    data: dict[str, Any] = CycleSpec.load(default_cycle_spec_path()).model_dump(mode="json")
    data["catalogue"]["models"].append(
        {"model": "openai/acme-2", "version": "2", "provider": "acme"}
    )
    data["endpoints"] = {"openai/acme-2": {"api_base": url}}
    return CycleSpec.model_validate(data)


def test_records_carry_their_cost_where_the_model_is_priced(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(EXECUTOR_ENV, "local")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = CycleSpec.load(default_cycle_spec_path())
    assert [r.cost_usd for r in _run(spec, None, tmp_path)] == [0.0, 0.0]
    with SimServer() as server:
        served = _served_spec(server.base_url("openai"))
        # litellm lists no "acme-2": the records say the cost is unknown.
        unpriced = _run(served, "openai/acme-2", tmp_path)
        assert [r.cost_usd for r in unpriced] == [None, None]
        # With a price for it (the lookup answers, litellm's table is not touched) the same
        # trials cost their tokens at that price.
        price = ModelPrice(
            model="openai/acme-2", input_per_token=2e-6, output_per_token=8e-6, source="test"
        )
        real = benchmark._prices.model_price
        monkeypatch.setattr(
            benchmark._prices, "model_price", lambda m: price if m == "openai/acme-2" else real(m)
        )
        priced = _run(served, "openai/acme-2", tmp_path)
    for r in priced:
        assert r.usage.prompt_tokens > 0
        expected = r.usage.prompt_tokens * 2e-6 + r.usage.completion_tokens * 8e-6
        assert r.cost_usd == pytest.approx(expected)
