"""The gateway's limits: concurrency in all and per provider, requests and tokens per minute,
and Retry-After, against the real sim server on loopback where a provider is needed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from types import SimpleNamespace

import pytest

from benchmark import BenchmarkError, Limits, ModelCallFailed, ModelPolicy, PerProvider, Usage
from benchmark import complete as gateway_complete
from benchmark._limits import Gate, _Pace, retry_after
from benchmark.sim import FaultPlan, SimServer

# litellm warns while it turns some injected faults into errors; the error is the point
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

FAST = ModelPolicy(timeout_s=5, attempts=2, backoff_s=0.01)
MESSAGES = [{"role": "user", "content": "Refund ORD-1"}]


def _calls(n: int, policy: ModelPolicy, model: str = "openai/acme-2") -> float:
    """Seconds ``n`` concurrent gateway calls take."""

    async def go() -> float:
        start = time.perf_counter()
        await asyncio.gather(
            *(
                gateway_complete(model, MESSAGES, [], seed=i, usage=Usage(), policy=policy)
                for i in range(n)
            )
        )
        return time.perf_counter() - start

    return asyncio.run(go())


def _limited(env: dict[str, str]) -> ModelPolicy:
    return FAST.model_copy(update={"limits": Limits.from_env(env)})


@pytest.mark.parametrize(
    ("env", "peak"),
    [
        ({"VWT_PROVIDER_CONCURRENCY": "openai=3"}, 3),
        ({"VWT_PROVIDER_CONCURRENCY": "3"}, 3),  # a bare number: every provider
        ({"VWT_PROVIDER_CONCURRENCY": "anthropic=1,openai=4", "VWT_MAX_CONCURRENCY": "2"}, 2),
        ({"VWT_PROVIDER_CONCURRENCY": "anthropic=1"}, 12),  # another provider's limit
    ],
    ids=["provider", "every-provider", "global", "unlimited"],
)
def test_a_slow_provider_never_sees_more_requests_than_the_limit(
    route: Callable[[SimServer], None], env: dict[str, str], peak: int
) -> None:
    with SimServer(faults=FaultPlan(delay_s=0.2)) as server:
        route(server)
        took = _calls(12, _limited(env))
    assert server.stats.answered == 12
    assert server.stats.peak_in_flight == peak
    assert took >= 0.2 * 12 / peak


def test_the_requests_per_minute_space_requests(route: Callable[[SimServer], None]) -> None:
    with SimServer() as server:
        route(server)
        took = _calls(6, _limited({"VWT_RPM": "openai=600"}))  # one per 0.1 s
    assert server.stats.answered == 6
    assert took >= 0.5  # the last went 5 × 0.1 s after the first, however fast the machine


def test_the_pacing_of_a_gate_in_requests_and_tokens() -> None:
    """Request i goes at least 60/rpm × i seconds after the first; tokens likewise, the
    estimate corrected by the provider's count."""
    limits = Limits(rpm=PerProvider(named={"p": 600}), tpm=PerProvider(default=6000))
    gate = Gate(limits)

    async def go() -> list[float]:
        starts = []
        t0 = time.monotonic()
        for _ in range(3):
            async with gate.request("p") as ticket:
                starts.append(time.monotonic() - t0)
        async with gate.request("q", estimate=10) as ticket:  # 10 tokens of 100 per second
            ticket.used(40)  # 30 more than estimated: the next waits 0.4 s
        t1 = time.monotonic()
        async with gate.request("q", estimate=10):
            starts.append(time.monotonic() - t1)
        return starts

    starts = asyncio.run(go())
    assert starts[1] >= 0.099 and starts[2] >= 0.199 and starts[3] >= 0.39
    assert gate.limits_tokens("q") and not Gate(Limits()).limits_tokens("q")


def test_the_pace_is_a_schedule_a_late_request_does_not_shift(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the pace's own clock (no wall time: exact on a loaded machine too)."""
    now = [100.0]
    monkeypatch.setattr("benchmark._limits.time", SimpleNamespace(monotonic=lambda: now[0]))
    requests = _Pace(600)  # one per 0.1 s
    assert [requests.reserve(1) for _ in range(3)] == pytest.approx([0.0, 0.1, 0.2])
    now[0] += 0.25  # the third went late, at 0.25 s instead of 0.2 s
    assert requests.reserve(1) == pytest.approx(0.05)  # the fourth keeps its time, 0.3 s
    tokens = _Pace(6000)  # 100 per second
    assert tokens.reserve(10) == 0.0
    tokens.correct(30)  # the provider counted 40, not the 10 estimated
    assert tokens.reserve(10) == pytest.approx(0.4)


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_is_waited_instead_of_the_backoff(
    route: Callable[[SimServer], None], status: int
) -> None:
    plan = FaultPlan(fail_first=1, status=status, retry_after_s=4)
    with SimServer(faults=plan) as server:
        route(server)
        took = _calls(1, FAST)
    assert server.stats.requests == 2 and server.stats.answered == 1
    assert took >= 4
    with SimServer(faults=plan.model_copy(update={"retry_after_s": None})) as server:
        route(server)
        # without the header: the 0.01 s backoff, not the 4 s (a bound of meaning, not speed)
        assert _calls(1, FAST) < 4
        assert server.stats.requests == 2 and server.stats.answered == 1


def test_retry_after_is_capped_by_the_request_timeout(route: Callable[[SimServer], None]) -> None:
    with SimServer(faults=FaultPlan(fail_first=1, status=429, retry_after_s=3000)) as server:
        route(server)
        took = _calls(1, FAST.model_copy(update={"timeout_s": 0.5}))
    assert server.stats.answered == 1 and 0.5 <= took < 300  # capped: not the 3000 s


def test_retry_after_holds_the_providers_other_requests() -> None:
    gate = Gate(Limits())

    async def go() -> tuple[float, float]:
        gate.pause("p", 2.0)
        t0 = time.monotonic()
        async with gate.request("p"):
            held = time.monotonic() - t0
        async with gate.request("other"):
            free = time.monotonic() - t0 - held
        return held, free

    held, free = asyncio.run(go())
    assert held >= 2.0 and free < 2.0  # the other provider was not held for the pause


def test_a_persistent_429_still_fails_after_the_attempts(
    route: Callable[[SimServer], None],
) -> None:
    with SimServer(faults=FaultPlan(error_rate=1.0, status=429, retry_after_s=0.1)) as server:
        route(server)
        with pytest.raises(ModelCallFailed, match=r"^RateLimitError: .*\(after 2 attempts\)$"):
            _calls(1, FAST)
    assert server.stats.requests == 2


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "2"}, 2.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"Retry-After": "-3"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "nan"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after_values(headers: dict[str, str] | None, seconds: float | None) -> None:
    assert retry_after(headers) == seconds


