"""The sim server's three wire formats, reached through litellm's real adapters: trials under
``openai/…``, ``anthropic/…`` and ``gemini/…`` sim models end as they do in process, while the
requests on the wire are laid out as each provider's API defines them."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest

from benchmark import (
    ModelCallFailed,
    ModelPolicy,
    Outcome,
    TrialResult,
    Usage,
    complete,
    family,
    run_trial,
    served_interface,
    wire_format,
)
from benchmark.harness import HARNESS_V1, AgentArtifacts
from benchmark.sim import SEED_HEADER, Fault, FaultPlan, SimServer, register_sim_provider
from benchmark.sim._http import Request
from conditions import ModelEndpoint
from tests.benchmark._helpers import start_backend

register_sim_provider()
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

FAMILY = family("support_ops")
TASKS = FAMILY.tasks("sealed", 3, 3)
HARNESS = HARNESS_V1
PROVIDERS = ("openai", "anthropic", "gemini")
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


class Captured(SimServer):
    """A sim server that keeps every request it is sent."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.seen: list[Request] = []
        route = self._http.route

        def keep(request: Request) -> Any:
            self.seen.append(request)
            return route(request)

        self._http.route = keep

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.body) for r in self.seen]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Captured]:
    for name in KEYS:  # keyless: the gateway sends its placeholder key
        monkeypatch.delenv(name, raising=False)
    with Captured() as s:
        yield s


def _endpoint(server: SimServer, provider: str) -> ModelEndpoint:
    return ModelEndpoint(api_base=server.base_url(provider))


def _trial(
    tmp_path: Path, model: str, task: int, version: str, seed: int, endpoint: Any = None
) -> TrialResult:
    async def go() -> TrialResult:
        backend = await start_backend(FAMILY, tmp_path)
        try:
            return await run_trial(
                FAMILY,
                TASKS[task],
                served_interface("support-ops", version),
                backend,
                model=model,
                harness=HARNESS,
                artifacts=AgentArtifacts(),
                seed=seed,
                endpoint=endpoint,
            )
        finally:
            await backend.close()

    return asyncio.run(go())


def _calls(result: TrialResult) -> list[tuple[str, dict[str, Any]]]:
    return [
        (tc["function"]["name"], json.loads(tc["function"]["arguments"]))
        for m in result.run.messages
        for tc in m.get("tool_calls") or []
    ]


CASES = [(0, "support-ops@1", 0), (1, "support-ops@2-units", 1), (2, "support-ops@2-rename", 2)]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_trials_end_through_each_providers_adapter_as_in_process(
    tmp_path: Path, server: Captured, provider: str
) -> None:
    turns = 0
    for task, version, seed in CASES:
        local = _trial(tmp_path, "sim/acme-2", task, version, seed)
        wired = _trial(
            tmp_path, f"{provider}/acme-2", task, version, seed, _endpoint(server, provider)
        )
        assert wired.outcome == local.outcome and wired.outcome is not Outcome.INVALID
        assert _calls(wired) == _calls(local) and wired.run.turns == local.run.turns
        assert wired.run.usage.calls == local.run.usage.calls
        assert wired.run.usage.prompt_tokens > 0 and wired.run.usage.completion_tokens > 0
        turns += wired.run.turns
    assert server.stats.answered == turns == len(server.seen) >= 2 * len(CASES)
    assert {wire_format(f"{provider}/acme-2")} == {
        {
            "/v1/chat/completions": "openai-chat-completions",
            "/v1/messages": "anthropic-messages",
        }.get(r.path, "gemini-generate-content")
        for r in server.seen
    }


def _second_request(tmp_path: Path, provider: str) -> tuple[Request, dict[str, Any]]:
    """The request of a trial's second model call (after one tool call) under ``provider``."""
    with Captured() as server:
        _trial(tmp_path, f"{provider}/acme-2", 0, "support-ops@1", 3, _endpoint(server, provider))
    assert len(server.seen) >= 2
    return server.seen[1], server.bodies()[1]


