"""Running the service with uvicorn: in the foreground (`vwt serve`), or in a thread for tests."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import requires, version
from pathlib import Path
from typing import TextIO

import uvicorn
from starlette.applications import Starlette
from uvicorn.protocols.http.h11_impl import H11Protocol

from service._app import create_app
from service._limits import ServiceLimits
from service.errors import ServiceError

DEFAULT_HOST = "127.0.0.1"
"""Loopback only: put a reverse proxy in front for TLS and outside access."""
DEFAULT_PORT = 8470
"""The service's default port."""
_START_SECONDS = 10.0
"""How long a background server may take to start or stop."""


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` (0: any free port), ready for uvicorn."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except OSError as e:
        raise ServiceError(
            f"cannot listen on {host}:{port} ({e.strerror or e})", "pass an address of this host"
        ) from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as e:
        sock.close()
        raise ServiceError(
            f"cannot listen on {host}:{port} ({e.strerror or e})",
            "pick another --port, or stop what listens there",
        ) from None
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    """The http:// base URL of the bound ``sock``."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def _protocol(head_seconds: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection whose next request head has not arrived
    ``head_seconds`` after it connected or after the last answer (slow or idle clients).

    uvicorn has no public setting for this (its keep-alive timeout restarts on every byte and
    does not cover a connection's first request; ASGI middleware runs only once a head is
    whole), so this extends its private ``H11Protocol``: its ``on_response_complete`` hook
    and its ``cycle`` (the request in progress). pyproject.toml pins uvicorn below the next
    minor release for that; tests/service/test_server.py fails on a release that breaks it. A
    uvicorn without the hook is refused here rather than served without the deadline.
    """
    if not callable(getattr(H11Protocol, "on_response_complete", None)):
        wanted = next((r for r in requires("vwt") or [] if r.startswith("uvicorn")), "uvicorn")
        raise ServiceError(
            f"uvicorn {version('uvicorn')} has no H11Protocol.on_response_complete, which the "
            "request head deadline of `vwt serve` extends",
            f"install the uvicorn vwt supports: pip install '{wanted}'",
        )

    class HeadDeadline(H11Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)  # type: ignore[arg-type]
            self._expect_head()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._expect_head()

        def _expect_head(self) -> None:
            self.loop.call_later(head_seconds, self._head_due, self.cycle)

        def _head_due(self, waiting_after: object) -> None:
            if self.cycle is waiting_after and not self.transport.is_closing():
                self.transport.close()  # no new request began meanwhile

    return HeadDeadline


def _server(app: Starlette, limits: ServiceLimits, trusted: tuple[str, ...] = ()) -> uvicorn.Server:
    config = uvicorn.Config(
        app,
        http=_protocol(limits.head_seconds),
        # X-Forwarded-For only from the proxies named (uvicorn believes any on 127.0.0.1 by
        # default, and FORWARDED_ALLOW_IPS of the environment): none unless asked
        proxy_headers=bool(trusted),
        forwarded_allow_ips=list(trusted),
        lifespan="off",
        access_log=False,  # the app writes its own access log, one JSON line per request
        log_level="warning",
        server_header=False,
        timeout_graceful_shutdown=5,
    )
    return uvicorn.Server(config)


def serve(
    home: Path,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    limits: ServiceLimits | None = None,
    *,
    on_ready: Callable[[str], None] | None = None,
    trusted: tuple[str, ...] = (),
) -> None:
    """Serve the cycle in ``home`` at ``host``:``port`` until interrupted (Ctrl-C, SIGTERM).

    The cycle is checked and the port bound before ``on_ready`` gets the base URL.
    ``trusted`` names the reverse proxies (see :func:`trusted_proxies`) whose
    ``X-Forwarded-For`` gives the client's address; by default none.
    """
    limits = limits or ServiceLimits()
    server = _server(create_app(home, limits), limits, trusted)
    sock = listen(host, port)
    try:
        if on_ready is not None:
            on_ready(url_of(sock))
        server.run(sockets=[sock])
    finally:
        sock.close()


@contextmanager
def running_server(
    home: Path,
    limits: ServiceLimits | None = None,
    port: int = 0,
    *,
    access_log: TextIO | None = None,
    trusted: tuple[str, ...] = (),
) -> Iterator[str]:
    """The service of ``home`` on loopback in a background thread; yields its base URL.

    ``port`` 0 takes a free port; ``trusted`` as for :func:`serve`. Stopped (and joined) on
    leaving.
    """
    limits = limits or ServiceLimits()
    server = _server(create_app(home, limits, access_log=access_log), limits, trusted)
    sock = listen(DEFAULT_HOST, port)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="vwt-serve", daemon=True
    )
    thread.start()
    try:
        deadline = time.monotonic() + _START_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise ServiceError("the service did not start", "see the errors above")
            time.sleep(0.01)
        yield url_of(sock)
    finally:
        server.should_exit = True
        thread.join(_START_SECONDS)
        sock.close()
