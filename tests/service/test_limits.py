"""The limiter's arithmetic: token buckets per caller, and the upload slots."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from service import ServiceLimits
from service._limits import RateLimiter, UploadSlots
from submissions import MAX_BUNDLE_BYTES


def test_a_bucket_allows_its_burst_then_says_how_long_to_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr("service._limits.time.monotonic", lambda: now[0])
    limiter = RateLimiter(per_minute=6)  # one request back every 10 s
    assert [limiter.take("a") for _ in range(6)] == [0] * 6
    assert limiter.take("a") == 10
    assert limiter.take("b") == 0  # another caller has its own bucket
    now[0] += 4.0
    assert limiter.take("a") == 6
    now[0] += 6.0
    assert limiter.take("a") == 0 and limiter.take("a") == 10
    now[0] += 3600.0  # refilled to the burst, never beyond
    assert [limiter.take("a") for _ in range(7)] == [0] * 6 + [10]


def test_idle_callers_are_forgotten_once_many_are_tracked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [0.0]
    monkeypatch.setattr("service._limits.time.monotonic", lambda: now[0])
    limiter = RateLimiter(per_minute=1)
    for i in range(RateLimiter._PRUNE_AT):
        limiter.take(f"c{i}")
    assert limiter.take("c1") == 60 and len(limiter._buckets) == RateLimiter._PRUNE_AT
    now[0] += 60.0  # every bucket is full again: a new caller makes room
    assert limiter.take("new") == 0 and list(limiter._buckets) == ["new"]


def test_upload_slots_cap_everyone_and_each_caller() -> None:
    slots = UploadSlots(total=3, per_caller=2)
    assert [slots.acquire("a"), slots.acquire("a"), slots.acquire("a")] == [True, True, False]
    assert slots.acquire("b") and not slots.acquire("c")  # 3 in all
    slots.release("a")
    assert slots.acquire("c") and not slots.acquire("b")
    for caller in ("a", "b", "c"):
        slots.release(caller)
    assert slots.acquire("b") and slots.acquire("b")


def test_limits_refuse_an_upload_cap_over_the_bundle_limit() -> None:
    assert ServiceLimits().max_body_bytes == MAX_BUNDLE_BYTES
    with pytest.raises(ValidationError):
        ServiceLimits(max_body_bytes=MAX_BUNDLE_BYTES + 1)
    with pytest.raises(ValidationError):
        ServiceLimits(extra=1)  # type: ignore[call-arg]
