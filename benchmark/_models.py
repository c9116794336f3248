"""The model gateway: every model call goes through ``litellm.acompletion``."""

from __future__ import annotations

import asyncio
import functools
import os
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from types import ModuleType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception,
    stop_after_attempt,
    wait_random_exponential,
)

from benchmark._call_log import current_log
from benchmark._calls import CallUsage
from benchmark._endpoint import endpoint_kwargs
from benchmark._limits import MAX_RETRY_AFTER_S, Limits, estimate_tokens, gate, retry_after
from benchmark._wires import wire_format
from benchmark.errors import BenchmarkError
from benchmark.sim import SEED_HEADER, register_sim_provider
from conditions import ModelEndpoint

TIMEOUT_ENV = "VWT_MODEL_TIMEOUT_S"
"""Environment variable: seconds one model request may take before it counts as failed."""
ATTEMPTS_ENV = "VWT_MODEL_ATTEMPTS"
"""Environment variable: requests per model call (first try plus retries) before 'invalid'."""

_LOCK = threading.Lock()
_LITELLM: ModuleType | None = None
_REASON_CHARS = 1000
"""Longest provider message kept in an 'invalid' reason."""


def load_litellm() -> ModuleType:
    """litellm, ready for trials: imported, banners off, the sim provider registered.

    The import takes seconds (longer under load), so workers call this before serving trials;
    inside a running event loop the gateway runs it in a thread instead of blocking the loop.
    """
    global _LITELLM
    with _LOCK:
        if _LITELLM is None:
            import litellm

            # litellm prints "Give Feedback / Get Help" and "Provider List" banners on stdout
            # for every failed call unless told not to; the failure is in the trial record.
            litellm.suppress_debug_info = True
            register_sim_provider()
            _LITELLM = litellm
        return _LITELLM


async def _litellm() -> ModuleType:
    return _LITELLM if _LITELLM is not None else await asyncio.to_thread(load_litellm)


def _retriable(litellm: ModuleType, error: BaseException) -> bool:
    """Transient: a connection error, a timeout, 429 or a server error. A generic API error
    carrying a client status (litellm maps e.g. 403 so) is not."""
    e = litellm.exceptions
    transient = (
        e.APIConnectionError,
        e.APIError,
        e.BadGatewayError,
        e.InternalServerError,
        e.RateLimitError,
        e.ServiceUnavailableError,
        e.Timeout,
    )
    status = getattr(error, "status_code", None)
    client_error = isinstance(status, int) and 400 <= status < 500 and status not in (408, 429)
    return isinstance(error, transient) and not client_error


class ModelCallFailed(Exception):
    """A model call failed (after its retries, if retriable): the trial is 'invalid', not a
    failure. The message starts with the provider error's class name."""


