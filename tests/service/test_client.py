"""The client: refusals mapped to ServiceError from a stub HTTP server on loopback (the
server's own body, a foreign body, a dead port, a silent server, an oversized answer, a kit
with more than the source), and the real service end to end."""

from __future__ import annotations

import io
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conditions import Cycle
from service import (
    TOKEN_ENV,
    TOKEN_FILE_ENV,
    Accounts,
    ServiceClient,
    ServiceError,
    build_dev_kit,
    extract_kit,
    running_server,
)
from submissions import SubmissionError, reference_bundles, write_bundle
from tests.service.test_adaptation import adaptation_cycle
from tests.submissions.conftest import open_cycle_at, spec_with

TOKEN = "vwt_" + "A" * 43


@dataclass
class Stub:
    """A loopback HTTP server answering every request with one canned answer."""

    status: int = 200
    body: bytes = b"{}"
    headers: dict[str, str] = field(default_factory=dict)
    seen: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    url: str = ""


@contextmanager
def stub_server(stub: Stub) -> Iterator[Stub]:
    """Serve ``stub`` on 127.0.0.1 (a free port) while inside."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            stub.seen.append((self.command, self.path, dict(self.headers)))
            self.send_response(stub.status)
            for k, v in stub.headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(stub.body)))
            self.end_headers()
            self.wfile.write(stub.body)

        do_GET = do_POST = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stub.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()


def _error_body(status: int, code: str, message: str, hint: str | None) -> bytes:
    error = {"status": status, "code": code, "message": message, "hint": hint}
    return json.dumps({"error": error}).encode()


@pytest.fixture(autouse=True)
def no_token(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No token unless a test gives one."""
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    monkeypatch.setenv(TOKEN_FILE_ENV, str(tmp_path / "no-token"))


def test_a_refusal_carries_the_servers_status_code_message_and_hint() -> None:
    body = _error_body(404, "not_found", "no receipt of yours", "check the hash")
    with stub_server(Stub(status=404, body=body)) as stub, pytest.raises(ServiceError) as e:
        ServiceClient(stub.url, TOKEN).receipt("a" * 64)
    assert (e.value.status, e.value.code, str(e.value)) == (404, "not_found", "no receipt of yours")
    assert e.value.hint == "check the hash"
    method, path, headers = stub.seen[0]
    assert (method, path) == ("GET", f"/api/v1/submissions/{'a' * 64}/receipt")
    assert headers["Authorization"] == f"Bearer {TOKEN}"


def test_a_rate_limit_says_when_to_retry_and_control_characters_are_escaped() -> None:
    body = _error_body(429, "rate_limited", "slow \x1b[31mdown", None)
    with (
        stub_server(Stub(status=429, body=body, headers={"Retry-After": "7"})) as stub,
        pytest.raises(ServiceError) as e,
    ):
        ServiceClient(stub.url, TOKEN).submissions()
    assert (e.value.status, e.value.code, e.value.hint) == (429, "rate_limited", "retry after 7 s")
    assert "\x1b" not in str(e.value) and "\\x1b[31mdown" in str(e.value)


@pytest.mark.parametrize(
    "body", [b"<html>Bad Gateway</html>", b'{"error": "nope"}', b'{"detail": 1}', b"\xff"]
)
def test_an_answer_without_the_vwt_error_body_is_named_so(body: bytes) -> None:
    with (
        stub_server(Stub(status=502, body=body)) as stub,
        pytest.raises(ServiceError, match="answered HTTP 502 without a vwt error body") as e,
    ):
        ServiceClient(stub.url).cycle()
    assert (e.value.status, e.value.code) == (502, "bad_response")
    assert e.value.hint is not None and "vwt serve" in e.value.hint


def test_a_dead_port_and_a_silent_server_name_the_url() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(ServiceError, match=f"cannot reach {dead}") as e:
        ServiceClient(dead).cycle()
    assert e.value.code == "unreachable" and "`vwt serve` runs there" in (e.value.hint or "")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(ServiceError, match=r"did not answer within 0\.3 s") as e:
            ServiceClient(url, timeout=0.3).dev_kit()
    assert (e.value.status, e.value.code) == (408, "timeout") and url in (e.value.hint or "")


def test_an_oversized_answer_is_cut_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("service._client.MAX_JSON_BYTES", 1000)
    with (
        stub_server(Stub(body=b"[" + b"0," * 2000 + b"0]")) as stub,
        pytest.raises(ServiceError, match="answered with over 1,000 bytes"),
    ):
        ServiceClient(stub.url).cycle()


@pytest.mark.parametrize("url", ["localhost:8470", "ftp://127.0.0.1", "http://", "", "http://[::1"])
def test_not_an_http_url(url: str) -> None:
    with pytest.raises(ServiceError, match="is not an http\\(s\\) URL"):
        ServiceClient(url)


