"""The sim models as a loopback OpenAI-compatible HTTP server, with seeded fault injection.

Standard library only (``http.server`` in a daemon thread), so the real network path of any
OpenAI-compatible client (litellm's included) is exercised against the same policy the
in-process ``sim`` provider runs.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from benchmark.errors import BenchmarkError
from benchmark.sim._answer import answer
from benchmark.sim._catalogue import PROVIDER, SIM_MODELS
from benchmark.sim._faults import Fault, FaultPlan, ServerStats
from benchmark.sim._http import HTTPServer, Reply
from benchmark.sim._wire import (
    MALFORMED_BODIES,
    ChatRequest,
    completion_body,
    error_body,
    models_body,
)

HOST = "127.0.0.1"
_ERROR_KINDS = {
    400: ("invalid_request_error", "invalid_request"),
    401: ("authentication_error", "invalid_api_key"),
    403: ("permission_error", "permission_denied"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("rate_limit_exceeded", "rate_limit_exceeded"),
    500: ("server_error", "server_error"),
    503: ("service_unavailable", "service_unavailable"),
}
"""OpenAI error (type, code) of each injectable status."""


def _json(status: int, body: dict[str, Any]) -> Reply:
    return Reply(status, json.dumps(body).encode())


def _bad_request(message: str) -> Reply:
    return _json(400, error_body(message, "invalid_request_error"))


@dataclass
class _Counter:
    lock: threading.Lock
    stats: ServerStats

    in_flight: int = 0

    def next_index(self) -> int:
        with self.lock:
            self.stats.requests += 1
            self.in_flight += 1
            self.stats.peak_in_flight = max(self.stats.peak_in_flight, self.in_flight)
            return self.stats.requests - 1

    def done(self) -> None:
        with self.lock:
            self.in_flight -= 1

    def count(self, fault: Fault | None = None, answered: bool = False) -> None:
        with self.lock:
            if fault is not None:
                self.stats.faults[fault] += 1
            elif answered:
                self.stats.answered += 1
            else:
                self.stats.rejected += 1


class SimServer:
    """The sim models served over loopback HTTP at ``url`` (a context manager).

    ``POST /v1/chat/completions`` answers as the in-process ``sim/<model>`` would; ``GET
    /v1/models`` lists the catalogue. ``faults`` decides which completion requests fail.
    """

    def __init__(
        self,
        port: int = 0,
        faults: FaultPlan | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:
        self.faults = faults or FaultPlan()
        self._log = log
        self._counter = _Counter(threading.Lock(), ServerStats())
        try:
            self._http = HTTPServer((HOST, port), self._route)
        except OSError as e:
            raise BenchmarkError(
                f"cannot listen on {HOST}:{port}: {e.strerror or e}",
                "choose another port, or 0 for a free one",
            ) from e
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._http.server_address[1])

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL: ``http://127.0.0.1:PORT/v1``."""
        return f"http://{HOST}:{self.port}/v1"

    @property
    def stats(self) -> ServerStats:
        """A snapshot of what has been served so far."""
        with self._counter.lock:
            return self._counter.stats.model_copy(deep=True)

    def start(self) -> SimServer:
        """Start serving in a daemon thread; returns self."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._http.serve_forever, name=f"sim-server-{self.port}", daemon=True
            )
            self._thread.start()
        return self

    def wait(self, timeout: float | None = None) -> None:
        """Block until the server is closed (from another thread or by Ctrl-C), or ``timeout``."""
        if self._thread is not None:
            self._thread.join(timeout)

    def close(self) -> None:
        """Stop serving, close open connections and release the port."""
        if self._thread is not None:
            self._http.shutdown()
            self._thread.join()
            self._thread = None
        self._http.close_connections()
        self._http.server_close()

    def __enter__(self) -> SimServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _route(self, method: str, path: str, body: bytes) -> Reply:
        path = path.split("?", 1)[0].rstrip("/")
        if method == "GET" and path == "/v1/models":
            return _json(200, models_body())
        if method == "POST" and path == "/v1/chat/completions":
            return self._completion(body)
        return _json(404, error_body(f"no route {method} {path}", "invalid_request_error"))

    def _completion(self, body: bytes) -> Reply:
        index = self._counter.next_index()
        try:
            return self._serve(body, index)
        finally:
            self._counter.done()

    def _serve(self, body: bytes, index: int) -> Reply:
        # each connection has its own thread: a delayed request holds up no other
        time.sleep(self.faults.delay_s)
        fault = self.faults.fault_for(index)
        if fault is None:
            reply = self._answer(body, index)
            outcome = "answered" if reply.status == 200 else "rejected"
            self._counter.count(answered=reply.status == 200)
        else:
            reply = self._fault(fault, index)
            outcome = f"fault {fault}"
            self._counter.count(fault)
        if self._log is not None:
            shown = "connection closed" if reply.body is None else f"HTTP {reply.status}"
            self._log(f"request {index}: {outcome} ({shown})")
        return reply

    def _fault(self, fault: Fault, index: int) -> Reply:
        if fault is Fault.DROP:
            return Reply(0, None)
        if fault is Fault.MALFORMED:
            return Reply(200, MALFORMED_BODIES[index % len(MALFORMED_BODIES)])
        status = self.faults.status
        message = f"injected fault: request {index} fails with {status}"
        reply = _json(status, error_body(message, *_ERROR_KINDS[status]))
        wait = self.faults.retry_after_s
        if wait is None or status not in (429, 503):
            return reply
        return Reply(reply.status, reply.body, (("Retry-After", f"{wait:g}"),))

    def _answer(self, body: bytes, index: int) -> Reply:
        try:
            data = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            return _bad_request(f"request body is not valid JSON: {e}")
        try:
            request = ChatRequest.model_validate(data)
        except ValidationError as e:
            return _bad_request(f"not a chat-completions request: {e}")
        name = request.model.removeprefix(f"{PROVIDER}/")
        if name not in SIM_MODELS:
            message = f"unknown sim model {request.model!r}; sim models: {', '.join(SIM_MODELS)}"
            return _json(404, error_body(message, "invalid_request_error", "model_not_found"))
        try:
            reply = answer(name, data["messages"], data.get("tools") or [], request.seed or 0)
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            # The policy trusts the harness's message shapes; an odd request is the client's
            # mistake, so it gets a 4xx instead of a dropped connection.
            return _bad_request(f"the sim model cannot read this request: {type(e).__name__}: {e}")
        return _json(200, completion_body(reply, f"chatcmpl-sim-{index}"))
