"""A trial's call log: what the gateway records of each model call, and the recorded answers it
may serve instead of asking the model (a replay's, or the cache's).

The runner opens one :class:`CallLog` per trial with :func:`recording`; :func:`complete` (the
gateway) finds it with :func:`current_log` — a context variable, so each trial's task sees its
own log and the agent loop between them needs no part in it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from benchmark._calls import (
    CachedReply,
    CacheEntry,
    CallDocument,
    CallReply,
    CallRequest,
    CallUsage,
    ExpandedRequest,
    ModelCall,
    ReplayCall,
    canonical,
    sha256,
)
from benchmark._secrets import needles, scrub

_CURRENT: ContextVar[CallLog | None] = ContextVar("vwt_call_log", default=None)
_SHOWN = 60
"""Characters of a differing value quoted in a divergence."""


@dataclass(frozen=True)
class Prepared:
    """A request about to be sent, recorded form and the values it was made from."""

    request: CallRequest
    sha: str
    expanded: ExpandedRequest


@dataclass(frozen=True)
class Answer:
    """A call answered from the record: the message, or the recorded failure."""

    message: dict[str, Any] | None
    error: str | None
    usage: CallUsage


def _shown(value: Any) -> str:
    """A string quoted, anything else as JSON; cut at ``_SHOWN`` characters."""
    text = value if isinstance(value, str) else canonical(value).decode()
    cut = text if len(text) <= _SHOWN else text[:_SHOWN] + "…"
    return repr(cut) if isinstance(value, str) else cut


def _first_path(a: Any, b: Any, path: str) -> str | None:
    """The path of the first place ``a`` and ``b`` differ (None: equal), with both values."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                side = "now" if key not in a else "recorded"
                return f"{path}.{key} (only {side})"
            found = _first_path(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = _first_path(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path} (recorded {len(a)} items, now {len(b)})"
        return None
    if a == b and type(a) is type(b):
        return None
    if isinstance(a, str) and isinstance(b, str):
        # quote both from a little before the first character that differs
        at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        start = max(0, (min(len(a), len(b)) if at is None else at) - _SHOWN // 3)
        lead = "…" if start else ""
        return f"{path} (recorded {_shown(lead + a[start:])}, now {_shown(lead + b[start:])})"
    return f"{path} (recorded {_shown(a)}, now {_shown(b)})"


def first_difference(recorded: ExpandedRequest, live: ExpandedRequest) -> str:
    """Where ``live`` first departs from ``recorded``: model, seed, parameters, tools, then
    messages in order, as a path (``messages[3].content``) with both values."""
    for name in ("model", "seed", "params", "tools", "messages"):
        found = _first_path(getattr(recorded, name), getattr(live, name), name)
        if found:
            return found
    return "nothing (the requests are equal)"


class CallLog:
    """The model calls of one trial attempt, as blobs and a :class:`CallDocument`.

    ``secrets`` are cut out of everything recorded (:mod:`benchmark._secrets`). With
    ``replay`` (a recorded trial's calls), every call is answered from the record in order and
    the first request that is not the recorded one ends the trial, the divergence kept in
    :attr:`divergence`. With ``cache`` (request hash → reply), a request recorded before is
    answered without a model call. ``journal`` is told each reply the model made, as it comes.
    """

    def __init__(
        self,
        *,
        secrets: tuple[str, ...] = (),
        cache: Mapping[str, CachedReply] | None = None,
        replay: Sequence[ReplayCall] | None = None,
        journal: Callable[[CacheEntry], None] | None = None,
    ) -> None:
        self.secrets = secrets
        self._needles = needles(secrets)
        self.cache = cache or {}
        self.replay = replay
        self.journal = journal
        self._seen: dict[int, tuple[Any, Any, str, Any]] = {}
        self.blobs: dict[str, bytes] = {}
        """Every blob the calls name: hash → canonical JSON."""
        self.calls: list[ModelCall] = []
        self.divergence: str | None = None
        """Why a replay stopped following the record, if it did."""

    def _blob(self, value: Any) -> tuple[str, Any]:
        """(hash, scrubbed value) of ``value``, kept among the blobs."""
        # The loop sends the same message objects again with every call: one equal to what
        # it was when hashed has that hash (comparing costs far less than encoding).
        seen = self._seen.get(id(value))
        if seen is not None and seen[0] is value and seen[1] == value:
            return seen[2], seen[3]
        data = canonical(value)
        kept = value
        if self._needles and any(n in data for n in self._needles):
            kept = scrub(value, self.secrets)
            data = canonical(kept)
        sha = sha256(data)
        self.blobs.setdefault(sha, data)
        # a snapshot of the value as hashed (parsed back: faster than a deep copy)
        self._seen[id(value)] = (value, json.loads(data) if kept is value else kept, sha, kept)
        return sha, kept

    def prepare(
        self,
        model: str,
        messages: Sequence[dict[str, Any]],
        tools: Sequence[dict[str, Any]],
        seed: int,
        params: dict[str, int | float | str | bool],
    ) -> Prepared:
        """The recorded form of a request (secrets scrubbed) and its identity."""
        hashed = [self._blob(m) for m in messages]
        sent_tools = self._blob(tools) if tools else None
        # built from values the gateway made itself: validating them again would only cost
        request = CallRequest.model_construct(
            model=model,
            messages=tuple(h for h, _ in hashed),
            tools=None if sent_tools is None else sent_tools[0],
            seed=seed,
            params=dict(params),
        )
        expanded = ExpandedRequest(
            model=model,
            messages=tuple(v for _, v in hashed),
            tools=None if sent_tools is None else tuple(sent_tools[1]),
            seed=seed,
            params=params,
        )
        return Prepared(request, request.sha(), expanded)

    def _add(self, p: Prepared, reply: CallReply) -> None:
        self.calls.append(ModelCall(request_sha=p.sha, request=p.request, reply=reply))

    def recorded(self, p: Prepared, wire: str) -> Answer | None:
        """The answer the record gives ``p`` (a replay's next call, or a cached reply), or
        None: ask the model. A replay's divergence is an answer that fails."""
        if self.replay is not None:
            return self._replayed(p, wire)
        hit = self.cache.get(p.sha)
        if hit is None:
            return None
        sha, _ = self._blob(hit.message)
        self._add(p, CallReply(message=sha, usage=hit.usage, wire=wire, cached=True))
        return Answer(copy.deepcopy(hit.message), None, hit.usage)

    def _replayed(self, p: Prepared, wire: str) -> Answer:
        assert self.replay is not None
        i = len(self.calls)
        if i >= len(self.replay):
            return self._diverged(
                f"call {i + 1} was not made in the recorded trial ({len(self.replay)} calls)"
            )
        rec = self.replay[i]
        if rec.request_sha != p.sha:
            where = first_difference(rec.request, p.expanded)
            return self._diverged(f"call {i + 1}'s request differs from the record at {where}")
        if rec.message is None:
            error = rec.error or "the recorded call failed"
            self._add(p, CallReply(message=None, error=error, usage=rec.usage, wire=wire))
            return Answer(None, error, rec.usage)
        sha, _ = self._blob(rec.message)
        self._add(p, CallReply(message=sha, usage=rec.usage, wire=wire))
        return Answer(copy.deepcopy(rec.message), None, rec.usage)

    def _diverged(self, why: str) -> Answer:
        self.divergence = why
        return Answer(None, f"replay diverged: {why}", CallUsage())

    def answered(self, p: Prepared, message: dict[str, Any], usage: CallUsage, wire: str) -> None:
        """Record the model's reply to ``p`` (and tell the journal)."""
        sha, kept = self._blob(message)
        self._add(p, CallReply(message=sha, usage=usage, wire=wire))
        if self.journal is not None:
            reply = CachedReply(message=kept, usage=usage, wire=wire)
            self.journal(
                CacheEntry(
                    request_sha=p.sha, model=p.request.model, seed=p.request.seed, reply=reply
                )
            )

    def failed(self, p: Prepared, reason: str, wire: str) -> None:
        """Record that ``p`` failed after its retries, and why (secrets scrubbed)."""
        error = str(scrub(reason, self.secrets))
        self._add(p, CallReply(message=None, error=error, wire=wire))

    def unreplayed(self) -> str | None:
        """After a replay: the divergence, or that the trial made fewer calls than recorded."""
        if (
            self.divergence is None
            and self.replay is not None
            and len(self.calls) < len(self.replay)
        ):
            self.divergence = (
                f"the replay made {len(self.calls)} calls, the recorded trial {len(self.replay)}"
            )
        return self.divergence

    def document(self) -> str:
        """Hash of the trial's :class:`CallDocument`, kept among the blobs."""
        doc = CallDocument(calls=tuple(self.calls))
        data = canonical(doc.model_dump(mode="json"))
        sha = sha256(data)
        self.blobs[sha] = data
        return sha


def current_log() -> CallLog | None:
    """The call log of the trial running in this task, if the runner opened one."""
    return _CURRENT.get()


@contextmanager
def recording(log: CallLog) -> Iterator[CallLog]:
    """Record (and answer from the record) the model calls made in this context."""
    token = _CURRENT.set(log)
    try:
        yield log
    finally:
        _CURRENT.reset(token)
