"""The sim models over loopback HTTP: same answers as in-process, faults survived as 'invalid'."""

from __future__ import annotations

import asyncio
import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import litellm
import pytest
from pydantic import ValidationError

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
)
from benchmark.harness import AgentArtifacts, LoopHarness, harness_version
from benchmark.sim import SIM_MODELS, Fault, FaultPlan, SimServer, register_sim_provider
from benchmark.sim._http import MAX_BODY
from tests.benchmark._helpers import start_backend

register_sim_provider()
# litellm warns while it turns an injected malformed body into an error; the error is the point
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

FAMILY = family("support_ops")
TASKS = FAMILY.tasks("sealed", 4, 3)
HARNESS = harness_version("harness-v1")
LOOP = LoopHarness(HARNESS)
CLIENT_TIMEOUT_S = 5.0
"""litellm's per-request timeout in these tests (its default is 600 s)."""


def _tools(version: str) -> list[dict[str, Any]]:
    return [t.to_openai() for t in served_interface("support-ops", version).tools.tools]


def _messages(instruction: str) -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": instruction},
    ]


@pytest.fixture
def route(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """Point the gateway's ``openai/…`` models at a server, as a user would: by environment.

    The gateway itself turns the openai client's own retries off (its retry policy is the
    only one) and passes a timeout.
    """

    def point(server: SimServer) -> None:
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)  # it would win over OPENAI_API_BASE
        monkeypatch.setenv("OPENAI_API_BASE", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sim")

    return point


@pytest.fixture
def server() -> Iterator[SimServer]:
    """A fault-free sim server."""
    with SimServer() as s:
        yield s


def _request(url: str, body: bytes | None = None) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _call(response: Any) -> tuple[str, dict[str, Any]]:
    tc = response.choices[0].message.tool_calls[0]
    return tc.function.name, json.loads(tc.function.arguments)


def test_http_answers_equal_in_process_answers(server: SimServer) -> None:
    async def both(version: str, seed: int, instruction: str) -> tuple[Any, Any]:
        messages, tools = _messages(instruction), _tools(version)
        over_http = await litellm.acompletion(
            model="openai/acme-2",
            api_base=server.url,
            api_key="sim",
            messages=messages,
            tools=tools,
            seed=seed,
            max_retries=0,
            timeout=CLIENT_TIMEOUT_S,
        )
        local = await litellm.acompletion(
            model="sim/acme-2", messages=messages, tools=tools, seed=seed
        )
        return over_http, local

    names = set()
    for version in ("support-ops@1", "support-ops@2-rename", "support-ops@2-units"):
        for seed in range(4):
            http, local = asyncio.run(both(version, seed, TASKS[seed % len(TASKS)].instruction))
            assert _call(http) == _call(local), (version, seed)
            assert http.choices[0].finish_reason == "tool_calls"
            assert http.usage.prompt_tokens == local.usage.prompt_tokens
            assert http.usage.completion_tokens == local.usage.completion_tokens
            names.add(_call(http)[0])
    assert len(names) > 1  # the comparison covered different tools, not one answer repeated
    assert server.stats.answered == 12 and server.stats.requests == 12


def test_a_final_answer_is_content_without_tool_calls(server: SimServer) -> None:
    status, body = _request(
        f"{server.url}/chat/completions",
        json.dumps({"model": "sim/orbit-2", "messages": _messages("Tell me a joke.")}).encode(),
    )
    choice = body["choices"][0]
    assert status == 200 and body["object"] == "chat.completion" and body["model"] == "orbit-2"
    assert choice["finish_reason"] == "stop" and "tool_calls" not in choice["message"]
    assert choice["message"]["content"] and body["usage"]["total_tokens"] > 0


def test_models_endpoint_lists_the_catalogue(server: SimServer) -> None:
    status, body = _request(f"{server.url}/models")
    assert status == 200 and body["object"] == "list"
    assert {m["id"]: m["owned_by"] for m in body["data"]} == {
        name: spec.provider for name, spec in SIM_MODELS.items()
    }


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        (b"{not json", 400, "not valid JSON"),
        (b"[1, 2]", 400, "not a chat-completions request"),
        (json.dumps({"model": "acme-2", "messages": []}).encode(), 400, "messages"),
        (
            json.dumps({"model": "acme-2", "messages": [{"role": "user"}], "tools": [{}]}).encode(),
            400,
            "tools",
        ),
        (json.dumps({"model": "gpt-9", "messages": [{"role": "user"}]}).encode(), 404, "gpt-9"),
    ],
    ids=["bad-json", "not-an-object", "no-messages", "tool-without-function", "unknown-model"],
)
def test_bad_requests_get_openai_style_errors(
    server: SimServer, body: bytes, status: int, says: str
) -> None:
    got, reply = _request(f"{server.url}/chat/completions", body)
    assert got == status and says in reply["error"]["message"], reply
    assert reply["error"]["type"] == "invalid_request_error"
    assert server.stats.rejected == 1 and server.stats.answered == 0
    # the server still answers afterwards
    ok, _ = _request(
        f"{server.url}/chat/completions",
        json.dumps({"model": "acme-2", "messages": [{"role": "user", "content": "hi"}]}).encode(),
    )
    assert ok == 200