def test_the_request_bodies_differ_in_each_providers_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-test")
    requests = {p: _second_request(tmp_path, p) for p in PROVIDERS}

    openai_req, openai = requests["openai"]
    assert openai_req.path == "/v1/chat/completions" and openai["seed"] == 3
    assert [m["role"] for m in openai["messages"]] == ["system", "user", "assistant", "tool"]
    call = openai["messages"][2]["tool_calls"][0]
    assert openai["messages"][3]["tool_call_id"] == call["id"]
    assert isinstance(call["function"]["arguments"], str)  # JSON text
    assert {"type", "function"} <= set(openai["tools"][0])

    anthropic_req, anthropic = requests["anthropic"]
    assert anthropic_req.path == "/v1/messages"
    assert anthropic_req.headers["x-api-key"] == "sk-ant-test"
    assert anthropic_req.headers["anthropic-version"]
    assert anthropic_req.headers[SEED_HEADER] == "3" and "seed" not in anthropic
    assert anthropic["max_tokens"] >= 1
    assert anthropic["system"][0]["text"] == openai["messages"][0]["content"]
    assert [m["role"] for m in anthropic["messages"]] == ["user", "assistant", "user"]
    use = anthropic["messages"][1]["content"][0]
    result = anthropic["messages"][2]["content"][0]
    assert use["type"] == "tool_use" and use["id"].startswith("toolu_")
    assert isinstance(use["input"], dict)  # an object, not JSON text
    assert result == {**result, "type": "tool_result", "tool_use_id": use["id"]}
    assert {"name", "input_schema"} <= set(anthropic["tools"][0]) and "function" not in anthropic[
        "tools"
    ][0]

    gemini_req, gemini = requests["gemini"]
    assert gemini_req.path == "/v1beta/models/acme-2:generateContent" and "model" not in gemini
    assert "gemini-test" in (gemini_req.headers.get("x-goog-api-key"), gemini_req.query.get("key"))
    assert gemini["generationConfig"]["seed"] == 3
    system = gemini.get("system_instruction") or gemini["systemInstruction"]
    assert system["parts"][0]["text"] == openai["messages"][0]["content"]
    assert [c["role"] for c in gemini["contents"]] == ["user", "model", "user"]
    fc = gemini["contents"][1]["parts"][0]
    fr = gemini["contents"][2]["parts"][0]
    fc = fc.get("function_call") or fc["functionCall"]
    fr = fr.get("function_response") or fr["functionResponse"]
    assert fc["name"] == fr["name"] == call["function"]["name"]
    assert isinstance(fr["response"], dict)  # a structured response, not the tool's text
    declared = (
        gemini["tools"][0].get("function_declarations")
        or gemini["tools"][0]["functionDeclarations"]
    )
    assert {d["name"] for d in declared} == {t["function"]["name"] for t in openai["tools"]}


def _post(url: str, body: Any, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **headers}
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


ANTHROPIC_HEADERS = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
USER = {"role": "user", "content": "hi"}
USE = {"type": "tool_use", "id": "toolu_1", "name": "find_customer", "input": {}}


@pytest.mark.parametrize(
    ("body", "headers", "status", "kind", "says"),
    [
        (
            {"model": "acme-2", "messages": [USER]},
            ANTHROPIC_HEADERS,
            400,
            "invalid_request_error",
            "max_tokens",
        ),
        (
            {"model": "acme-2", "max_tokens": 9, "messages": [USER, USER]},
            ANTHROPIC_HEADERS,
            400,
            "invalid_request_error",
            "alternate",
        ),
        (
            {
                "model": "acme-2",
                "max_tokens": 9,
                "messages": [{"role": "assistant", "content": "x"}],
            },
            ANTHROPIC_HEADERS,
            400,
            "invalid_request_error",
            "first message",
        ),
        (
            {"model": "acme-2", "max_tokens": 9, "messages": [{"role": "system", "content": "x"}]},
            ANTHROPIC_HEADERS,
            400,
            "invalid_request_error",
            "role",
        ),
        (
            {
                "model": "acme-2",
                "max_tokens": 9,
                "messages": [USER, {"role": "assistant", "content": [USE]}, USER],
            },
            ANTHROPIC_HEADERS,
            400,
            "invalid_request_error",
            "toolu_1",
        ),
        (
            {"model": "acme-2", "max_tokens": 9, "messages": [USER]},
            {"x-api-key": "k"},
            400,
            "invalid_request_error",
            "anthropic-version",
        ),
        (
            {"model": "acme-2", "max_tokens": 9, "messages": [USER]},
            {"anthropic-version": "2023-06-01"},
            401,
            "authentication_error",
            "x-api-key",
        ),
        (
            {"model": "gpt-9", "max_tokens": 9, "messages": [USER]},
            ANTHROPIC_HEADERS,
            404,
            "not_found_error",
            "gpt-9",
        ),
    ],
    ids=[
        "no-max-tokens",
        "two-user-turns",
        "assistant-first",
        "system-role",
        "unanswered-tool-use",
        "no-version",
        "no-key",
        "unknown-model",
    ],
)
def test_anthropic_refusals_come_in_anthropics_error_shape(
    server: Captured, body: Any, headers: dict[str, str], status: int, kind: str, says: str
) -> None:
    got, reply = _post(f"{server.root}/v1/messages", body, headers)
    assert got == status and reply["type"] == "error", reply
    assert reply["error"]["type"] == kind and says in reply["error"]["message"], reply
    assert server.stats.rejected == 1 and server.stats.answered == 0


CALL = {"role": "model", "parts": [{"functionCall": {"name": "find_customer", "args": {}}}]}


