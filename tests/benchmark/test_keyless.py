"""Keyless OpenAI-compatible servers (llama.cpp, vLLM without --api-key): accepted with a note,
sent a placeholder key the server ignores, and served — here by the sim server, which needs no
key on its OpenAI route."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from benchmark import BenchmarkError, Usage, check_model, complete, endpoint_kwargs
from benchmark._endpoint import NO_KEY
from benchmark.sim import SimServer
from benchmark.sim._http import Request
from conditions import ModelEndpoint

VARIABLES = ("OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[SimServer, list[Request]]]:
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    with SimServer() as s:
        seen: list[Request] = []
        route = s._http.route

        def keep(request: Request) -> Any:
            seen.append(request)
            return route(request)

        s._http.route = keep
        yield s, seen


def _ask(model: str, endpoint: ModelEndpoint | None = None) -> dict[str, Any]:
    messages = [{"role": "user", "content": "Tell me a joke."}]
    return asyncio.run(complete(model, messages, [], seed=0, usage=Usage(), endpoint=endpoint))


def test_a_server_named_by_the_base_variable_is_used_without_a_key(
    server: tuple[SimServer, list[Request]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sim, seen = server
    with pytest.raises(BenchmarkError, match="OPENAI_API_KEY") as refused:
        check_model("openai/acme-2")  # the provider's own service needs a key
    assert refused.value.hint and "point OPENAI_API_BASE at a server" in refused.value.hint
    monkeypatch.setenv("OPENAI_API_BASE", sim.url)
    check_model("openai/acme-2")
    note = capsys.readouterr().err
    assert note.startswith("note: model openai/acme-2 is served at " + sim.url)
    assert "no OPENAI_API_KEY is set" in note and "without a key" in note
    assert _ask("openai/acme-2")["content"]
    assert seen[-1].headers["authorization"] == f"Bearer {NO_KEY}"


def test_a_spec_endpoint_without_a_key_variable_is_used_without_a_key(
    server: tuple[SimServer, list[Request]], capsys: pytest.CaptureFixture[str]
) -> None:
    sim, seen = server
    endpoint = ModelEndpoint(api_base=sim.url)
    check_model("openai/acme-3", endpoint)
    assert "no OPENAI_API_KEY is set" in capsys.readouterr().err
    assert endpoint_kwargs("openai/acme-3", endpoint) == {"api_base": sim.url, "api_key": NO_KEY}
    assert _ask("openai/acme-3", endpoint)["content"] and len(seen) == 1


def test_a_key_that_is_set_is_sent_instead(
    server: tuple[SimServer, list[Request]], monkeypatch: pytest.MonkeyPatch
) -> None:
    sim, seen = server
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    endpoint = ModelEndpoint(api_base=sim.url)
    assert endpoint_kwargs("openai/acme-2", endpoint) == {"api_base": sim.url}
    _ask("openai/acme-2", endpoint)
    assert seen[-1].headers["authorization"] == "Bearer sk-local"
    monkeypatch.setenv("GPU_KEY", "sk-gpu")
    named = ModelEndpoint(api_base=sim.url, api_key_env="GPU_KEY")
    assert endpoint_kwargs("openai/acme-2", named)["api_key"] == "sk-gpu"
