"""The gateway records every model call in the trial's call log, answers from the record where
the log says (a cache hit, a replay), and keeps secrets out of what it records."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import litellm
import pytest
from litellm import CustomLLM

from benchmark import (
    REDACTED,
    CachedReply,
    CallDocument,
    CallLog,
    CallUsage,
    ModelCallFailed,
    ModelPolicy,
    Usage,
    complete,
    expand,
    recording,
    secret_values,
)
from conditions import ModelEndpoint

FAST = ModelPolicy(timeout_s=5, attempts=1, backoff_s=0.01)
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Look an order up.",
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}},
        },
    }
]


class _Echo(CustomLLM):
    """Answers every request with the text of its last message, counting requests and keeping
    the keyword arguments litellm handed it (what was sent)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0
        self.sent: list[dict[str, Any]] = []
        self.fail = False

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        self.sent.append(kwargs)
        if self.fail:
            raise litellm.exceptions.BadRequestError(
                message="refused", llm_provider="echo", model="echo/m"
            )
        last = kwargs["messages"][-1]["content"]
        return litellm.ModelResponse(
            choices=[{"message": {"role": "assistant", "content": f"echo: {last}"}}],
            usage={"prompt_tokens": 7, "completion_tokens": 2, "total_tokens": 9},
        )


@pytest.fixture
def echo() -> Any:
    handler = _Echo()
    others = [e for e in litellm.custom_provider_map if e["provider"] != "echo"]
    litellm.custom_provider_map = [*others, {"provider": "echo", "custom_handler": handler}]
    yield handler
    kept = [e for e in litellm.custom_provider_map if e["provider"] != "echo"]
    litellm.custom_provider_map = kept


def _messages(user: str = "where is order 7?") -> list[dict[str, Any]]:
    return [{"role": "system", "content": "You help."}, {"role": "user", "content": user}]


def _call(
    log: CallLog | None,
    messages: list[dict[str, Any]],
    *,
    model: str = "echo/m",
    seed: int = 1,
    usage: Usage | None = None,
    endpoint: ModelEndpoint | None = None,
) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        if log is None:
            return await complete(model, messages, TOOLS, seed=seed, usage=usage or Usage())
        with recording(log):
            return await complete(
                model,
                messages,
                TOOLS,
                seed=seed,
                usage=usage or Usage(),
                policy=FAST,
                endpoint=endpoint,
            )

    return asyncio.run(go())


def _calls(log: CallLog) -> Any:
    sha = log.document()
    doc = CallDocument.model_validate_json(log.blobs[sha])
    return expand(doc, {h: json.loads(v) for h, v in log.blobs.items()})


def test_a_call_is_recorded_as_sent_with_the_reply_and_its_tokens(echo: _Echo) -> None:
    log = CallLog()
    reply = _call(log, _messages(), seed=42)
    (call,) = _calls(log)
    assert call.request.model == "echo/m" and call.request.seed == 42
    assert list(call.request.messages) == echo.sent[0]["messages"]
    assert list(call.request.tools or ()) == echo.sent[0]["optional_params"]["tools"]
    assert call.request.params == {"temperature": 0}
    assert echo.sent[0]["optional_params"]["temperature"] == 0
    assert call.message == reply and reply["content"] == "echo: where is order 7?"
    assert call.usage == CallUsage(prompt_tokens=7, completion_tokens=2)
    assert call.wire == "litellm-echo" and call.error is None


def test_blobs_shared_by_calls_are_kept_once(echo: _Echo) -> None:
    log = CallLog()
    first = _messages()
    reply = _call(log, first)
    _call(log, [*first, reply, {"role": "user", "content": "and order 8?"}])
    doc = CallDocument.model_validate_json(log.blobs[log.document()])
    one, two = doc.calls
    assert one.request.tools == two.request.tools  # one tool list blob for both
    assert two.request.messages[:2] == one.request.messages
    assert two.request.messages[2] == one.reply.message  # the reply, sent back, is one blob
    # system, user, reply, second user, second reply, tools, and the document itself
    assert len(log.blobs) == 7
    assert one.request_sha != two.request_sha


def test_a_failed_call_is_recorded_with_its_reason(echo: _Echo) -> None:
    echo.fail = True
    log = CallLog()
    with pytest.raises(ModelCallFailed, match="BadRequestError"):
        _call(log, _messages())
    (call,) = _calls(log)
    assert call.message is None and call.error and call.error.startswith("BadRequestError")


def _cache_of(log: CallLog) -> dict[str, CachedReply]:
    doc = CallDocument.model_validate_json(log.blobs[log.document()])
    return {
        c.request_sha: CachedReply(
            message=json.loads(log.blobs[c.reply.message or ""]), usage=c.reply.usage, wire="x"
        )
        for c in doc.calls
    }