class ModelPolicy(BaseModel):
    """How the gateway calls a model: per-request timeout, attempts, backoff between them,
    and the limits on requests in flight and per minute (:class:`Limits`).

    Retries back off exponentially with full jitter (tenacity's ``wait_random_exponential``):
    retry ``n`` (from 0) waits a uniform draw in [0, min(``backoff_s`` × 2ⁿ,
    ``max_backoff_s``)], so clients that failed together do not retry together. A response
    with ``Retry-After`` (seconds or an HTTP date; servers send it with 429 and 503) waits
    that long instead (at most
    ``timeout_s`` and 60 s), and holds the provider's other requests as long. A provider that
    never answers costs at most ``attempts × timeout_s`` plus the backoffs per call (3 × 60 s
    + at most 0.75 s by default), and the trial ends 'invalid' at its first failed call.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    timeout_s: float = Field(
        default=60.0, gt=0, le=3600, description="Seconds one request may take."
    )
    attempts: int = Field(
        default=3, ge=1, le=20, description="Requests per call before it fails (retries + 1)."
    )
    backoff_s: float = Field(
        default=0.25,
        ge=0,
        le=60,
        description="Longest wait before the first retry; each later retry's doubles.",
    )
    max_backoff_s: float = Field(
        default=8.0,
        ge=0,
        le=600,
        description="Longest wait before any retry (without Retry-After).",
    )
    limits: Limits = Field(
        default_factory=Limits,
        description="Concurrency and per-minute limits of this process's model requests.",
    )

    def longest_delay(self, retry: int) -> float:
        """The longest wait before retry number ``retry`` (0 for the first)."""
        return float(min(self.backoff_s * 2**retry, self.max_backoff_s))

    @classmethod
    def from_env(cls, attempts: int = 3, environ: Mapping[str, str] | None = None) -> ModelPolicy:
        """The policy set by ``VWT_MODEL_TIMEOUT_S`` and ``VWT_MODEL_ATTEMPTS`` (defaults: 60 s;
        ``attempts``) and the limits of :meth:`Limits.from_env`; a malformed value is a
        BenchmarkError naming the variable."""
        env = os.environ if environ is None else environ
        fields: dict[str, Any] = {"attempts": str(attempts), "limits": Limits.from_env(env)}
        for name, field in ((TIMEOUT_ENV, "timeout_s"), (ATTEMPTS_ENV, "attempts")):
            raw = env.get(name, "").strip()
            if raw:
                fields[field] = raw
        try:
            return cls.model_validate(fields)
        except ValidationError as e:
            problem = e.errors()[0]
            name = TIMEOUT_ENV if problem["loc"] == ("timeout_s",) else ATTEMPTS_ENV
            raise BenchmarkError(
                f"{name}={env.get(name)!r}: {problem['msg']}",
                f"set {TIMEOUT_ENV} to seconds in (0, 3600] and {ATTEMPTS_ENV} to 1..20, "
                "or unset them for the defaults (60 s, 3 attempts)",
            ) from None


class Usage(BaseModel):
    """Token and call accounting of one trial or phase: what the model was asked for now.
    Calls answered from the record (the cache, a replay) count only in ``cached``."""

    model_config = ConfigDict(extra="forbid")

    calls: int = Field(default=0, description="Model calls made.")
    prompt_tokens: int = Field(default=0, description="Prompt tokens reported by the provider.")
    completion_tokens: int = Field(default=0, description="Completion tokens reported.")
    latency_s: float = Field(default=0.0, description="Seconds spent waiting for the model.")
    cached: int = Field(
        default=0,
        description="Calls answered from the record (the cache or a replay) without a model "
        "request; their tokens are not counted above.",
    )

    def add(self, response: Any, seconds: float) -> None:
        """Count one response."""
        tokens = call_usage(response)
        self.calls += 1
        self.prompt_tokens += tokens.prompt_tokens
        self.completion_tokens += tokens.completion_tokens
        self.latency_s += seconds


def call_usage(response: Any) -> CallUsage:
    """The tokens a litellm response reports (0 where it reports none)."""
    usage = getattr(response, "usage", None)
    return CallUsage(
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )


def _reason(error: Exception, model: str, attempts: int | None = None) -> str:
    """'<ErrorClass>: <model>: <message>', one line, bounded."""
    message = " ".join(str(error).split())[:_REASON_CHARS]
    after = f" (after {attempts} attempts)" if attempts and attempts > 1 else ""
    return f"{type(error).__name__}: {model}: {message}{after}"


@functools.lru_cache(maxsize=256)
def _provider(litellm: ModuleType, model: str) -> str:
    """litellm's provider of ``model`` (``openai``, ``sim``, …): what per-provider limits
    name. A model litellm cannot place (its call fails) counts under its prefix."""
    try:
        return str(litellm.get_llm_provider(model)[1])
    except Exception:
        return model.split("/", 1)[0]


def _tokens(response: Any) -> int:
    tokens = call_usage(response)
    return tokens.prompt_tokens + tokens.completion_tokens


def _retry_wait(error: BaseException | None, policy: ModelPolicy) -> float | None:
    """The wait a failed response asks for with ``Retry-After`` (capped), else None. Read
    whatever the status litellm gives the error: its Anthropic adapter reports a 503 as 500."""
    headers = getattr(error, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(error, "response", None), "headers", None)
    wait = retry_after(headers)
    return None if wait is None else min(wait, MAX_RETRY_AFTER_S, policy.timeout_s)


def backoff(
    policy: ModelPolicy, on_retry_after: Callable[[float], None] | None = None
) -> Callable[[RetryCallState], float]:
    """The wait before a retry (a tenacity wait strategy): what the failed request's
    ``Retry-After`` asks for (then ``on_retry_after`` is told the wait), else the policy's
    jittered exponential backoff."""
    jitter = wait_random_exponential(multiplier=policy.backoff_s, max=policy.max_backoff_s)

    def wait(state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome is not None else None
        asked = _retry_wait(error, policy)
        if asked is None:
            return float(jitter(state))
        if on_retry_after is not None:
            on_retry_after(asked)
        return asked

    return wait


@functools.lru_cache(maxsize=256)
def _takes_seed(litellm: ModuleType, model: str, provider: str) -> bool:
    """Whether litellm sends ``seed`` to ``provider`` (True where it cannot tell: a custom
    provider, the sim's included, is handed every parameter)."""
    try:
        supported = litellm.get_supported_openai_params(model=model, custom_llm_provider=provider)
    except Exception:
        return True
    return supported is None or "seed" in supported


def _seed(litellm: ModuleType, model: str, provider: str, seed: int) -> dict[str, Any]:
    """The request seed as litellm can send it: the ``seed`` parameter, or for an API without
    one (Anthropic Messages: litellm would refuse the parameter) the sim's seed header."""
    if _takes_seed(litellm, model, provider):
        return {"seed": seed}
    return {"extra_headers": {SEED_HEADER: str(seed)}}


def _assistant(response: Any) -> dict[str, Any]:
    message = response.choices[0].message
    out: dict[str, Any] = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {
                "id": tc.id,
                "type": "function",
                "function": {"name": tc.function.name, "arguments": tc.function.arguments},
            }
            for tc in message.tool_calls
        ]
    return out


