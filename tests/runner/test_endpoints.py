"""Per-model endpoints: two OpenAI-compatible servers (the sim models over loopback HTTP) serve
one run, each model's requests going to its own server with its own key variable."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from benchmark import BenchmarkError, check_model, default_cycle_spec_path
from benchmark.sim import SimServer
from conditions import CycleSpec
from runner import EXECUTOR_ENV, TrialStore, execute, plan_phase
from runner._dev import dev_condition

MODELS = {"openai/acme-2": "2", "openai/acme-3": "3"}
KEYS = {"openai/acme-2": "VWT_TEST_GPU1_KEY", "openai/acme-3": "VWT_TEST_GPU2_KEY"}


def _spec(urls: dict[str, str]) -> CycleSpec:
    """The embedded default with its models served by OpenAI-compatible servers at ``urls``."""
    data: dict[str, Any] = CycleSpec.load(default_cycle_spec_path()).model_dump(mode="json")
    data["catalogue"]["models"] = [
        {"model": m, "version": v, "provider": "acme"} for m, v in MODELS.items()
    ]
    data["source"]["model"] = {"model": "openai/acme-2", "version": "2"}
    data["source"]["provider"] = "acme"
    data["endpoints"] = {m: {"api_base": urls[m], "api_key_env": KEYS[m]} for m in MODELS}
    return CycleSpec.model_validate(data)


@pytest.fixture()
def servers() -> Iterator[dict[str, SimServer]]:
    with SimServer() as one, SimServer() as two:
        yield {"openai/acme-2": one, "openai/acme-3": two}


def test_two_servers_serve_one_run_each_model_its_own(
    servers: dict[str, SimServer], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(EXECUTOR_ENV, "local")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for model, name in KEYS.items():
        monkeypatch.setenv(name, f"key-of-{model}")
    spec = _spec({m: s.url for m, s in servers.items()})
    acme3 = dev_condition(spec.source, "openai/acme-3", spec.endpoints["openai/acme-3"])
    conditions = [(c.id, c) for c in (dev_condition(spec.source), acme3)]
    batches = plan_phase(
        cycle=spec.cycle,
        cycle_seed=spec.seed,
        phase="dev",
        conditions=conditions,
        bundles=[],
        tasks_per_split=2,
        k=1,
        interfaces=spec.interfaces,
        endpoints=spec.endpoints,
    )
    assert {b.endpoint.api_base for b in batches if b.endpoint} == {s.url for s in servers.values()}
    store = TrialStore(tmp_path / "t.sqlite")
    result = execute(store, batches, sandbox="local")
    records = store.records()
    assert result.ran == len(records) == 4 and all(r.outcome != "invalid" for r in records)
    for model, server in servers.items():
        calls = sum(r.turns for r in records if r.model == model)
        assert calls > 0 and server.stats.answered == calls, model


def test_a_missing_key_variable_stops_the_run_before_any_trial(
    servers: dict[str, SimServer], tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEYS["openai/acme-3"], "set")
    spec = _spec({m: s.url for m, s in servers.items()})
    condition = dev_condition(spec.source, "openai/acme-3", spec.endpoints["openai/acme-3"])
    monkeypatch.delenv(KEYS["openai/acme-3"])  # gone by the time the run starts
    batches = plan_phase(
        cycle=spec.cycle,
        cycle_seed=spec.seed,
        phase="dev",
        conditions=[(condition.id, condition)],
        bundles=[],
        tasks_per_split=1,
        k=1,
        endpoints=spec.endpoints,
    )
    store = TrialStore(tmp_path / "t.sqlite")
    with pytest.raises(BenchmarkError, match=f"\\${KEYS['openai/acme-3']}, which is not set"):
        execute(store, batches, sandbox="local")
    assert store.records() == [] and servers["openai/acme-3"].stats.answered == 0


def test_an_endpoint_key_variable_stands_for_the_providers_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = _spec({m: "http://127.0.0.1:9/v1" for m in MODELS})
    endpoint = spec.endpoints["openai/acme-3"]
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(BenchmarkError, match="OPENAI_API_KEY"):
        check_model("openai/acme-3")
    monkeypatch.setenv(KEYS["openai/acme-3"], "k")
    check_model("openai/acme-3", endpoint)
    monkeypatch.delenv(KEYS["openai/acme-3"])
    with pytest.raises(BenchmarkError, match=KEYS["openai/acme-3"]):
        check_model("openai/acme-3", endpoint)


def test_endpoints_must_name_catalogue_models() -> None:
    data = _spec({m: "http://127.0.0.1:9/v1" for m in MODELS}).model_dump(mode="json")
    data["endpoints"]["openai/other"] = {"api_base": "http://127.0.0.1:9/v1"}
    with pytest.raises(ValueError, match="endpoints names \\['openai/other'\\]"):
        CycleSpec.model_validate(data)
    data["endpoints"] = {"openai/acme-2": {"api_base": "file:///etc/passwd"}}
    with pytest.raises(ValueError, match="api_base"):
        CycleSpec.model_validate(data)


def test_models_behind_other_providers_apis_run_and_their_records_name_the_wire(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``anthropic/…`` and ``gemini/…`` sim models through litellm's real adapters, each at
    its endpoint on one sim server, keyless; each record names the API its requests used."""
    monkeypatch.setenv(EXECUTOR_ENV, "local")
    for name in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    wires = {"anthropic/acme-2": "anthropic-messages", "gemini/acme-3": "gemini-generate-content"}
    with SimServer() as server:
        data: dict[str, Any] = CycleSpec.load(default_cycle_spec_path()).model_dump(mode="json")
        data["catalogue"]["models"] += [
            {"model": m, "version": m[-1], "provider": "acme"} for m in wires
        ]
        data["endpoints"] = {m: {"api_base": server.base_url(m.split("/")[0])} for m in wires}
        spec = CycleSpec.model_validate(data)
        conditions = [dev_condition(spec.source, m, spec.endpoints[m]) for m in wires]
        batches = plan_phase(
            cycle=spec.cycle,
            cycle_seed=spec.seed,
            phase="dev",
            conditions=[(c.id, c) for c in conditions],
            bundles=[],
            tasks_per_split=2,
            k=1,
            interfaces=spec.interfaces,
            endpoints=spec.endpoints,
        )
        store = TrialStore(tmp_path / "t.sqlite")
        execute(store, batches, sandbox="local")
        answered = server.stats.answered
    records = store.records()
    assert len(records) == 4 and all(r.outcome != "invalid" for r in records)
    assert {r.model: r.wire for r in records} == wires
    assert answered == sum(r.turns for r in records) > 0