def test_retry_after_as_an_http_date() -> None:
    now = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
    date = format_datetime(now + timedelta(seconds=7), usegmt=True)
    assert retry_after({"Retry-After": date}, now=now.timestamp()) == 7.0
    assert retry_after({"Retry-After": date}, now=now.timestamp() + 60) == 0.0


def test_the_limits_read_from_the_environment() -> None:
    assert Limits.from_env({}) == Limits()
    limits = Limits.from_env(
        {
            "VWT_MAX_CONCURRENCY": "64",
            "VWT_PROVIDER_CONCURRENCY": "openai=8, anthropic=4",
            "VWT_RPM": "100, openai=500",
            "VWT_TPM": "hosted_vllm=2.5e5",
        }
    )
    assert limits.max_concurrency == 64
    assert limits.provider_concurrency.get("openai") == 8
    assert limits.provider_concurrency.get("sim") is None
    assert (limits.rpm.get("openai"), limits.rpm.get("sim")) == (500, 100)
    assert limits.tpm.get("hosted_vllm") == 250_000
    assert ModelPolicy.from_env(environ={"VWT_RPM": "7"}).limits.rpm.get("x") == 7


def test_a_worker_keeps_its_share_of_the_runs_limits() -> None:
    env = {
        "VWT_MAX_CONCURRENCY": "64",
        "VWT_PROVIDER_CONCURRENCY": "openai=3, 8",
        "VWT_RPM": "openai=500",
        "VWT_TPM": "90000",
    }
    assert Limits.from_env({**env, "VWT_LIMIT_SHARE": "1"}) == Limits.from_env(env)
    half = Limits.from_env({**env, "VWT_LIMIT_SHARE": "2"})
    assert half.max_concurrency == 32
    assert (half.provider_concurrency.get("openai"), half.provider_concurrency.get("x")) == (1, 4)
    assert (half.rpm.get("openai"), half.rpm.get("x")) == (250, None)
    assert half.tpm.get("anthropic") == 45_000
    assert Limits.from_env({"VWT_LIMIT_SHARE": "8"}) == Limits()  # nothing to share
    with pytest.raises(BenchmarkError, match="VWT_LIMIT_SHARE='0'"):
        Limits.from_env({"VWT_LIMIT_SHARE": "0"})


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"VWT_MAX_CONCURRENCY": "0"}, "VWT_MAX_CONCURRENCY='0'"),
        ({"VWT_MAX_CONCURRENCY": "many"}, "VWT_MAX_CONCURRENCY='many'"),
        ({"VWT_PROVIDER_CONCURRENCY": "openai=2.5"}, "VWT_PROVIDER_CONCURRENCY='openai=2.5'"),
        ({"VWT_PROVIDER_CONCURRENCY": "openai:8"}, "VWT_PROVIDER_CONCURRENCY='openai:8'"),
        ({"VWT_RPM": "openai=0"}, "not a positive number"),
        ({"VWT_RPM": "openai=5,openai=6"}, "openai is named twice"),
        ({"VWT_RPM": "5,6"}, "more than one bare number"),
        ({"VWT_TPM": "Open AI=5"}, "not a provider name"),
        ({"VWT_TPM": "openai=inf"}, "VWT_TPM='openai=inf'"),
    ],
)
def test_a_malformed_limit_is_named(env: dict[str, str], says: str) -> None:
    for read in (Limits.from_env, lambda e: ModelPolicy.from_env(environ=e)):
        with pytest.raises(BenchmarkError, match=says) as bad:
            read(env)
        assert bad.value.hint and "provider=number" in bad.value.hint


def test_the_sim_provider_in_process_is_limited_as_sim() -> None:
    policy = _limited({"VWT_RPM": "sim=1200,openai=1"})  # sim: one per 0.05 s
    # limited as openai, the second call alone would wait a minute
    assert 0.2 <= _calls(5, policy, model="sim/acme-2") < 60
