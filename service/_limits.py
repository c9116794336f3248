"""The service's abuse limits: request and upload rates per token, concurrency, size, time."""

from __future__ import annotations

import math
import threading
import time
from collections import Counter

from pydantic import BaseModel, ConfigDict, Field

from submissions import MAX_BUNDLE_BYTES


class ServiceLimits(BaseModel):
    """What one caller, and everyone together, may ask of the service.

    Rates are per token (anonymous callers: per client address); a caller over a rate or a
    concurrency cap is answered 429 with ``Retry-After``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    requests_per_minute: int = Field(
        default=120, ge=1, description="Requests one caller may make per minute (burst included)."
    )
    file_requests_per_minute: int = Field(
        default=6000,
        ge=1,
        description="Requests for published release files (/release/…, their listing) one "
        "caller may make per minute: a release is fetched a file at a time.",
    )
    uploads_per_minute: int = Field(
        default=6, ge=1, description="Uploads one caller may start per minute (burst included)."
    )
    concurrent_uploads: int = Field(
        default=8, ge=1, description="Uploads in progress at once, all callers together."
    )
    concurrent_uploads_per_token: int = Field(
        default=2, ge=1, description="Uploads in progress at once for one caller."
    )
    head_seconds: float = Field(
        default=10.0,
        gt=0,
        description="Seconds a connection may take to send a request's head (line and "
        "headers), from connecting or from the last answer; then it is closed.",
    )
    upload_seconds: float = Field(
        default=60.0, gt=0, description="Seconds an upload's whole body may take to arrive (408)."
    )
    max_body_bytes: int = Field(
        default=MAX_BUNDLE_BYTES,
        ge=1,
        le=MAX_BUNDLE_BYTES,
        description="Largest upload body accepted (413), at most the packed-bundle cap.",
    )


class RateLimiter:
    """Token buckets per caller: ``per_minute`` requests, refilled evenly over a minute."""

    _PRUNE_AT = 4096
    """Callers tracked before idle (full) buckets are dropped."""

    def __init__(self, per_minute: int) -> None:
        """A limiter allowing ``per_minute`` requests per caller per minute, as a burst too."""
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def take(self, caller: str) -> int:
        """Spend one request of ``caller``: 0 if allowed, else the seconds until it would be."""
        now = time.monotonic()
        with self._lock:
            if caller not in self._buckets and len(self._buckets) >= self._PRUNE_AT:
                self._prune(now)
            level = self._level(caller, now)
            if level >= 1.0:
                self._buckets[caller] = (level - 1.0, now)
                return 0
            self._buckets[caller] = (level, now)
            return max(1, math.ceil((1.0 - level) / self.rate))

    def _level(self, caller: str, now: float) -> float:
        level, at = self._buckets.get(caller, (self.capacity, now))
        return min(self.capacity, level + (now - at) * self.rate)

    def _prune(self, now: float) -> None:
        full = [c for c in self._buckets if self._level(c, now) >= self.capacity]
        for caller in full:
            del self._buckets[caller]


class UploadSlots:
    """Uploads in progress: at most ``total`` at once, at most ``per_caller`` for one caller."""

    def __init__(self, total: int, per_caller: int) -> None:
        """Slots for ``total`` concurrent uploads, ``per_caller`` of them for any one caller."""
        self.total = total
        self.per_caller = per_caller
        self._held: Counter[str] = Counter()
        self._lock = threading.Lock()

    def acquire(self, caller: str) -> bool:
        """Take a slot for ``caller`` if one is free (never waits)."""
        with self._lock:
            if self._held.total() >= self.total or self._held[caller] >= self.per_caller:
                return False
            self._held[caller] += 1
            return True

    def release(self, caller: str) -> None:
        """Give back a slot ``caller`` acquired."""
        with self._lock:
            self._held[caller] -= 1
            if self._held[caller] <= 0:
                del self._held[caller]
