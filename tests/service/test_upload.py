"""Uploads over real sockets: size caps before and while reading, truncated and slow bodies,
and hostile bundles, each refused with nothing stored and no temporary file left."""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from conditions import Cycle
from service import UPLOAD_EVENT, ServiceLimits
from submissions import MAX_ARTIFACT_BYTES, SUBMISSION_EVENT, reference_bundles
from tests.service.test_app import Served, assert_error, post_bundle, serving
from tests.submissions.conftest import open_cycle_at, spec_with

CAP = 64 << 10
"""The body cap the served cycle is given (small, so the tests send little)."""
LIMITS = ServiceLimits(max_body_bytes=CAP, upload_seconds=2.0, uploads_per_minute=60)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """An open cycle served with submitter alice, a 64 KiB body cap and 2 s to upload."""
    cycle = open_cycle_at(tmp_path_factory.mktemp("upload") / "home", spec_with())
    with serving(cycle, ["alice"], LIMITS) as s:
        yield s


def connect(served: Served) -> socket.socket:
    """A raw TCP connection to the service."""
    address = urlsplit(served.url)
    assert address.hostname and address.port
    return socket.create_connection((address.hostname, address.port), timeout=10)


def head(served: Served, headers: dict[str, str]) -> bytes:
    """The head of alice's upload request with ``headers``."""
    lines = [
        "POST /api/v1/submissions HTTP/1.1",
        "Host: vwt",
        f"Authorization: Bearer {served.tokens['alice']}",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_answer(sock: socket.socket) -> tuple[int, dict[str, Any], bool]:
    """Status, JSON body, and whether the server then closed the connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed without an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    fields = dict(line.lower().split(": ", 1) for line in lines[1:])
    while len(body) < int(fields["content-length"]):
        body += sock.recv(65536)
    sock.settimeout(1.0)
    try:
        closed = sock.recv(1) == b""
    except ConnectionResetError:
        closed = True
    except TimeoutError:  # kept alive
        closed = False
    return int(lines[0].split()[1]), json.loads(body), closed


def assert_nothing_kept(served: Served, stored_before: int) -> None:
    """No temporary upload file is left, and no bundle was stored or submitted."""
    home = served.cycle.home
    assert list((home / "tmp").glob("*")) == []
    assert stored(served) == stored_before
    assert len(Cycle.open(home).ledger.entries(SUBMISSION_EVENT)) == stored_before


def stored(served: Served) -> int:
    """Bundles stored so far."""
    return len(list((served.cycle.home / "blobs" / "bundles").glob("*")))


def attempts_of(served: Served) -> list[dict[str, Any]]:
    """The payloads of the upload attempts in the ledger."""
    return [e.payload for e in Cycle.open(served.cycle.home).ledger.entries(UPLOAD_EVENT)]


def last_attempt(served: Served) -> dict[str, Any]:
    """The payload of the last upload attempt in the ledger."""
    return attempts_of(served)[-1]


def test_an_upload_declared_over_the_cap_is_refused_before_any_body(served: Served) -> None:
    before = stored(served)
    with connect(served) as sock:
        sock.sendall(head(served, {"Content-Length": str(CAP + 1)}))
        status, body, closed = read_answer(sock)
    assert (status, body["error"]["code"], closed) == (413, "too_large", True)
    assert f"{CAP + 1:,} bytes, over the limit of {CAP:,}" in body["error"]["message"]
    assert last_attempt(served)["bytes"] == 0
    assert_nothing_kept(served, before)


def test_a_chunked_upload_growing_past_the_cap_is_refused(served: Served) -> None:
    before = stored(served)
    chunk = b"x" * 8192
    with connect(served) as sock:
        sock.sendall(head(served, {"Transfer-Encoding": "chunked"}))
        for _ in range(CAP // len(chunk) + 1):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        status, body, closed = read_answer(sock)
    assert (status, body["error"]["code"], closed) == (413, "too_large", True)
    assert "grew past the limit" in body["error"]["message"]
    assert CAP < last_attempt(served)["bytes"] <= CAP + len(chunk)
    assert_nothing_kept(served, before)


def test_a_chunked_upload_within_the_cap_is_accepted(served: Served) -> None:
    bundle = reference_bundles()[0].canonical()
    with connect(served) as sock:
        sock.sendall(head(served, {"Transfer-Encoding": "chunked"}))
        sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(bundle), bundle))
        status, body, _ = read_answer(sock)
    assert status == 201 and body["receipt"]["receipt"]["name"] == "no-artifacts"


def test_an_upload_without_a_length_is_refused(served: Served) -> None:
    with connect(served) as sock:
        sock.sendall(head(served, {}))
        status, body, _ = read_answer(sock)
    assert (status, body["error"]["code"]) == (411, "length_required")


def test_a_truncated_upload_is_dropped_and_the_server_goes_on(served: Served) -> None:
    before, attempts = stored(served), len(attempts_of(served))
    bundle = reference_bundles()[1].canonical()
    with connect(served) as sock:
        sock.sendall(head(served, {"Content-Length": str(len(bundle))}))
        sock.sendall(bundle[: len(bundle) // 2])
        sock.shutdown(socket.SHUT_WR)
        time.sleep(0.5)
    deadline = time.monotonic() + 120  # a loaded machine is slow to record it
    while len(attempts_of(served)) == attempts and time.monotonic() < deadline:
        time.sleep(0.05)
    attempt = attempts_of(served)[-1]
    assert (attempt["status"], attempt["code"]) == (400, "bad_request")
    assert attempt["bytes"] <= len(bundle) // 2
    assert_nothing_kept(served, before)
    assert served.client().get("/api/v1/cycle").status_code == 200


def test_a_slow_client_is_answered_408_and_cut_off_within_the_limit(served: Served) -> None:
    before = stored(served)
    started = time.monotonic()
    with connect(served) as sock:
        sock.sendall(head(served, {"Content-Length": "1000"}))
        while not select.select([sock], [], [], 0.5)[0]:  # a byte every half second
            # the whole body takes 500 s at this pace: half of it is "never cut off"
            assert time.monotonic() - started < 250, "never answered"
            sock.sendall(b"{")
        status, body, closed = read_answer(sock)
    took = time.monotonic() - started
    assert (status, body["error"]["code"], closed) == (408, "timeout", True)
    assert "within 2 seconds" in body["error"]["message"]
    assert took >= LIMITS.upload_seconds  # not before its limit
    assert 0 < last_attempt(served)["bytes"] < 1000  # cut off before the body was whole
    assert_nothing_kept(served, before)


def _recipe(**manifest: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(reference_bundles()[1].canonical())
    data["manifest"].update(manifest)
    return data


def _with_artifact(path: str, text: str) -> dict[str, Any]:
    data = _recipe()
    entry = {**data["manifest"]["artifacts"][0], "name": "extra", "path": path}
    data["manifest"]["artifacts"].append(entry)
    data["files"][path] = text
    return data


HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "path traversal": (lambda: json.dumps(_with_artifact("../outside.md", "x")).encode(), "path"),
    "absolute path": (lambda: json.dumps(_with_artifact("/etc/passwd", "x")).encode(), "path"),
    "bidi name": (lambda: json.dumps(_recipe(name="ab\u202ecd")).encode(), "name"),
    "control in description": (
        lambda: json.dumps(_recipe(description="a\x1b[31mb")).encode(),
        "control or bidirectional",
    ),
    "oversize artifact": (
        lambda: json.dumps(_with_artifact("big.md", "x" * (MAX_ARTIFACT_BYTES + 1))).encode(),
        "over the limit",
    ),
    "bad JSON": (lambda: reference_bundles()[1].canonical()[:-5], "Invalid JSON"),
    "trailing garbage": (lambda: reference_bundles()[1].canonical() + b"]", "Invalid JSON"),
    "deep nesting": (lambda: b"[" * 100_000 + b"]" * 100_000, "recursion limit"),
    "not an object": (lambda: b"[1, 2]", "not a valid bundle"),
    "not UTF-8": (lambda: b'{"v": 1, "manifest": "\xff\xfe"}', "not a valid bundle"),
    "unlisted file": (
        lambda: json.dumps({**_recipe(), "files": {**_recipe()["files"], "x.md": "x"}}).encode(),
        "files must be exactly",
    ),
    "extra field": (lambda: json.dumps({**_recipe(), "signature": "x"}).encode(), "Extra inputs"),
}


@pytest.fixture(scope="module")
def full_cap(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """An open cycle served with submitter alice under the default limits (16 MiB cap), so a
    bundle over a bundle limit reaches the validation."""
    cycle = open_cycle_at(tmp_path_factory.mktemp("hostile") / "home", spec_with())
    with serving(cycle, ["alice"], ServiceLimits(uploads_per_minute=60)) as s:
        yield s


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_bundles_are_invalid_and_nothing_is_stored(full_cap: Served, kind: str) -> None:
    make, words = HOSTILE[kind]
    with full_cap.client("alice") as client:
        error = assert_error(post_bundle(client, make()), 400, "invalid_bundle")
    assert words in error["message"] and error["hint"]
    assert "the uploaded bundle" in error["message"] and "upload-" not in error["message"]
    assert_nothing_kept(full_cap, 0)
    assert last_attempt(full_cap)["code"] == "invalid_bundle"


def test_duplicate_keys_count_as_the_last_one_like_a_local_validation(full_cap: Served) -> None:
    """A packed file with a key twice is read as JSON reads it (the last one wins) and stored
    as its canonical JSON, so what was receipted holds no duplicate."""
    bundle = reference_bundles()[2]
    text = bundle.canonical().decode()
    doubled = text.replace('{"files":', '{"files":{"decoy.md":"x"},"files":', 1)
    with full_cap.client("alice") as client:
        answer = post_bundle(client, doubled.encode())
    assert answer.status_code == 201, answer.text
    assert answer.json()["receipt"]["receipt"]["bundle_hash"] == bundle.hash
    kept = full_cap.cycle.home / "blobs" / "bundles" / f"{bundle.hash}.json"
    assert kept.read_bytes() == bundle.canonical()


def test_upload_files_left_by_a_killed_server_are_removed_at_start(tmp_path: Path) -> None:
    cycle = open_cycle_at(tmp_path / "home", spec_with())
    (cycle.home / "tmp").mkdir(mode=0o700)
    (cycle.home / "tmp" / "upload-killed.part").write_bytes(b"half a bundle")
    with serving(cycle, ["alice"]):
        assert list((cycle.home / "tmp").iterdir()) == []
