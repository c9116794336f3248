"""The sim models as a loopback HTTP server speaking three providers' APIs, with seeded fault
injection.

Standard library only (``http.server`` in a daemon thread), so the real network path of any
client of OpenAI chat completions, Anthropic Messages or Gemini generateContent (litellm's
adapters included) is exercised against the same policy the in-process ``sim`` provider runs.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmark.errors import BenchmarkError
from benchmark.sim._answer import answer
from benchmark.sim._catalogue import SIM_MODELS
from benchmark.sim._faults import Fault, FaultPlan, ServerStats
from benchmark.sim._http import HTTPServer, Reply, Request
from benchmark.sim._wire import SEED_HEADER, Wire, WireError
from benchmark.sim._wire_anthropic import AnthropicMessages
from benchmark.sim._wire_gemini import PATH as GEMINI_PATH
from benchmark.sim._wire_gemini import GeminiGenerateContent
from benchmark.sim._wire_openai import OpenAIChat, models_body

HOST = "127.0.0.1"
OPENAI = OpenAIChat()
ANTHROPIC = AnthropicMessages()
GEMINI = GeminiGenerateContent()


def _json(status: int, body: dict[str, Any]) -> Reply:
    return Reply(status, json.dumps(body).encode())


def _wire_of(request: Request) -> Wire | None:
    """The API a completion request's route belongs to (None: not a completion route)."""
    if request.method != "POST":
        return None
    if request.path == "/v1/chat/completions":
        return OPENAI
    if request.path == "/v1/messages":
        return ANTHROPIC
    return GEMINI if GEMINI_PATH.match(request.path) else None


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
    """The sim models served over loopback HTTP (a context manager).

    ``POST /v1/chat/completions`` (OpenAI, base ``url``), ``POST /v1/messages`` (Anthropic,
    base ``root``) and ``POST /v1beta/models/{model}:generateContent`` (Gemini, base
    ``gemini_url``) answer as the in-process ``sim/<model>`` would, each in its API's format;
    ``GET /v1/models`` lists the catalogue. ``faults`` decides which completion requests fail,
    on every route alike (one count of requests).
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
    def root(self) -> str:
        """``http://127.0.0.1:PORT``: the Anthropic base URL (clients add ``/v1/messages``)."""
        return f"http://{HOST}:{self.port}"

    @property
    def url(self) -> str:
        """The OpenAI-compatible base URL: ``http://127.0.0.1:PORT/v1``."""
        return f"{self.root}/v1"

    @property
    def gemini_url(self) -> str:
        """The Gemini base URL: ``http://127.0.0.1:PORT/v1beta``."""
        return f"{self.root}/v1beta"

    def base_url(self, provider: str) -> str:
        """The base URL litellm's ``provider`` adapter is pointed at (``api_base``)."""
        return {"anthropic": self.root, "gemini": self.gemini_url}.get(provider, self.url)

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

    def _route(self, request: Request) -> Reply:
        if request.method == "GET" and request.path == "/v1/models":
            return _json(200, models_body())
        wire = _wire_of(request)
        if wire is None:
            message = f"no route {request.method} {request.path}"
            return _json(404, OPENAI.error(404, message))
        index = self._counter.next_index()
        try:
            return self._serve(wire, request, index)
        finally:
            self._counter.done()

    def _serve(self, wire: Wire, request: Request, index: int) -> Reply:
        # each connection has its own thread: a delayed request holds up no other
        time.sleep(self.faults.delay_s)
        fault = self.faults.fault_for(index)
        if fault is None:
            reply = self._answer(wire, request, index)
            outcome = "answered" if reply.status == 200 else "rejected"
            self._counter.count(answered=reply.status == 200)
        else:
            reply = self._fault(wire, fault, index)
            outcome = f"fault {fault}"
            self._counter.count(fault)
        if self._log is not None:
            shown = "connection closed" if reply.body is None else f"HTTP {reply.status}"
            self._log(f"request {index} ({wire.name}): {outcome} ({shown})")
        return reply

    def _fault(self, wire: Wire, fault: Fault, index: int) -> Reply:
        if fault is Fault.DROP:
            return Reply(0, None)
        if fault is Fault.MALFORMED:
            return Reply(200, wire.malformed[index % len(wire.malformed)])
        status = self.faults.status
        message = f"injected fault: request {index} fails with {status}"
        reply = _json(status, wire.error(status, message))
        wait = self.faults.retry_after_s
        if wait is None or status not in (429, 503):
            return reply
        return Reply(reply.status, reply.body, (("Retry-After", f"{wait:g}"),))

    def _answer(self, wire: Wire, request: Request, index: int) -> Reply:
        try:
            data = json.loads(request.body)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            return _json(400, wire.error(400, f"request body is not valid JSON: {e}"))
        try:
            decoded = wire.decode(request, data)
        except WireError as e:
            return _json(e.status, wire.error(e.status, e.message))
        if decoded.model not in SIM_MODELS:
            message = f"unknown sim model {decoded.model!r}; sim models: {', '.join(SIM_MODELS)}"
            return _json(404, wire.error(404, message))
        seed = decoded.seed
        if seed is None:
            raw = request.headers.get(SEED_HEADER, "")
            seed = int(raw) if raw.isdigit() else 0
        try:
            reply = answer(decoded.model, decoded.messages, decoded.tools, seed)
        except (AttributeError, KeyError, TypeError, ValueError) as e:
            # The policy trusts the harness's message shapes; an odd request is the client's
            # mistake, so it gets a 4xx instead of a dropped connection.
            message = f"the sim model cannot read this request: {type(e).__name__}: {e}"
            return _json(400, wire.error(400, message))
        return _json(200, wire.encode(reply, index))
