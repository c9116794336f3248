"""The service's ASGI app: every route, uniform errors, the access log."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response

from service._access import AccessLog, access_record
from service._http import Service, error_response, internal_error
from service._limits import ServiceLimits
from service._routes_operator import operator_routes
from service._routes_public import public_routes
from service._routes_submitter import submitter_routes
from service.errors import ServiceError


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no route: 404, a route without the method: 405), uniform."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        error = ServiceError(
            f"{request.method} is not allowed here",
            f"this route answers {exc.headers.get('Allow', 'GET') if exc.headers else 'GET'}",
            status=405,
            code="method_not_allowed",
        )
    elif exc.status_code == 404:
        error = ServiceError(
            "no such route", "see GET / for the service's links", status=404, code="not_found"
        )
    else:
        error = ServiceError("bad request", None, status=exc.status_code, code="bad_request")
    access_record(request).code = error.code
    response = error_response(error)
    response.headers.update(exc.headers or {})
    return response


async def _crash(request: Request, exc: Exception) -> Response:
    return internal_error()


def create_app(
    home: Path, limits: ServiceLimits | None = None, *, access_log: TextIO | None = None
) -> Starlette:
    """The service of the cycle in ``home`` (opened and checked now) under ``limits``.

    ``access_log`` receives one JSON line per request (default: stderr at the time).
    """
    service = Service.start(home, limits or ServiceLimits())
    app = Starlette(
        routes=[*public_routes(), *submitter_routes(), *operator_routes()],
        middleware=[Middleware(AccessLog, stream=access_log)],
        exception_handlers={HTTPException: _http_error, Exception: _crash},
    )
    app.state.service = service
    return app