def test_the_cache_answers_an_identical_request_without_a_model_call(echo: _Echo) -> None:
    first = CallLog()
    reply = _call(first, _messages())
    cached, usage = CallLog(cache=_cache_of(first)), Usage()
    assert _call(cached, _messages(), usage=usage) == reply
    assert echo.calls == 1  # the second was never sent
    assert usage.cached == 1 and usage.calls == 0 and usage.prompt_tokens == 0
    (call,) = CallDocument.model_validate_json(cached.blobs[cached.document()]).calls
    assert call.reply.cached


@pytest.mark.parametrize(
    "change",
    [
        {"messages": _messages("where is order 9?")},  # a changed prompt
        {"seed": 2},  # another seed
        {"model": "echo/other"},  # another model
    ],
    ids=["prompt", "seed", "model"],
)
def test_the_cache_never_answers_a_request_that_differs(
    echo: _Echo, change: dict[str, Any]
) -> None:
    first = CallLog()
    _call(first, _messages())
    cached = CallLog(cache=_cache_of(first))
    args: dict[str, Any] = {"messages": _messages(), **change}
    messages = args.pop("messages")
    _call(cached, messages, **args)
    assert echo.calls == 2


def test_a_replay_answers_from_the_record_and_names_the_first_difference(echo: _Echo) -> None:
    recorded = CallLog()
    reply = _call(recorded, _messages())
    calls = _calls(recorded)

    again = CallLog(replay=calls)
    assert _call(again, _messages()) == reply and echo.calls == 1
    assert again.unreplayed() is None

    changed = CallLog(replay=calls)
    with pytest.raises(ModelCallFailed, match=r"replay diverged: call 1's request"):
        _call(changed, _messages("where is order 9?"))
    assert changed.divergence and "messages[1].content" in changed.divergence
    assert "(recorded 'where is order 7?', now 'where is order 9?')" in changed.divergence
    assert echo.calls == 1  # a replay never asks the model

    reseeded = CallLog(replay=calls)
    with pytest.raises(ModelCallFailed):
        _call(reseeded, _messages(), seed=5)
    assert reseeded.divergence and "at seed (recorded 1, now 5)" in reseeded.divergence


def test_a_replay_reports_calls_beyond_or_short_of_the_record(echo: _Echo) -> None:
    recorded = CallLog()
    _call(recorded, _messages())
    calls = _calls(recorded)
    longer = CallLog(replay=calls)
    _call(longer, _messages())
    with pytest.raises(ModelCallFailed, match="call 2 was not made in the recorded trial"):
        _call(longer, _messages())
    shorter = CallLog(replay=(*calls, *calls))
    _call(shorter, _messages())
    assert shorter.unreplayed() == "the replay made 1 calls, the recorded trial 2"


def test_a_replay_reproduces_a_recorded_failure(echo: _Echo) -> None:
    echo.fail = True
    recorded = CallLog()
    with pytest.raises(ModelCallFailed) as first:
        _call(recorded, _messages())
    with pytest.raises(ModelCallFailed) as again:
        _call(CallLog(replay=_calls(recorded)), _messages())
    assert str(again.value) == str(first.value) and echo.calls == 1


def test_secrets_never_reach_the_record(echo: _Echo, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("VWT_TEST_SERVICE_TOKEN", secret)
    monkeypatch.setenv("VWT_TEST_ENDPOINT_KEY", "endpoint-secret-987654")
    monkeypatch.setenv("VWT_TEST_PLAIN", "not-a-secret-value")  # not named like a key
    secrets = secret_values(extra=["endpoint-secret-987654"])
    log = CallLog(secrets=secrets)
    endpoint = ModelEndpoint(api_base="http://127.0.0.1:9/v1", api_key_env="VWT_TEST_ENDPOINT_KEY")
    _call(log, _messages(f"use {secret} and not-a-secret-value"), endpoint=endpoint)
    assert echo.sent[0]["api_key"] == "endpoint-secret-987654"  # sent, but never recorded
    stored = b"".join(log.blobs.values()).decode()
    assert secret not in stored and "endpoint-secret-987654" not in stored
    assert REDACTED in stored and "not-a-secret-value" in stored
    # the recorded request is the scrubbed one: the same request again is the same identity
    again = CallLog(secrets=secrets)
    _call(again, _messages(f"use {secret} and not-a-secret-value"), endpoint=endpoint)
    assert again.calls[0].request_sha == log.calls[0].request_sha


def test_short_values_and_unrelated_names_are_not_secrets() -> None:
    found = secret_values({"OPENAI_API_KEY": "sk-longenough", "FLAG_KEY": "1", "HOME": "/root/x"})
    assert found == ("sk-longenough",)
