"""Receiving an upload: the body streamed to a temporary file, size-capped and time-limited."""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from starlette.requests import ClientDisconnect, Request

from service._access import access_record
from service._limits import ServiceLimits
from service.errors import ServiceError

UPLOAD_PREFIX = "upload-"
"""How the name of an upload's temporary file under HOME/tmp starts."""
_SIZE_HINT = "a packed bundle is at most {:,} bytes: shrink or drop artifacts"


def declared_length(request: Request, limits: ServiceLimits) -> int | None:
    """The body length the request declares, checked before any of the body is read.

    None for a chunked body (its size is checked as it arrives). Refuses a body of no declared
    length (411), a malformed Content-Length (400) and one over ``limits.max_body_bytes`` (413).
    """
    header = request.headers.get("content-length")
    if header is None:
        if "chunked" in request.headers.get("transfer-encoding", "").lower():
            return None
        raise ServiceError(
            "the upload has no Content-Length",
            "send the packed bundle file as the request body with its Content-Length",
            status=411,
            code="length_required",
        )
    if not header.isascii() or not header.isdigit():
        raise ServiceError(
            "the Content-Length header is not a number of bytes", "send a valid Content-Length"
        )
    length = int(header)
    if length > limits.max_body_bytes:
        raise ServiceError(
            f"the upload is {length:,} bytes, over the limit of {limits.max_body_bytes:,}",
            _SIZE_HINT.format(limits.max_body_bytes),
            status=413,
            code="too_large",
        )
    return length


@asynccontextmanager
async def received_body(
    request: Request, folder: Path, limits: ServiceLimits
) -> AsyncIterator[Path]:
    """Stream the request body to a new private file under ``folder``; yield its path.

    The size cap is checked again as the body arrives (413), the whole body must arrive within
    ``limits.upload_seconds`` (408), and a client that disconnects early is refused (400). The
    file is removed on leaving, whatever happened. Bytes received are counted in the request's
    access record.
    """
    declared_length(request, limits)
    record = access_record(request)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=UPLOAD_PREFIX, suffix=".part", dir=folder)
    path = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                with anyio.fail_after(limits.upload_seconds):
                    async for chunk in request.stream():
                        record.bytes_in += len(chunk)
                        if record.bytes_in > limits.max_body_bytes:
                            raise ServiceError(
                                f"the upload grew past the limit of {limits.max_body_bytes:,} "
                                "bytes",
                                _SIZE_HINT.format(limits.max_body_bytes),
                                status=413,
                                code="too_large",
                            )
                        out.write(chunk)
            except TimeoutError:
                raise ServiceError(
                    f"the upload did not arrive within {limits.upload_seconds:g} seconds",
                    "upload over a faster connection, or ask the operator about the time limit",
                    status=408,
                    code="timeout",
                ) from None
            except ClientDisconnect:
                raise ServiceError(
                    "the upload was cut off before its end", "send the whole packed bundle again"
                ) from None
        yield path
    finally:
        path.unlink(missing_ok=True)