def test_unknown_model_has_the_openai_not_found_code(server: SimServer) -> None:
    with pytest.raises(litellm.exceptions.NotFoundError, match="unknown sim model"):
        asyncio.run(
            litellm.acompletion(
                model="openai/nope-1",
                api_base=server.url,
                api_key="sim",
                messages=[{"role": "user", "content": "hi"}],
                max_retries=0,
            )
        )


def test_unknown_paths_and_oversized_bodies_are_refused(server: SimServer) -> None:
    status, reply = _request(f"{server.url}/embeddings", b"{}")
    assert status == 404 and "no route" in reply["error"]["message"]
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.putrequest("POST", "/v1/chat/completions")
    conn.putheader("Content-Length", str(MAX_BODY + 1))
    conn.endheaders()  # the body is never sent: the server must not wait for it
    response = conn.getresponse()
    assert response.status == 413 and b"at most" in response.read()
    conn.close()
    assert server.stats.requests == 0


def test_a_request_the_policy_cannot_read_is_a_400_not_a_crash(
    server: SimServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable(*args: Any) -> Any:
        raise KeyError("function")

    monkeypatch.setattr("benchmark.sim._server.answer", unreadable)
    body = json.dumps({"model": "acme-2", "messages": [{"role": "user", "content": "x"}]})
    status, reply = _request(f"{server.url}/chat/completions", body.encode())
    assert status == 400 and "cannot read this request: KeyError" in reply["error"]["message"]


def test_the_fault_plan_is_seeded_per_request_index() -> None:
    plan = FaultPlan(seed=3, fail_first=5, error_rate=0.3, malformed_rate=0.2, drop_rate=0.1)
    faults = [plan.fault_for(i) for i in range(4000)]
    assert faults == [FaultPlan.model_validate(plan.model_dump()).fault_for(i) for i in range(4000)]
    assert faults[:5] == [Fault.ERROR] * 5
    for kind, rate in ((Fault.ERROR, 0.3), (Fault.MALFORMED, 0.2), (Fault.DROP, 0.1), (None, 0.4)):
        assert faults[5:].count(kind) / len(faults[5:]) == pytest.approx(rate, abs=0.03)
    other = FaultPlan(seed=4, error_rate=0.3, malformed_rate=0.2, drop_rate=0.1)
    assert [other.fault_for(i) for i in range(5, 4000)] != faults[5:]
    assert all(FaultPlan().fault_for(i) is None for i in range(100))


def test_fault_rates_must_fit_in_one() -> None:
    with pytest.raises(ValidationError, match="at most 1"):
        FaultPlan(error_rate=0.6, drop_rate=0.5)
    with pytest.raises(ValidationError):
        FaultPlan.model_validate({"status": 418})


def _complete(retries: int, timeout: float = CLIENT_TIMEOUT_S) -> tuple[dict[str, Any], Usage]:
    usage = Usage()
    messages, tools = _messages(TASKS[0].instruction), _tools("support-ops@1")
    policy = ModelPolicy(timeout_s=timeout, attempts=retries + 1, backoff_s=0.01)
    reply = asyncio.run(
        complete("openai/acme-2", messages, tools, seed=1, usage=usage, policy=policy)
    )
    return reply, usage


@pytest.mark.parametrize("status", [429, 500, 503])
def test_the_gateway_retries_through_transient_errors(
    route: Callable[..., None], status: Any
) -> None:
    with SimServer(faults=FaultPlan(fail_first=2, status=status)) as server:
        route(server)
        reply, usage = _complete(retries=2)
    assert reply["tool_calls"] and usage.calls == 1
    assert server.stats.requests == 3 and server.stats.faults[Fault.ERROR] == 2
    assert server.stats.answered == 1


@pytest.mark.parametrize(
    "plan",
    [
        FaultPlan(error_rate=1.0),
        FaultPlan(malformed_rate=1.0),
        FaultPlan(drop_rate=1.0),
    ],
    ids=["error", "malformed", "drop"],
)
def test_persistent_faults_become_model_call_failed(
    route: Callable[..., None], plan: FaultPlan
) -> None:
    with SimServer(faults=plan) as server:
        route(server)
        with pytest.raises(ModelCallFailed, match="openai/acme-2"):
            _complete(retries=2)
    assert server.stats.requests == 3 and server.stats.answered == 0
    assert sum(server.stats.faults.values()) == 3


def test_a_slow_server_times_out_and_fails_the_call(route: Callable[..., None]) -> None:
    with SimServer(faults=FaultPlan(delay_s=2.0)) as server:
        route(server)
        with pytest.raises(ModelCallFailed, match="Timeout"):
            _complete(retries=1, timeout=0.3)
    assert server.stats.requests == 2


def test_the_gateway_is_the_only_one_retrying(route: Callable[..., None]) -> None:
    """The openai client's own retries are off: one gateway attempt is one request."""
    with SimServer(faults=FaultPlan(fail_first=2)) as server:
        route(server)
        with pytest.raises(ModelCallFailed):
            _complete(retries=0)
        assert server.stats.requests == 1
        reply, usage = _complete(retries=1)  # requests 1 (fails) and 2 (answered)
        assert reply["tool_calls"] and usage.calls == 1 and server.stats.requests == 3


def _trial(tmp_path: Path, model: str, task_index: int, version: str, seed: int) -> TrialResult:
    async def go() -> TrialResult:
        backend = await start_backend(FAMILY, tmp_path)
        try:
            return await run_trial(
                FAMILY,
                TASKS[task_index],
                served_interface("support-ops", version),
                backend,
                model=model,
                harness=LOOP,
                artifacts=AgentArtifacts(),
                seed=seed,
            )
        finally:
            await backend.close()

    return asyncio.run(go())


def _calls(result: TrialResult) -> list[tuple[str, str]]:
    return [
        (tc["function"]["name"], tc["function"]["arguments"])
        for m in result.run.messages
        for tc in m.get("tool_calls") or []
    ]


CASES = [(0, "support-ops@1", 0), (1, "support-ops@2-units", 1), (2, "support-ops@2-rename", 2)]


def test_a_trial_over_http_ends_as_it_does_in_process(
    tmp_path: Path, route: Callable[..., None], server: SimServer
) -> None:
    route(server)
    turns = 0
    for task, version, seed in CASES:
        local = _trial(tmp_path, "sim/acme-2", task, version, seed)
        http = _trial(tmp_path, "openai/acme-2", task, version, seed)
        assert http.outcome == local.outcome and http.outcome is not Outcome.INVALID
        assert _calls(http) == _calls(local) and http.run.turns == local.run.turns
        for field in ("calls", "prompt_tokens", "completion_tokens"):
            assert getattr(http.run.usage, field) == getattr(local.run.usage, field)
        turns += http.run.turns
    assert server.stats.answered == turns >= 2 * len(CASES)


@pytest.mark.parametrize(
    "plan",
    [
        FaultPlan(error_rate=1.0, status=503),
        FaultPlan(malformed_rate=1.0),
        FaultPlan(drop_rate=1.0),
    ],
    ids=["error", "malformed", "drop"],
)
def test_persistent_faults_make_a_trial_invalid_never_a_failure(
    tmp_path: Path, route: Callable[..., None], plan: FaultPlan
) -> None:
    with SimServer(faults=plan) as server:
        route(server)
        result = _trial(tmp_path, "openai/acme-2", 0, "support-ops@1", 0)
    assert result.outcome is Outcome.INVALID and result.run.invalid
    assert result.run.turns == 0  # the first model call failed after its retries
    assert server.stats.requests == HARNESS.model_retries + 1


def _fate(plan: FaultPlan, turns: int, retries: int) -> tuple[bool, int]:
    """Whether ``turns`` model calls each get an answer within ``retries`` retries under
    ``plan``, and how many faults the server serves on the way."""
    index = faults = 0
    for _ in range(turns):
        for attempt in range(retries + 1):
            index += 1
            if plan.fault_for(index - 1) is None:
                break
            faults += 1
            if attempt == retries:
                return False, faults
    return True, faults


def _plans(turns: int) -> dict[bool, FaultPlan]:
    """A plan whose faults the trial survives (with at least one fault), and one it does not."""
    found: dict[bool, FaultPlan] = {}
    for seed in range(200):
        plan = FaultPlan(seed=seed, error_rate=0.3, malformed_rate=0.2, drop_rate=0.2)
        survives, faults = _fate(plan, turns, HARNESS.model_retries)
        if faults:
            found.setdefault(survives, plan)
    return found


def test_scattered_faults_are_retried_or_make_the_trial_invalid(
    tmp_path: Path, route: Callable[..., None]
) -> None:
    local = _trial(tmp_path, "sim/acme-2", 0, "support-ops@1", 0)
    plans = _plans(local.run.turns)
    assert set(plans) == {True, False}
    for survives, plan in plans.items():
        with SimServer(faults=plan) as server:
            route(server)
            http = _trial(tmp_path, "openai/acme-2", 0, "support-ops@1", 0)
        if survives:
            assert http.outcome == local.outcome and _calls(http) == _calls(local)
        else:
            assert http.outcome is Outcome.INVALID and http.run.invalid
        expected_faults = _fate(plan, local.run.turns, HARNESS.model_retries)[1]
        assert sum(server.stats.faults.values()) == expected_faults
