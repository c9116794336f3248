"""Submitter routes (a submitter token): upload a bundle, read one's own submissions and
receipts, and in the adaptation phase one's own kits and adapted uploads.

A submitter asking for another submitter's thing gets 404, as for a thing that does not exist.
Uploads are validated outside the submission lock; the owner check, ``submit`` and the name's
binding run under it, in a worker thread, so two uploads never race for one name.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from conditions import Cycle, CycleState
from service._access import access_record
from service._accounts import Account
from service._http import Service, get, upload_endpoint
from service._state import require_state
from service._upload import received_body
from service.errors import ServiceError
from submissions import SUBMISSION_EVENT, Bundle, SubmissionError, read_bundle_file, shown, submit


def _own(account: Account | None) -> str:
    assert account is not None  # submitter routes are served to an authenticated account
    return account.name


def _require_open(cycle: Cycle) -> None:
    """Refuse uploads unless the cycle is open and its closes_at has not passed."""
    require_state(cycle, CycleState.open, "uploads are accepted only while it is open")
    closes_at = datetime.fromisoformat(cycle.spec.closes_at.replace("Z", "+00:00"))
    if datetime.now(UTC) > closes_at:
        raise ServiceError(
            f"submissions to cycle {cycle.id} closed at {cycle.spec.closes_at}",
            "a late submission is the operator's decision; contact the operator",
            status=409,
            code="wrong_state",
        )


def _validated(path: Path) -> Bundle:
    """The uploaded bundle at ``path``, validated as `vwt submissions validate` does."""
    try:
        return read_bundle_file(path)
    except SubmissionError as e:
        message = str(e).replace(shown(str(path)), "the uploaded bundle")
        raise ServiceError(message, e.hint, status=400, code="invalid_bundle") from None


def _accept(service: Service, bundle: Bundle, submitter: str) -> dict[str, Any]:
    """Under the submission lock: check the name's owner, submit, bind the name; the receipt.

    A submitter revoked while its upload was on the way keeps the accepted submission (its
    receipt is signed and in the ledger) but not the name, which is logged to stderr.
    """
    name = bundle.manifest.name
    with service.submitting:
        cycle = service.cycle()
        _require_open(cycle)
        owner = service.accounts.owner(name)
        if owner is not None and owner != submitter:
            raise ServiceError(
                f"submission name {name} belongs to another submitter",
                "pick another name in vwt-bundle.json",
                status=403,
                code="forbidden",
            )
        try:
            receipt = submit(cycle, bundle, submitter=submitter)
        except SubmissionError as e:  # taken name@version, bundle already submitted
            home = str(service.home)
            raise ServiceError(
                str(e).replace(home, "HOME"),
                e.hint and e.hint.replace(home, "HOME"),
                status=409,
                code="conflict",
            ) from None
        try:
            service.accounts.bind(name, submitter)
        except ServiceError as e:  # revoked meanwhile: the bundle is in, receipted; say so
            print(f"warning: {submitter}'s {name} was accepted but not bound: {e}", file=sys.stderr)
    return {"receipt": receipt.model_dump(mode="json")}


async def upload(request: Request, service: Service, account: Account | None) -> Response:
    """POST /api/v1/submissions: the packed bundle as the body; 201 with the signed receipt."""
    submitter = _own(account)
    await run_in_threadpool(lambda: _require_open(service.cycle()))
    async with received_body(request, service.tmp, service.limits) as path:
        bundle = await run_in_threadpool(_validated, path)
    access_record(request).bundle_hash = bundle.hash
    answer = await run_in_threadpool(_accept, service, bundle, submitter)
    return JSONResponse(answer, status_code=201)


def _own_entries(cycle: Cycle, submitter: str) -> list[dict[str, Any]]:
    return [
        e.payload
        for e in cycle.ledger.entries(SUBMISSION_EVENT)
        if e.payload.get("submitter") == submitter
    ]


def listed(payload: dict[str, Any]) -> dict[str, Any]:
    """One submission as the listing routes show it."""
    return {
        "name": payload["name"],
        "version": payload["version"],
        "bundle_hash": payload["bundle_hash"],
        "received_at": payload["receipt"]["receipt"]["received_at"],
        "late": bool(payload.get("late", False)),
    }


async def submissions(request: Request, service: Service, account: Account | None) -> Response:
    """GET /api/v1/submissions: the caller's own submissions, in the order received."""
    submitter = _own(account)
    own = await run_in_threadpool(lambda: _own_entries(service.cycle(), submitter))
    return JSONResponse({"submissions": [listed(p) for p in own]})


