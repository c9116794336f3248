"""The access log: one JSON line per request on stderr, and a ledger entry per upload attempt
of an account."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from conditions import Ledger

UPLOAD_EVENT = "service.upload"
"""Ledger kind of an account's upload attempt, accepted or refused (429s and attempts without
a valid token are in the access log only)."""
_MAX_PATH_SHOWN = 200
"""Characters of a request path written to the log."""


@dataclass
class AccessRecord:
    """What a request's handling learns about it, for its log line (filled in as it goes)."""

    who: str | None = None
    route: str | None = None
    code: str | None = None
    bytes_in: int = 0
    bundle_hash: str | None = None


def access_record(request: Request) -> AccessRecord:
    """The record of ``request`` (a fresh one outside the access-log middleware)."""
    state = request.scope.setdefault("state", {})
    record = state.get("vwt.access")
    if not isinstance(record, AccessRecord):
        record = state["vwt.access"] = AccessRecord()
    return record


class AccessLog:
    """ASGI middleware writing one JSON line per HTTP request to ``stream`` (default stderr).

    The line says who (the account name, or null), from which address (the connection's
    peer, or a trusted proxy's ``X-Forwarded-For``: ``vwt serve --trusted-proxy``), the method, the
    route (its template, e.g. ``/api/v1/submissions/{bundle_hash}/receipt``, or null if none
    matched), the path as sent (cut to 200 characters), the status, the bytes received and
    sent, and the milliseconds.
    """

    def __init__(self, app: ASGIApp, stream: TextIO | None = None) -> None:
        """Wrap ``app``; ``stream`` None writes to whatever ``sys.stderr`` is at the time."""
        self.app = app
        self.stream = stream

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        record = AccessRecord()
        scope.setdefault("state", {})["vwt.access"] = record
        started = time.perf_counter()
        status, sent, written = 500, 0, False

        def write() -> None:
            nonlocal written
            written = True
            client = scope.get("client")
            line = {
                "at": now_rfc3339(),
                "who": record.who,
                "client": client[0] if client else None,
                "method": scope["method"],
                "route": record.route,
                "path": scope["path"][:_MAX_PATH_SHOWN],
                "status": status,
                "code": record.code,
                "bytes_in": record.bytes_in,
                "bytes_out": sent,
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }
            stream = self.stream or sys.stderr
            stream.write(json.dumps(line) + "\n")
            stream.flush()

        async def logging_send(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
                if not message.get("more_body", False):
                    write()  # before the client can have the whole answer
            await send(message)

        try:
            await self.app(scope, receive, logging_send)
        finally:
            if not written:  # no whole answer was sent
                write()


def append_upload(ledger: Ledger, record: AccessRecord, status: int) -> None:
    """Append the upload attempt ``record``, answered ``status``, to ``ledger``."""
    payload: dict[str, Any] = {
        "submitter": record.who,
        "route": record.route,
        "status": status,
        "code": record.code,
        "bytes": record.bytes_in,
        "bundle_hash": record.bundle_hash,
        "at": now_rfc3339(),
    }
    ledger.append(UPLOAD_EVENT, payload)


def now_rfc3339() -> str:
    """The current UTC time to the second, RFC 3339 with a 'Z'."""
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