@pytest.mark.parametrize(
    ("body", "key", "status", "code", "says"),
    [
        (
            {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
            "",
            403,
            "PERMISSION_DENIED",
            "API key",
        ),
        ({"contents": []}, "?key=k", 400, "INVALID_ARGUMENT", "contents"),
        (
            {"contents": [{"role": "assistant", "parts": [{"text": "x"}]}]},
            "?key=k",
            400,
            "INVALID_ARGUMENT",
            "role",
        ),
        (
            {"contents": [{"parts": [{"text": "hi"}]}, CALL, {"parts": [{"text": "and?"}]}]},
            "?key=k",
            400,
            "INVALID_ARGUMENT",
            "function response parts (0)",
        ),
        (
            {
                "contents": [
                    {"parts": [{"text": "hi"}]},
                    CALL,
                    {"parts": [{"functionResponse": {"name": "other", "response": {}}}]},
                ]
            },
            "?key=k",
            400,
            "INVALID_ARGUMENT",
            "answers no call",
        ),
    ],
    ids=["no-key", "no-contents", "bad-role", "unanswered-call", "wrong-response"],
)
def test_gemini_refusals_come_in_googles_error_shape(
    server: Captured, body: Any, key: str, status: int, code: str, says: str
) -> None:
    got, reply = _post(f"{server.gemini_url}/models/acme-2:generateContent{key}", body, {})
    assert got == status and reply["error"]["code"] == status, reply
    assert reply["error"]["status"] == code and says in reply["error"]["message"], reply


def test_unknown_models_are_not_found_through_each_adapter(server: Captured) -> None:
    for provider in PROVIDERS:
        with pytest.raises(litellm.exceptions.NotFoundError, match="unknown sim model"):
            asyncio.run(
                litellm.acompletion(
                    model=f"{provider}/nope-1",
                    api_base=server.base_url(provider),
                    api_key="k",
                    messages=[{"role": "user", "content": "hi"}],
                    max_retries=0,
                )
            )


def _complete(server: SimServer, provider: str, attempts: int, sleeps: list[float]) -> Usage:
    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    usage = Usage()
    tools = [t.to_openai() for t in served_interface("support-ops", "support-ops@1").tools.tools]
    messages = [{"role": "user", "content": TASKS[0].instruction}]
    policy = ModelPolicy(timeout_s=5, attempts=attempts)
    asyncio.run(
        complete(
            f"{provider}/acme-2",
            messages,
            tools,
            seed=1,
            usage=usage,
            policy=policy,
            endpoint=_endpoint(server, provider),
            sleep=sleep,
        )
    )
    return usage


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [429, 503])
def test_injected_errors_in_each_format_are_retried_after_their_retry_after(
    monkeypatch: pytest.MonkeyPatch, provider: str, status: int
) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    sleeps: list[float] = []
    plan = FaultPlan(fail_first=2, status=status, retry_after_s=1.5)  # type: ignore[arg-type]
    with SimServer(faults=plan) as server:
        usage = _complete(server, provider, 3, sleeps)
    assert usage.calls == 1 and server.stats.faults[Fault.ERROR] == 2
    assert sleeps == [1.5, 1.5]  # the server's Retry-After, not the backoff


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "plan",
    [
        FaultPlan(error_rate=1.0, status=500),
        FaultPlan(malformed_rate=1.0),
        FaultPlan(drop_rate=1.0),
    ],
    ids=["error", "malformed", "drop"],
)
def test_persistent_faults_in_each_format_fail_the_call(
    monkeypatch: pytest.MonkeyPatch, provider: str, plan: FaultPlan
) -> None:
    for name in KEYS:
        monkeypatch.delenv(name, raising=False)
    sleeps: list[float] = []
    with (
        SimServer(faults=plan) as server,
        pytest.raises(ModelCallFailed, match=f"{provider}/acme-2"),
    ):
        _complete(server, provider, 3, sleeps)
    # litellm's Gemini adapter reports a reply it cannot read as a 422 (BadRequestError): a
    # client error, so the call fails at once; the other adapters' errors are transient
    tries = 1 if (provider, plan.malformed_rate) == ("gemini", 1.0) else 3
    assert server.stats.requests == tries and server.stats.answered == 0
    assert len(sleeps) == tries - 1 and all(0 <= s <= 0.5 for s in sleeps)  # jittered backoff


def test_the_providers_base_variables_point_the_adapters_at_the_server(
    server: Captured, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ANTHROPIC_API_BASE and GEMINI_API_BASE work as OPENAI_API_BASE does."""
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    for provider in PROVIDERS:
        monkeypatch.setenv(f"{provider.upper()}_API_BASE", server.base_url(provider))
    messages = [{"role": "user", "content": "Tell me a joke."}]
    for provider in PROVIDERS:
        reply = asyncio.run(complete(f"{provider}/orbit-2", messages, [], seed=0, usage=Usage()))
        assert reply["content"] and not reply.get("tool_calls")
    assert [r.path for r in server.seen] == [
        "/v1/chat/completions",
        "/v1/messages",
        "/v1beta/models/orbit-2:generateContent",
    ]