def test_a_dev_kit_with_more_than_the_source_is_refused(tmp_path: Path) -> None:
    cycle = open_cycle_at(tmp_path / "h", spec_with())
    kit = build_dev_kit(cycle)
    kit["spec"] = cycle.spec.model_dump(mode="json")  # a leaky server: the whole spec
    with (
        stub_server(Stub(body=json.dumps(kit).encode())) as stub,
        pytest.raises(ServiceError, match=r"dev kit is not valid .*other than the source"),
    ):
        ServiceClient(stub.url).dev_kit()
    with (
        stub_server(Stub(body=b"[1, 2]")) as stub,
        pytest.raises(ServiceError, match="dev kit is not valid") as e,
    ):
        ServiceClient(stub.url).dev_kit()
    assert e.value.code == "bad_response"


def test_nothing_is_sent_for_a_bad_bundle_a_bad_hash_or_without_a_token(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    with stub_server(Stub()) as stub:
        with pytest.raises(SubmissionError, match=r"no vwt-bundle\.json"):
            ServiceClient(stub.url, TOKEN).upload(tmp_path / "b")
        with pytest.raises(ServiceError, match="not a bundle hash"):
            ServiceClient(stub.url, TOKEN).receipt("../../operator")
        with pytest.raises(ServiceError, match="no token"):
            ServiceClient(stub.url).submissions()
        assert stub.seen == []
        ServiceClient(stub.url + "/").commitment()  # public: no token needed
    assert [(m, p, "Authorization" in h) for m, p, h in stub.seen] == [
        ("GET", "/api/v1/commitment", False)
    ]


# -- the real service --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cycle, str, dict[str, str]]]:
    """An open cycle served on loopback; tokens of alice and bob."""
    cycle = open_cycle_at(tmp_path_factory.mktemp("client") / "h", spec_with())
    accounts = Accounts(cycle.home)
    tokens = {name: accounts.add(name) for name in ("alice", "bob")}
    with running_server(cycle.home, access_log=io.StringIO()) as url:
        yield cycle, url, tokens


def test_upload_list_and_receipt_over_the_real_service(
    served: tuple[Cycle, str, dict[str, str]], tmp_path: Path
) -> None:
    cycle, url, tokens = served
    alice, bob = ServiceClient(url, tokens["alice"]), ServiceClient(url, tokens["bob"])
    bundle = reference_bundles()[0]
    receipt = alice.upload(write_bundle(bundle, tmp_path / "b.json"))
    assert receipt.verify() and receipt.receipt.bundle_hash == bundle.hash
    receipt.check_commitment(alice.verified_commitment())
    assert alice.receipt(bundle.hash) == receipt
    assert [r["bundle_hash"] for r in alice.submissions()] == [bundle.hash]
    assert bob.submissions() == []
    with pytest.raises(ServiceError) as e:
        bob.receipt(bundle.hash)
    assert (e.value.status, e.value.code) == (404, "not_found")
    with pytest.raises(ServiceError, match="already submitted") as e:
        alice.upload(tmp_path / "b.json")
    assert (e.value.status, e.value.code) == (409, "conflict")
    assert ServiceClient(url).cycle()["cycle"] == cycle.id
    with pytest.raises(ServiceError) as e:
        ServiceClient(url, "vwt_" + "Z" * 43).submissions()
    assert (e.value.status, e.value.code) == (401, "unauthorized")


def test_adaptation_pairs_kit_and_adapted_upload_over_the_real_service(tmp_path: Path) -> None:
    cycle = adaptation_cycle(tmp_path / "h", {"no-artifacts": "alice", "typed-skill": "bob"})
    accounts = Accounts(cycle.home)
    tokens = {name: accounts.add(name) for name in ("alice", "bob")}
    targets = [t.id for t in cycle.targets()]
    with running_server(cycle.home, access_log=io.StringIO()) as url:
        alice = ServiceClient(url, tokens["alice"])
        pairs = alice.adaptation_pairs()
        assert [(p["target"], p["adapted"]) for p in pairs] == [(t, False) for t in targets]
        (submission,) = {p["submission"] for p in pairs}
        assert submission.startswith("no-artifacts@")
        with pytest.raises(ServiceError) as e:
            ServiceClient(url, tokens["bob"]).kit(submission, targets[0])
        assert (e.value.status, e.value.code) == (404, "not_found")
        extract_kit(alice.kit(submission, targets[0]), tmp_path / "kit")
        outcome = alice.upload_adapted(submission, targets[0], tmp_path / "kit" / "bundle", 2)
        assert (outcome.submission, outcome.target, outcome.cost["human_minutes"]) == (
            submission,
            targets[0],
            2,
        )
        assert [p["adapted"] for p in alice.adaptation_pairs()] == [
            t == targets[0] for t in targets
        ]