async def complete(
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    *,
    seed: int,
    usage: Usage,
    policy: ModelPolicy | None = None,
    endpoint: ModelEndpoint | None = None,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> dict[str, Any]:
    """One chat completion with tools; returns the assistant message as a plain dict. The
    request goes to ``endpoint`` (base URL, key variable) when the cycle spec gives one.

    Transient provider errors (connection, timeout, 429, 5xx) are retried per ``policy``
    (default: :meth:`ModelPolicy.from_env`), by tenacity, after the wait the response asks
    for with ``Retry-After`` or else the jittered backoff (``sleep`` waits: tests pass a fake
    clock); any other error (404, 400, 401/403, a reply that cannot be read, anything raised)
    fails the call at once. Either way the failure is a :class:`ModelCallFailed` whose
    message starts with the error's class name. Every request first waits its turn under
    ``policy.limits``.

    When the runner records the trial's calls (:func:`benchmark.recording`), the request and
    the reply (or the failure) are recorded, and a request the record can answer (a replay's
    next call, a cached reply) is answered from it without a model request, counted in
    ``usage.cached``; a replay's divergence fails the call.
    """
    log = current_log()
    params: dict[str, int | float | str | bool] = {"temperature": 0}
    wire = wire_format(model)
    prepared = None if log is None else log.prepare(model, messages, tools, seed, params)
    if log is not None and prepared is not None:
        answer = log.recorded(prepared, wire)
        if answer is not None:
            if answer.message is None:
                raise ModelCallFailed(answer.error or "the recorded call failed")
            usage.cached += 1
            return answer.message
    policy = policy or ModelPolicy.from_env()
    route = endpoint_kwargs(model, endpoint)
    litellm = await _litellm()
    limits = gate(policy.limits)
    provider = _provider(litellm, model)
    estimate = estimate_tokens(messages, tools) if limits.limits_tokens(provider) else 0
    seeded = _seed(litellm, model, provider, seed)

    async def once() -> tuple[dict[str, Any], Any, float]:
        async with limits.request(provider, estimate) as ticket:
            start = time.perf_counter()
            # The gateway's retry policy is the only one: the provider client must not
            # multiply it with retries of its own.
            response = await litellm.acompletion(
                model=model,
                messages=messages,
                tools=tools or None,
                max_retries=0,
                timeout=policy.timeout_s,
                **params,
                **seeded,
                **route,
            )
            ticket.used(_tokens(response))
        return _assistant(response), response, time.perf_counter() - start

    retrying = AsyncRetrying(
        stop=stop_after_attempt(policy.attempts),
        wait=backoff(policy, lambda wait: limits.pause(provider, wait)),
        retry=retry_if_exception(lambda e: _retriable(litellm, e)),
        sleep=sleep,
        reraise=True,
    )
    attempt = 0
    try:
        async for trying in retrying:
            with trying:
                attempt = trying.retry_state.attempt_number
                reply, response, seconds = await once()
    except Exception as e:  # any error ends the trial ('invalid'), never the batch
        reason = _reason(e, model, attempt if _retriable(litellm, e) else None)
        if log is not None and prepared is not None:
            log.failed(prepared, reason, wire)
        raise ModelCallFailed(reason) from e
    usage.add(response, seconds)
    if log is not None and prepared is not None:
        log.answered(prepared, reply, call_usage(response), wire)
    return reply
