"""What every route shares: the service's state, uniform error bodies, auth, limits, logging."""

from __future__ import annotations

import os
import sys
import threading
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from conditions import PASSPHRASE_ENV, Cycle, Ledger, LedgerMark
from service._access import AccessRecord, access_record, append_upload
from service._accounts import Account, Accounts, Role
from service._limits import RateLimiter, ServiceLimits, UploadSlots
from service._upload import UPLOAD_PREFIX
from service.errors import ServiceError

INTERNAL = "internal error"
"""The message of every 500 answer: nothing about what went wrong leaves the server."""


@dataclass
class Service:
    """The state one app keeps: the cycle home, its accounts, limits and the submission lock."""

    home: Path
    limits: ServiceLimits
    accounts: Accounts
    requests: RateLimiter
    files: RateLimiter
    uploads: RateLimiter
    slots: UploadSlots
    ledger: Ledger
    submitting: threading.Lock = field(default_factory=threading.Lock)
    verified_to: LedgerMark | None = None

    @classmethod
    def start(cls, home: Path, limits: ServiceLimits) -> Service:
        """The state of a service for the cycle in ``home``, which is opened and checked once.

        The signing key is loaded once, so a missing passphrase (``VWT_KEY_PASSPHRASE``) is
        refused now rather than at the first upload. Upload files left in HOME/tmp by a
        server that was killed are removed: one server serves a home at a time. The home is
        made absolute, so messages name it by a path that appears nowhere else in them.
        """
        home = home.resolve()
        cycle = Cycle.open(home, passphrase=os.environ.get(PASSPHRASE_ENV))
        cycle.sign(b"vwt serve: the key signs receipts")
        ledger = cycle.ledger
        for stale in (home / "tmp").glob(f"{UPLOAD_PREFIX}*"):
            stale.unlink(missing_ok=True)
        return cls(
            home=home,
            limits=limits,
            accounts=Accounts(home),
            requests=RateLimiter(limits.requests_per_minute),
            files=RateLimiter(limits.file_requests_per_minute),
            uploads=RateLimiter(limits.uploads_per_minute),
            slots=UploadSlots(limits.concurrent_uploads, limits.concurrent_uploads_per_token),
            ledger=ledger,
            verified_to=cycle.verified_to,
        )

    @property
    def tmp(self) -> Path:
        """Where uploads are received: HOME/tmp."""
        return self.home / "tmp"

    def cycle(self) -> Cycle:
        """The cycle, opened afresh (the operator's CLI moves it on meanwhile); blocking.

        The ledger was checked whole at start; each request checks only the entries since
        the last request's check, so a request costs the same however long the ledger is.
        """
        cycle = Cycle.open(
            self.home, passphrase=os.environ.get(PASSPHRASE_ENV), verified=self.verified_to
        )
        self.verified_to = cycle.verified_to
        return cycle


def service_of(request: Request) -> Service:
    """The service state of the app serving ``request``."""
    service: Service = request.app.state.service
    return service


class RateLimited(ServiceError):
    """A caller over a rate or concurrency limit: 429 with the seconds to wait."""

    def __init__(self, message: str, retry_after: int) -> None:
        """Refuse for ``retry_after`` seconds."""
        super().__init__(
            message,
            f"wait {retry_after} s and try again",
            status=429,
            code="rate_limited",
        )
        self.retry_after = retry_after


def error_response(error: ServiceError, *, close: bool = False) -> JSONResponse:
    """The uniform error body of ``error``; ``close`` ends the connection after it."""
    body = {
        "error": {
            "status": error.status,
            "code": error.code,
            "message": str(error),
            "hint": error.hint,
        }
    }
    headers = {"Retry-After": str(error.retry_after)} if isinstance(error, RateLimited) else {}
    if error.status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    if close:
        headers["Connection"] = "close"
    return JSONResponse(body, status_code=error.status, headers=headers)


def internal_error() -> JSONResponse:
    """The 500 answer; the traceback of the exception being handled goes to stderr only."""
    traceback.print_exc(file=sys.stderr)
    return error_response(ServiceError(INTERNAL, None, status=500, code="internal"))


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


