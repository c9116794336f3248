"""Limits on the model calls of a run: concurrency (in all and per provider), requests and
tokens per minute per provider, and the pauses providers ask for with ``Retry-After``.

Every limit holds for the whole run. Each process's gateway keeps its share: a run on W worker
processes (one per CPU of the Ray runtime or cluster, or the local pool) gives each worker
1/W of every limit (``VWT_LIMIT_SHARE=W``, set by the runner in its workers; concurrency is
rounded down, to at least 1 request at a time per worker). A provider's ``Retry-After`` pauses
the process that got it.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import re
import threading
import time
import weakref
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.errors import BenchmarkError

MAX_CONCURRENCY_ENV = "VWT_MAX_CONCURRENCY"
"""Environment variable: model requests in flight at once in a process, all providers together."""
PROVIDER_CONCURRENCY_ENV = "VWT_PROVIDER_CONCURRENCY"
"""Environment variable: requests in flight at once per provider (``openai=8,anthropic=4``)."""
RPM_ENV = "VWT_RPM"
"""Environment variable: requests per minute per provider (``openai=500``)."""
TPM_ENV = "VWT_TPM"
"""Environment variable: tokens per minute per provider (``openai=200000``)."""
SHARE_ENV = "VWT_LIMIT_SHARE"
"""Environment variable, set by the runner in each worker process: the run's limits are shared
by this many worker processes, and this process keeps 1/N of each (unset: 1, the whole)."""
LIMIT_ENV = (MAX_CONCURRENCY_ENV, PROVIDER_CONCURRENCY_ENV, RPM_ENV, TPM_ENV)
"""Every limit setting (the Ray workers must see them too)."""

MAX_RETRY_AFTER_S = 60.0
"""Longest wait a provider's ``Retry-After`` can impose on one retry."""
_CHARS_PER_TOKEN = 4
"""Rough size of a token: the estimate of a request's tokens before the provider counts them."""
_PROVIDER = re.compile(r"[a-z0-9][a-z0-9_.-]*")
_MAX_CONCURRENCY = 100_000
_HINT = (
    f"set {MAX_CONCURRENCY_ENV} to a whole number >= 1, and {PROVIDER_CONCURRENCY_ENV}, "
    f"{RPM_ENV}, {TPM_ENV} to provider=number pairs (e.g. openai=8,anthropic=4; a bare "
    "number applies to every provider not named); unset them for no limit"
)


