"""`vwt serve`: the operator's HTTP service for the cycle in --home (submitters upload there)."""

from __future__ import annotations

import contextlib
import ipaddress
import sys
from typing import Annotated

import typer

from conditions import Cycle
from service import DEFAULT_HOST, DEFAULT_PORT, ServiceLimits, trusted_proxies
from service import serve as run_service
from submissions import MAX_BUNDLE_BYTES
from vwt._common import DEFAULT_HOME, Home, err_console, user_errors

_DEFAULTS = ServiceLimits()


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@user_errors
def serve(
    home: Home = DEFAULT_HOME,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on. The default, loopback, is reached only from this "
            "machine: put a reverse proxy (nginx, Caddy…) in front for TLS and outside access.",
        ),
    ] = DEFAULT_HOST,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="TCP port (0: any free port).")
    ] = DEFAULT_PORT,
    requests_per_minute: Annotated[
        int,
        typer.Option(
            "--requests-per-minute", min=1, help="Requests per token (anonymous: per address)."
        ),
    ] = _DEFAULTS.requests_per_minute,
    file_requests_per_minute: Annotated[
        int,
        typer.Option(
            "--file-requests-per-minute",
            min=1,
            help="Requests for published release files per token (anonymous: per address).",
        ),
    ] = _DEFAULTS.file_requests_per_minute,
    uploads_per_minute: Annotated[
        int, typer.Option("--uploads-per-minute", min=1, help="Uploads per token.")
    ] = _DEFAULTS.uploads_per_minute,
    concurrent_uploads: Annotated[
        int,
        typer.Option("--concurrent-uploads", min=1, help="Uploads in progress, all tokens."),
    ] = _DEFAULTS.concurrent_uploads,
    concurrent_uploads_per_token: Annotated[
        int,
        typer.Option(
            "--concurrent-uploads-per-token", min=1, help="Uploads in progress per token."
        ),
    ] = _DEFAULTS.concurrent_uploads_per_token,
    head_seconds: Annotated[
        float,
        typer.Option(
            "--head-seconds",
            min=0.1,
            help="Seconds a connection may take to send a request's head (idle ones closed).",
        ),
    ] = _DEFAULTS.head_seconds,
    upload_seconds: Annotated[
        float,
        typer.Option(
            "--upload-seconds", min=0.1, help="Seconds an upload's body may take to arrive."
        ),
    ] = _DEFAULTS.upload_seconds,
    max_upload_bytes: Annotated[
        int,
        typer.Option(
            "--max-upload-bytes",
            min=1,
            max=MAX_BUNDLE_BYTES,
            help="Largest upload accepted (at most the packed-bundle limit).",
        ),
    ] = _DEFAULTS.max_body_bytes,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            help="Address (or network, e.g. 10.0.0.0/8) of a reverse proxy whose "
            "X-Forwarded-For names the client, for the access log and the per-address limits; "
            "repeatable. Default none: every client is the address it connects from.",
        ),
    ] = None,
) -> None:
    """Serve the cycle over HTTP: the public record to all, uploads to submitters' tokens.

    Until Ctrl-C: the schedule, commitment, dev kit, reveal and release to anyone; uploads,
    receipts and adaptation kits to submitters' tokens (`vwt submitters add`).

    Plain HTTP: TLS belongs to a reverse proxy in front. One JSON line per request goes to
    stderr, and every upload attempt of an account (but 429s) to the cycle's ledger. State
    changes stay with the CLI.
    """
    limits = ServiceLimits(
        requests_per_minute=requests_per_minute,
        file_requests_per_minute=file_requests_per_minute,
        uploads_per_minute=uploads_per_minute,
        concurrent_uploads=concurrent_uploads,
        concurrent_uploads_per_token=concurrent_uploads_per_token,
        head_seconds=head_seconds,
        upload_seconds=upload_seconds,
        max_body_bytes=max_upload_bytes,
    )
    trusted = trusted_proxies(trusted_proxy or ())
    cycle = Cycle.open(home)

    def ready(url: str) -> None:
        print(f"serving cycle {cycle.id} (state {cycle.state.value}) at {url}", flush=True)
        notes = [
            "plain HTTP: for TLS and outside access put a reverse proxy (nginx, Caddy…) in "
            "front of it",
            f"limits per token: {limits.requests_per_minute} requests (release files: "
            f"{limits.file_requests_per_minute}) and "
            f"{limits.uploads_per_minute} uploads per minute, {limits.concurrent_uploads_per_token}"
            f" uploads at once ({limits.concurrent_uploads} in all), {limits.max_body_bytes:,} "
            f"bytes and {limits.upload_seconds:g} s per upload, {limits.head_seconds:g} s per "
            "request head",
            "access log: one JSON line per request on stderr; client addresses "
            + (
                f"from X-Forwarded-For of {', '.join(trusted)}"
                if trusted
                else "as connected (no --trusted-proxy)"
            )
            + "; Ctrl-C stops",
        ]
        if not _loopback(host):
            notes.insert(0, f"warning: {host} is not loopback and this server has no TLS")
        for note in notes:
            err_console.print(note, markup=False, highlight=False, soft_wrap=True)
        sys.stderr.flush()

    # uvicorn stops gracefully on Ctrl-C, then passes it on, or (when it arrives while uvicorn
    # is between steps) just returns: either way the server has stopped
    with contextlib.suppress(KeyboardInterrupt):
        run_service(home, host, port, limits, on_ready=ready, trusted=trusted)
    err_console.print("stopped", highlight=False)
