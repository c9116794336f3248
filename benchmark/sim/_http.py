"""A small threaded HTTP/1.1 server that hands each request to one routing function."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

MAX_BODY = 32 * 1024 * 1024
"""Largest request body read (bytes); larger requests get 413."""


@dataclass(frozen=True)
class Reply:
    """An HTTP response: JSON ``body`` with ``status`` and extra ``headers``, or (``body``
    None) a dropped connection."""

    status: int
    body: bytes | None
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Request:
    """One HTTP request as a route sees it."""

    method: str
    path: str
    """The path without its query string or a trailing slash."""
    body: bytes = b""
    query: Mapping[str, str] = field(default_factory=dict)
    """Query parameters (the last value of a repeated one)."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Header values by lower-cased name."""


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()


Route = Callable[[Request], Reply]
"""request → reply."""


class _Handler(BaseHTTPRequestHandler):
    server: HTTPServer
    protocol_version = "HTTP/1.1"
    timeout = 60  # idle keep-alive connections are closed after a minute

    def do_GET(self) -> None:
        self._handle(b"")

    def do_POST(self) -> None:
        size = self.headers.get("Content-Length", "")
        if not size.isdigit() or int(size) > MAX_BODY:
            # the body is left unread, so this connection cannot carry another request
            self.close_connection = True
            problem = "a Content-Length" if not size.isdigit() else f"at most {MAX_BODY} bytes"
            self._send(Reply(411 if not size.isdigit() else 413, _error(f"send {problem}")))
            return
        self._handle(self.rfile.read(int(size)))

    def _handle(self, body: bytes) -> None:
        url = urlsplit(self.path)
        request = Request(
            method=self.command,
            path=url.path.rstrip("/"),
            body=body,
            query=dict(parse_qsl(url.query)),
            headers={k.lower(): v for k, v in self.headers.items()},
        )
        reply = self.server.route(request)
        if reply.body is None:
            self.close_connection = True
            return
        self._send(reply)

    def _send(self, reply: Reply) -> None:
        body = reply.body or b""
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in reply.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (e.g. its timeout passed)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the server reports through its own log callback."""


class HTTPServer(ThreadingHTTPServer):
    """Threaded server that remembers its open connections so closing it ends them too."""

    daemon_threads = True
    request_queue_size = 1024
    """Pending connections the socket accepts (socketserver's 5 drops bursts of new clients,
    which then wait a SYN retry of a second or more)."""

    def __init__(self, address: tuple[str, int], route: Route) -> None:
        self.route = route
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Track the connection, then serve it in its own thread."""
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        """Forget the connection and close it."""
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """End every open connection (keep-alive ones would otherwise outlive the server)."""
        with self._open_lock:
            open_now = list(self._open)
        for sock in open_now:
            with contextlib.suppress(OSError):  # already closed by the client
                sock.shutdown(socket.SHUT_RDWR)