class PerProvider(BaseModel):
    """A limit per provider: named providers' own values, and one for every other provider."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    default: float | None = Field(
        default=None, gt=0, description="The limit of providers not named (None: no limit)."
    )
    named: dict[str, float] = Field(
        default_factory=dict, description="The limit of each named provider (litellm's name)."
    )

    def get(self, provider: str) -> float | None:
        """The limit of ``provider`` (None: none)."""
        return self.named.get(provider, self.default)

    def divided(self, workers: int, *, whole: bool = False) -> PerProvider:
        """Every limit divided by ``workers``; ``whole``: rounded down, to at least 1."""

        def part(v: float) -> float:
            return float(max(1, int(v) // workers)) if whole else v / workers

        return PerProvider(
            default=None if self.default is None else part(self.default),
            named={k: part(v) for k, v in self.named.items()},
        )


class Limits(BaseModel):
    """What the gateway of one process lets through (all unlimited by default)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_concurrency: int | None = Field(
        default=None,
        ge=1,
        le=_MAX_CONCURRENCY,
        description="Requests in flight at once, all providers together (None: no limit).",
    )
    provider_concurrency: PerProvider = Field(
        default_factory=PerProvider, description="Requests in flight at once per provider."
    )
    rpm: PerProvider = Field(
        default_factory=PerProvider, description="Requests per minute per provider."
    )
    tpm: PerProvider = Field(
        default_factory=PerProvider,
        description="Tokens (prompt + completion) per minute per provider.",
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The limits set by ``VWT_MAX_CONCURRENCY``, ``VWT_PROVIDER_CONCURRENCY``,
        ``VWT_RPM`` and ``VWT_TPM``; a malformed value is a BenchmarkError naming it."""
        env = os.environ if environ is None else environ
        raw = env.get(MAX_CONCURRENCY_ENV, "").strip()
        try:
            max_concurrency = _count(raw) if raw else None
        except ValueError as e:
            raise _bad(MAX_CONCURRENCY_ENV, raw, str(e)) from None
        raw_share = env.get(SHARE_ENV, "").strip()
        try:
            share = _count(raw_share) if raw_share else 1
        except ValueError as e:
            raise _bad(SHARE_ENV, raw_share, str(e)) from None
        return cls(
            max_concurrency=max_concurrency,
            provider_concurrency=_per_provider(env, PROVIDER_CONCURRENCY_ENV, whole=True),
            rpm=_per_provider(env, RPM_ENV, whole=False),
            tpm=_per_provider(env, TPM_ENV, whole=False),
        ).share(share)

    def share(self, workers: int) -> Limits:
        """One of ``workers`` processes' share of these limits: rates divided by ``workers``,
        concurrency too, rounded down to at least 1 (so N workers hold at most
        max(limit, N) requests at once)."""
        if workers == 1:
            return self
        per_worker = self.max_concurrency
        return Limits(
            max_concurrency=None if per_worker is None else max(1, per_worker // workers),
            provider_concurrency=self.provider_concurrency.divided(workers, whole=True),
            rpm=self.rpm.divided(workers),
            tpm=self.tpm.divided(workers),
        )


def _bad(name: str, raw: str, problem: str) -> BenchmarkError:
    return BenchmarkError(f"{name}={raw!r}: {problem}", _HINT)


def _count(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= _MAX_CONCURRENCY:
        raise ValueError(f"{text!r} is not a whole number in 1..{_MAX_CONCURRENCY}")
    return int(text)


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{text!r} is not a positive number")
    return value


def _per_provider(env: Mapping[str, str], name: str, *, whole: bool) -> PerProvider:
    raw = env.get(name, "").strip()
    if not raw:
        return PerProvider()
    default: float | None = None
    named: dict[str, float] = {}
    for item in (part.strip() for part in raw.split(",")):
        provider, _, value = item.rpartition("=")
        provider = provider.strip()
        try:
            number = _count(value.strip()) if whole else _rate(value.strip())
        except ValueError as e:
            raise _bad(name, raw, str(e)) from None
        if "=" not in item:
            if default is not None:
                raise _bad(name, raw, "more than one bare number")
            default = number
        elif not _PROVIDER.fullmatch(provider):
            raise _bad(name, raw, f"{provider!r} is not a provider name (e.g. openai)")
        elif provider in named:
            raise _bad(name, raw, f"{provider} is named twice")
        else:
            named[provider] = number
    return PerProvider(default=default, named=named)


def estimate_tokens(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    """A rough count of a request's prompt tokens (offline, cheap): its JSON size / 4."""
    return len(json.dumps([messages, tools], default=str)) // _CHARS_PER_TOKEN + 1


def retry_after(headers: Mapping[str, str] | None, now: float | None = None) -> float | None:
    """Seconds a response's ``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms``
    asks to wait (None: no readable header). ``now``: the current Unix time."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    ms = lower.get("retry-after-ms", "").strip()
    value = lower.get("retry-after", "").strip()
    try:
        if ms:
            return max(0.0, float(ms) / 1000)
        if value:
            seconds = float(value)
            return max(0.0, seconds) if math.isfinite(seconds) else None
    except ValueError:
        pass
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


class _Pace:
    """Spaces units (requests or tokens) evenly at ``per_minute``: a reservation of n units
    starts when the previous ones' share of the minute has passed. Thread-safe."""

    def __init__(self, per_minute: float) -> None:
        self._seconds_per_unit = 60.0 / per_minute
        self._next = 0.0
        self._lock = threading.Lock()

    def reserve(self, units: float) -> float:
        """Seconds to wait before ``units`` may be spent (they are booked now)."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + units * self._seconds_per_unit
            return start - now

    def correct(self, units: float) -> None:
        """Book ``units`` more (or fewer, if negative) than were reserved."""
        with self._lock:
            self._next += units * self._seconds_per_unit


class Ticket:
    """One request let through by a :class:`Gate`: tells it the tokens the request used."""

    def __init__(self, tokens: _Pace | None, estimate: int) -> None:
        self._tokens, self._estimate = tokens, estimate

    def used(self, tokens: int) -> None:
        """The provider counted ``tokens`` (prompt + completion) for this request."""
        if self._tokens is not None and tokens > 0:
            self._tokens.correct(tokens - self._estimate)


class Gate:
    """The limits of one process in force: waits each request out until they let it through.

    A request first waits out its provider's pause (set by a ``Retry-After``), then takes a
    slot of its provider and one of all providers, then waits for its turn in the provider's
    requests and tokens per minute. Slots are per event loop (a worker runs one); pauses and
    the per-minute pacing are shared by the whole process.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._lock = threading.Lock()
        self._slots: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]
        ] = weakref.WeakKeyDictionary()
        self._rpm: dict[str, _Pace | None] = {}
        self._tpm: dict[str, _Pace | None] = {}
        self._paused_until: dict[str, float] = {}

    def limits_tokens(self, provider: str) -> bool:
        """Whether ``provider``'s tokens per minute are limited (else no estimate is needed)."""
        return self.limits.tpm.get(provider) is not None

    def pause(self, provider: str, seconds: float) -> None:
        """Hold every request to ``provider`` for ``seconds`` from now (a longer pause stays)."""
        with self._lock:
            until = time.monotonic() + seconds
            self._paused_until[provider] = max(self._paused_until.get(provider, 0.0), until)

    @asynccontextmanager
    async def request(self, provider: str, estimate: int = 0) -> AsyncIterator[Ticket]:
        """Wait until one request of about ``estimate`` tokens to ``provider`` may go; the
        slots are held until the block ends."""
        while (wait := self._paused_until.get(provider, 0.0) - time.monotonic()) > 0:
            await asyncio.sleep(wait)
        async with AsyncExitStack() as held:
            for key in (f"provider:{provider}", "all"):
                slot = self._slot(key, provider)
                if slot is not None:
                    await held.enter_async_context(slot)
            rpm, tpm = self._pace(self._rpm, self.limits.rpm, provider), None
            delay = rpm.reserve(1) if rpm is not None else 0.0
            if estimate > 0:
                tpm = self._pace(self._tpm, self.limits.tpm, provider)
                delay = max(delay, tpm.reserve(estimate) if tpm is not None else 0.0)
            if delay > 0:
                await asyncio.sleep(delay)
            yield Ticket(tpm, estimate)

    def _slot(self, key: str, provider: str) -> asyncio.Semaphore | None:
        size = (
            self.limits.max_concurrency
            if key == "all"
            else self.limits.provider_concurrency.get(provider)
        )
        if size is None:
            return None
        loop = asyncio.get_running_loop()
        with self._lock:
            slots = self._slots.setdefault(loop, {})
            if key not in slots:
                slots[key] = asyncio.Semaphore(int(size))
            return slots[key]

    def _pace(
        self, paces: dict[str, _Pace | None], limit: PerProvider, provider: str
    ) -> _Pace | None:
        with self._lock:
            if provider not in paces:
                per_minute = limit.get(provider)
                paces[provider] = None if per_minute is None else _Pace(per_minute)
            return paces[provider]


_GATES: dict[str, Gate] = {}
_GATES_LOCK = threading.Lock()


def gate(limits: Limits) -> Gate:
    """This process's gate for ``limits`` (one per distinct setting, shared by every call)."""
    key = limits.model_dump_json()
    with _GATES_LOCK:
        if key not in _GATES:
            _GATES[key] = Gate(limits)
        return _GATES[key]
