"""The server itself: a deadline for every request head, so idle and slow-head connections are
closed, while a slow body is bounded by the upload limit alone; and stopping.

The deadline extends uvicorn's private ``H11Protocol`` (uvicorn has no public setting for it):
these tests are what fails when a uvicorn release breaks that, before its pin is raised."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol

from conditions import Cycle
from service import ServiceError, ServiceLimits, running_server
from submissions import reference_bundles
from tests.service.test_app import Served, serving
from tests.service.test_upload import connect, head, read_answer
from tests.submissions.conftest import open_cycle_at, spec_with

LIMITS = ServiceLimits(head_seconds=1.5, upload_seconds=8.0)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """An open cycle served with 1.5 s for a request head and 8 s for an upload's body."""
    cycle = open_cycle_at(tmp_path_factory.mktemp("server") / "home", spec_with())
    with serving(cycle, ["alice"], LIMITS) as s:
        yield s


GIVE_UP_S = 60.0
EARLIEST_CLOSE_S = LIMITS.head_seconds - 0.25
"""The earliest a close at the head deadline can be seen here: the server's clock starts when
it accepts the connection, a little before ``connect`` returns to the test (a close for another
reason — the first byte, a bad head — comes at once, far below this)."""
"""How long a test waits for the server to close a connection: "never", at any load (the
deadline is 1.5 s; no upper bound tighter than this, a loaded machine is slow)."""


def closed_after(sock: socket.socket, send: bytes = b"", every: float = 0.2) -> float:
    """Seconds until the server closes ``sock``, sending ``send`` a byte at a time meanwhile;
    fails if it is still open after :data:`GIVE_UP_S`."""
    started = time.monotonic()
    sock.settimeout(every)
    pending = iter(send)
    while time.monotonic() - started < GIVE_UP_S:
        try:
            if sock.recv(1024) == b"":
                return time.monotonic() - started
        except TimeoutError:
            byte = next(pending, None)
            if byte is not None:
                sock.sendall(bytes([byte]))
        except ConnectionResetError:
            return time.monotonic() - started
    raise AssertionError("the connection was never closed")


def test_an_idle_connection_is_closed_after_the_head_deadline(served: Served) -> None:
    with connect(served) as sock:
        assert closed_after(sock) >= EARLIEST_CLOSE_S


def test_a_head_sent_slowly_is_cut_off(served: Served) -> None:
    with connect(served) as sock:
        took = closed_after(
            sock, b"GET /api/v1/cycle HTTP/1.1\r\nHost: vwt\r\nX-Slow: " + b"a" * 99
        )
    assert took >= EARLIEST_CLOSE_S  # closed at the deadline, though bytes kept coming


def test_a_kept_alive_connection_gets_the_same_deadline_for_its_next_head(
    served: Served,
) -> None:
    with connect(served) as sock:
        sock.sendall(b"GET /api/v1/cycle HTTP/1.1\r\nHost: vwt\r\n\r\n")
        status, body, closed = read_answer(sock)  # waits up to 1 s: not closed meanwhile
        assert (status, closed) == (200, False) and body["state"] == "open"
        assert closed_after(sock) >= 0  # idle after its answer: closed, not kept open


def test_a_body_slower_than_the_head_deadline_is_still_received(served: Served) -> None:
    bundle = reference_bundles()[0].canonical()
    with connect(served) as sock:
        sock.sendall(head(served, {"Content-Length": str(len(bundle))}))
        for part in (bundle[:100], bundle[100:]):
            time.sleep(LIMITS.head_seconds + 0.5)
            sock.sendall(part)
        status, body, _ = read_answer(sock)
    assert status == 201, body


def test_running_server_stops_listening_on_leaving(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    cycle: Cycle = open_cycle_at(tmp_path_factory.mktemp("stop") / "home", spec_with())
    with serving(cycle, []) as s:
        assert httpx.get(f"{s.url}/").status_code == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{s.url}/")


def test_a_uvicorn_without_the_extended_hook_is_refused_before_listening(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    cycle: Cycle = open_cycle_at(tmp_path_factory.mktemp("hook") / "home", spec_with())
    monkeypatch.delattr(H11Protocol, "on_response_complete")
    refused = pytest.raises(ServiceError, match=r"has no H11Protocol\.on_response_complete")
    with refused as err, running_server(cycle.home):
        raise AssertionError("served without the head deadline")
    assert err.value.hint is not None and "pip install 'uvicorn" in err.value.hint
    assert "<0." in err.value.hint  # the supported range, from vwt's own metadata