UNAUTHORIZED = ServiceError(
    "missing, unknown or revoked token",
    "send `Authorization: Bearer <token>` with the token the operator gave you",
    status=401,
    code="unauthorized",
)


Handler = Callable[[Request, Service, Account | None], Awaitable[Response]]
"""A route's own code: the request, the service, and the caller's account (None: anonymous)."""


async def _caller(request: Request, service: Service, role: Role | None) -> Account | None:
    """The account a route for ``role`` serves (None for a public route); 401 or 403 if none."""
    if role is None:
        return None
    account = await run_in_threadpool(service.accounts.authenticate, bearer_token(request))
    if account is None:  # bad tokens count against the address, so guessing is rate-limited
        _rate(service.requests, f"addr:{_address(request)}", "requests")
        raise UNAUTHORIZED
    access_record(request).who = account.name
    if account.role != role:
        raise ServiceError(
            f"this route is for {role} accounts; {account.name} is an account of another kind",
            "use a token of the right kind of account",
            status=403,
            code="forbidden",
        )
    return account


def _rate(limiter: RateLimiter, caller: str, what: str) -> None:
    wait = limiter.take(caller)
    if wait:
        raise RateLimited(f"too many {what}", wait)


def endpoint(route: str, handler: Handler, *, role: Role | None = None, files: bool = False) -> Any:
    """The Starlette endpoint of ``handler`` at ``route``: caller checked and rate-limited
    (``files``: at the rate for published release files), any ServiceError answered with its
    uniform body, any other exception a uniform 500."""

    async def serve(request: Request) -> Response:
        record = access_record(request)
        record.route = route
        service = service_of(request)
        try:
            account = await _caller(request, service, role)
            key = account.name if account else f"addr:{_address(request)}"
            if files:
                _rate(service.files, key, "requests for release files")
            else:
                _rate(service.requests, key, "requests")
            return await handler(request, service, account)
        except ServiceError as e:
            record.code = e.code
            return error_response(e)
        except Exception:
            record.code = "internal"
            return internal_error()

    return serve


def get(path: str, handler: Handler, *, role: Role | None = None, files: bool = False) -> Route:
    """The GET route at ``path`` served by ``handler`` (see :func:`endpoint`)."""
    return Route(path, endpoint(path, handler, role=role, files=files), methods=["GET"])


def upload_endpoint(route: str, handler: Handler) -> Any:
    """Like :func:`endpoint` for a submitter's upload: also the upload rate and concurrency
    caps, a refusal before the body is read ends the connection, and every attempt of an
    account within its rates, accepted or refused, is appended to the ledger
    (``service.upload``). Attempts without a valid token and those refused for a rate or a
    cap (429) are in the access log only: no one grows the ledger faster than their
    account's upload rate allows."""

    async def serve(request: Request) -> Response:
        record = access_record(request)
        record.route = route
        service = service_of(request)
        response: Response
        try:
            response = await _upload(request, service, handler, record)
        except Exception:
            record.code = "internal"
            response = internal_error()
        if record.who is None or response.status_code == 429:
            return response
        try:
            await run_in_threadpool(append_upload, service.ledger, record, response.status_code)
        except Exception:
            traceback.print_exc(file=sys.stderr)
        return response

    return serve


async def _upload(
    request: Request, service: Service, handler: Handler, record: AccessRecord
) -> Response:
    try:
        account = await _caller(request, service, "submitter")
        assert account is not None
        key = account.name
        _rate(service.requests, key, "requests")
        _rate(service.uploads, key, "uploads")
    except ServiceError as e:
        record.code = e.code
        return error_response(e, close=True)
    if not service.slots.acquire(key):
        record.code = "rate_limited"
        busy = RateLimited("too many uploads in progress; wait for one to finish", 1)
        return error_response(busy, close=True)
    try:
        return await handler(request, service, account)
    except ServiceError as e:
        record.code = e.code
        return error_response(e, close=e.status in (408, 411, 413) or record.bytes_in == 0)
    finally:
        service.slots.release(key)


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"
