"""Operator routes (an operator token): every submission with its submitter, and the upload
access log. Nothing here reveals a target; state transitions stay with the operator's CLI."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from service._access import UPLOAD_EVENT
from service._accounts import Account
from service._http import Service, get
from service._routes_submitter import listed
from submissions import SUBMISSION_EVENT


async def all_submissions(request: Request, service: Service, account: Account | None) -> Response:
    """GET /api/v1/operator/submissions: every submission and who uploaded it (null: the CLI)."""

    def read() -> list[dict[str, Any]]:
        entries = service.cycle().ledger.entries(SUBMISSION_EVENT)
        return [listed(e.payload) | {"submitter": e.payload.get("submitter")} for e in entries]

    return JSONResponse({"submissions": await run_in_threadpool(read)})


async def access_log(request: Request, service: Service, account: Account | None) -> Response:
    """GET /api/v1/operator/access-log: every upload attempt of an account, accepted or
    refused (but for 429s)."""

    def read() -> list[dict[str, Any]]:
        entries = service.cycle().ledger.entries(UPLOAD_EVENT)
        return [{"seq": e.seq, "ts": e.ts, **e.payload} for e in entries]

    return JSONResponse({"entries": await run_in_threadpool(read)})


def operator_routes() -> list[Route]:
    """The routes of operator accounts."""
    return [
        get("/api/v1/operator/submissions", all_submissions, role="operator"),
        get("/api/v1/operator/access-log", access_log, role="operator"),
    ]
