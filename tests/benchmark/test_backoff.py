"""The gateway's backoff: tenacity's full-jitter exponential waits, Retry-After honoured in
both of its forms, the waits taken through an injected sleep (no clock is read by a test)."""

from __future__ import annotations

import asyncio
import email.utils
import time
from typing import Any

import httpx
import litellm
import pytest
from litellm import CustomLLM
from tenacity import AsyncRetrying, Future, RetryCallState

from benchmark import ModelCallFailed, ModelPolicy, Usage, complete
from benchmark._models import backoff

POLICY = ModelPolicy(timeout_s=30, attempts=4, backoff_s=0.5, max_backoff_s=3)


def _state(attempt: int, error: BaseException) -> RetryCallState:
    state = RetryCallState(AsyncRetrying(), None, (), {})
    state.attempt_number = attempt
    state.outcome = Future.construct(attempt, error, True)
    return state


def _limited(headers: dict[str, str], status: int = 429) -> Exception:
    response = httpx.Response(status, headers=headers, request=httpx.Request("POST", "http://x"))
    return litellm.exceptions.RateLimitError(
        "slow down", "scripted", "scripted/m", response=response
    )


def _http_date(seconds_from_now: float) -> str:
    return email.utils.formatdate(time.time() + seconds_from_now, usegmt=True)


def test_retry_after_in_seconds_is_the_wait_and_holds_the_provider() -> None:
    held: list[float] = []
    wait = backoff(POLICY, held.append)
    assert wait(_state(1, _limited({"Retry-After": "12"}))) == 12
    assert wait(_state(2, _limited({"retry-after": "0"}))) == 0
    assert held == [12, 0]


def test_retry_after_as_an_http_date_waits_until_then() -> None:
    wait = backoff(POLICY)
    ahead = wait(_state(1, _limited({"Retry-After": _http_date(20)})))
    assert 10 < ahead <= 20  # the date has a resolution of one second
    assert wait(_state(1, _limited({"Retry-After": _http_date(-60)}))) == 0  # already passed


def test_retry_after_is_capped_by_the_request_timeout_and_a_minute() -> None:
    wait = backoff(POLICY)
    assert wait(_state(1, _limited({"Retry-After": "3600"}))) == POLICY.timeout_s
    assert (
        backoff(POLICY.model_copy(update={"timeout_s": 600}))(
            _state(1, _limited({"Retry-After": "3600"}))
        )
        == 60
    )


@pytest.mark.parametrize("headers", [{}, {"Retry-After": "soon"}], ids=["none", "unreadable"])
def test_without_a_readable_retry_after_the_wait_is_jittered_within_its_bound(
    headers: dict[str, str],
) -> None:
    wait = backoff(POLICY)
    for retry in range(6):
        cap = POLICY.longest_delay(retry)
        draws = [wait(_state(retry + 1, _limited(headers))) for _ in range(200)]
        assert all(0 <= d <= cap for d in draws), (retry, cap)
        assert len(set(draws)) > 100 and max(draws) > cap / 2  # spread over the range
    assert [POLICY.longest_delay(r) for r in range(5)] == [0.5, 1, 2, 3, 3]


class _Scripted(CustomLLM):
    """Raises ``errors`` in order, then answers."""

    def __init__(self, errors: list[Exception]) -> None:
        super().__init__()
        self.errors, self.calls = errors, 0

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        if self.calls <= len(self.errors):
            raise self.errors[self.calls - 1]
        return litellm.ModelResponse(choices=[{"message": {"role": "assistant", "content": "ok"}}])


@pytest.fixture
def scripted() -> Any:
    def register(errors: list[Exception]) -> _Scripted:
        handler = _Scripted(errors)
        others = [e for e in litellm.custom_provider_map if e["provider"] != "scripted"]
        litellm.custom_provider_map = [*others, {"provider": "scripted", "custom_handler": handler}]
        return handler

    yield register
    litellm.custom_provider_map = [
        e for e in litellm.custom_provider_map if e["provider"] != "scripted"
    ]


def _complete(policy: ModelPolicy) -> tuple[dict[str, Any], list[float]]:
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    msgs = [{"role": "user", "content": "hi"}]
    reply = asyncio.run(
        complete("scripted/m", msgs, [], seed=1, usage=Usage(), policy=policy, sleep=sleep)
    )
    return reply, sleeps


def test_the_gateway_waits_what_each_failure_asks_then_answers(scripted: Any) -> None:
    unavailable = litellm.exceptions.ServiceUnavailableError("busy", "scripted", "scripted/m")
    handler = scripted(
        [_limited({"Retry-After": "2"}), unavailable, _limited({"Retry-After": "0.5"})]
    )
    reply, sleeps = _complete(POLICY.model_copy(update={"limits": POLICY.limits}))
    assert reply["content"] == "ok" and handler.calls == 4
    assert sleeps[0] == 2 and 0 <= sleeps[1] <= POLICY.longest_delay(1) and sleeps[2] == 0.5


def test_the_attempts_bound_the_retries_and_the_failure_says_how_many(scripted: Any) -> None:
    handler = scripted([_limited({"Retry-After": "0"})] * 10)
    with pytest.raises(ModelCallFailed, match=r"^RateLimitError: .*\(after 4 attempts\)$"):
        _complete(POLICY)
    assert handler.calls == 4