async def receipt(request: Request, service: Service, account: Account | None) -> Response:
    """GET /api/v1/submissions/{bundle_hash}/receipt: the receipt of one's own submission."""
    submitter, wanted = _own(account), request.path_params["bundle_hash"]
    own = await run_in_threadpool(lambda: _own_entries(service.cycle(), submitter))
    for payload in own:
        if payload["bundle_hash"] == wanted:
            return JSONResponse(payload["receipt"])
    raise ServiceError(
        "no submission of yours has that bundle hash",
        "see GET /api/v1/submissions for yours",
        status=404,
        code="not_found",
    )


async def adaptation_pairs(request: Request, service: Service, account: Account | None) -> Response:
    """GET /api/v1/adaptation: the caller's (submission, target) pairs, in state adaptation."""
    from service._adaptation import list_pairs

    submitter = _own(account)
    pairs = await run_in_threadpool(lambda: list_pairs(service.cycle(), submitter))
    return JSONResponse({"pairs": pairs})


async def adaptation_kit(request: Request, service: Service, account: Account | None) -> Response:
    """GET /api/v1/adaptation/{submission}/{target}/kit: one's own kit, as a tar.gz."""
    from service._adaptation import kit_archive

    submitter, params = _own(account), request.path_params
    data = await run_in_threadpool(
        lambda: kit_archive(service.cycle(), submitter, params["submission"], params["target"])
    )
    return Response(data, media_type="application/gzip")


def _minutes(request: Request) -> int:
    text = request.query_params.get("minutes", "")
    if not text.isascii() or not text.isdigit():
        raise ServiceError(
            "the adapted upload needs ?minutes=M, the whole minutes the adaptation took",
            "add ?minutes=M to the URL (a whole number, 0 or more)",
        )
    return int(text)


async def adapted_upload(request: Request, service: Service, account: Account | None) -> Response:
    """POST /api/v1/adaptation/{submission}/{target}?minutes=M: the adapted bundle; 201."""
    from service._adaptation import import_upload

    submitter, params = _own(account), request.path_params
    minutes = _minutes(request)
    await run_in_threadpool(
        lambda: require_state(
            service.cycle(), CycleState.adaptation, "adapted uploads are open only then"
        )
    )
    async with received_body(request, service.tmp, service.limits) as path:

        def accept() -> dict[str, Any]:
            with service.submitting:
                cycle = service.cycle()
                return import_upload(
                    cycle, submitter, params["submission"], params["target"], path, minutes
                )

        outcome = await run_in_threadpool(accept)
    return JSONResponse({"adaptation": outcome}, status_code=201)


def submitter_routes() -> list[Route]:
    """The routes of submitter accounts."""
    return [
        Route(
            "/api/v1/submissions",
            upload_endpoint("/api/v1/submissions", upload),
            methods=["POST"],
        ),
        get("/api/v1/submissions", submissions, role="submitter"),
        get("/api/v1/submissions/{bundle_hash}/receipt", receipt, role="submitter"),
        get("/api/v1/adaptation", adaptation_pairs, role="submitter"),
        get("/api/v1/adaptation/{submission}/{target}/kit", adaptation_kit, role="submitter"),
        Route(
            "/api/v1/adaptation/{submission}/{target}",
            upload_endpoint("/api/v1/adaptation/{submission}/{target}", adapted_upload),
            methods=["POST"],
        ),
    ]
