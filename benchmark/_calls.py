"""Model call records: every request the gateway sends to litellm and the reply the agent loop
uses, content-addressed.

A value stored by hash (a *blob*: one message, one tool list, one trial's call document) is its
canonical JSON (:func:`canonical`: sorted keys, no spaces, UTF-8), named by the SHA-256 of those
bytes. A request names its messages and tools by blob hash, so a system prompt or a tool list
that thousands of trials share is stored once, and the hash of a request
(:attr:`ModelCall.request_sha`) identifies everything that was sent: model, every message, the
tools, the seed and the sampling parameters. A trial's calls are one :class:`CallDocument`,
itself a blob whose hash the trial record pins (``TrialRecord.calls_sha256``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

CALLS_VERSION = 1
"""Format version of :class:`CallDocument`."""


def canonical(value: Any) -> bytes:
    """``value`` as canonical JSON bytes: sorted keys, no whitespace, UTF-8, no NaN."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode()


def sha256(data: bytes) -> str:
    """Lower-case hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


class CallUsage(BaseModel):
    """Tokens of one reply, as the provider reported them (what a price applies to)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_tokens: int = Field(default=0, ge=0, description="Prompt tokens.")
    completion_tokens: int = Field(default=0, ge=0, description="Completion tokens.")


class CallRequest(BaseModel):
    """A request as the gateway sent it to litellm, its messages and tools by blob hash.

    Transport settings (endpoint, key, timeout, retries) are not part of it: they decide where
    a request goes, not what it asks."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(description="litellm model string.")
    messages: tuple[str, ...] = Field(description="Blob hash of each message, in order.")
    tools: str | None = Field(description="Blob hash of the tool list; None: no tools sent.")
    seed: int = Field(description="The request seed (sent as `seed` or the sim's seed header).")
    params: dict[str, int | float | str | bool] = Field(
        description="Sampling parameters sent (temperature, …)."
    )

    def sha(self) -> str:
        """The request's identity: SHA-256 of its canonical JSON."""
        return sha256(canonical(self.model_dump(mode="json")))


class CallReply(BaseModel):
    """What came back: the assistant message the agent loop used, or the failure."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    message: str | None = Field(description="Blob hash of the assistant message; None: failed.")
    error: str | None = Field(
        default=None, description="Why the call failed after its retries (then no message)."
    )
    usage: CallUsage = Field(default_factory=CallUsage, description="Tokens of the reply.")
    wire: str = Field(description="Wire format the request travelled in (benchmark.wire_format).")
    cached: bool = Field(
        default=False,
        description="Answered from the cache (an identical earlier request's reply): no model "
        "request was made for it in this trial.",
    )


class ModelCall(BaseModel):
    """One model call of a trial."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_sha: str = Field(description="SHA-256 of the request's canonical JSON.")
    request: CallRequest = Field(description="What was sent.")
    reply: CallReply = Field(description="What the loop got.")


class CallDocument(BaseModel):
    """Every model call of one trial attempt, in the order they were made."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=CALLS_VERSION, description="Format version.")
    calls: tuple[ModelCall, ...] = Field(description="The calls, first to last.")

    def blob_hashes(self) -> set[str]:
        """Hashes of every blob the calls name (messages, tool lists, replies)."""
        out: set[str] = set()
        for c in self.calls:
            out.update(c.request.messages)
            out.update(h for h in (c.request.tools, c.reply.message) if h is not None)
        return out


class CachedReply(BaseModel):
    """A recorded reply as the cache serves it: the message itself, not its hash."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    message: dict[str, Any] = Field(description="The assistant message.")
    usage: CallUsage = Field(description="Tokens of the reply when it was first made.")
    wire: str = Field(description="Wire format it first travelled in.")


class CacheEntry(BaseModel):
    """A completed request and its reply, sent to the driver as soon as the call returns, so a
    crash after it loses neither (the cache's source)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_sha: str = Field(description="The request's identity.")
    model: str = Field(description="Its model (the cache is looked up by model and seed).")
    seed: int = Field(description="Its request seed.")
    reply: CachedReply = Field(description="The reply.")


class ExpandedRequest(BaseModel):
    """A request with its messages and tools themselves: what a replay compares against."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field(description="litellm model string.")
    messages: tuple[dict[str, Any], ...] = Field(description="The messages.")
    tools: tuple[dict[str, Any], ...] | None = Field(description="The tools; None: none sent.")
    seed: int = Field(description="The request seed.")
    params: dict[str, int | float | str | bool] = Field(description="Sampling parameters.")


class ReplayCall(BaseModel):
    """A recorded call as a replay answers it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_sha: str = Field(description="The recorded request's identity.")
    request: ExpandedRequest = Field(description="The recorded request.")
    message: dict[str, Any] | None = Field(description="The recorded reply; None: it failed.")
    error: str | None = Field(default=None, description="The recorded failure, if it failed.")
    usage: CallUsage = Field(default_factory=CallUsage, description="Tokens of the reply.")
    wire: str = Field(description="Wire format of the recorded call.")


def expand(document: CallDocument, blob: dict[str, Any]) -> tuple[ReplayCall, ...]:
    """The calls of ``document`` with every blob hash resolved through ``blob`` (hash → the
    parsed value); a missing hash raises KeyError."""
    out = []
    for c in document.calls:
        r = c.request
        tools = None if r.tools is None else tuple(blob[r.tools])
        request = ExpandedRequest(
            model=r.model,
            messages=tuple(blob[h] for h in r.messages),
            tools=tools,
            seed=r.seed,
            params=r.params,
        )
        message = None if c.reply.message is None else blob[c.reply.message]
        out.append(
            ReplayCall(
                request_sha=c.request_sha,
                request=request,
                message=message,
                error=c.reply.error,
                usage=c.reply.usage,
                wire=c.reply.wire,
            )
        )
    return tuple(out)
