"""The service over real HTTP (uvicorn on loopback, httpx): routes, tokens, receipts, errors.

Also the helpers the other service tests share: a served cycle with accounts, and the check of
the uniform error body.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from conditions import PASSPHRASE_ENV, ConditionsError, Cycle, CycleState, verify_commitment
from service import UPLOAD_EVENT, Accounts, ServiceLimits, create_app, running_server
from submissions import (
    SUBMISSION_EVENT,
    Bundle,
    Receipt,
    reference_bundles,
    submit,
    submitted_bundles,
)
from tests.reports.test_verify import revealed_cycle
from tests.submissions.conftest import open_cycle_at, spec_with


@dataclass
class Served:
    """A cycle served on loopback: its base URL, the accounts' tokens and the access log."""

    cycle: Cycle
    url: str
    tokens: dict[str, str]
    log: io.StringIO

    def client(self, who: str | None = None) -> httpx.Client:
        """An HTTP client of the service with ``who``'s token (None: anonymous)."""
        headers = {"Authorization": f"Bearer {self.tokens[who]}"} if who else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=30)

    def log_lines(self) -> list[dict[str, Any]]:
        """The access log so far, one parsed JSON line per request."""
        return [json.loads(line) for line in self.log.getvalue().splitlines()]


def with_accounts(cycle: Cycle, submitters: list[str]) -> dict[str, str]:
    """Tokens of the ``submitters``, of an operator ``boss`` and of a revoked ``gone``."""
    accounts = Accounts(cycle.home)
    tokens = {name: accounts.add(name) for name in submitters}
    tokens["boss"] = accounts.add("boss", role="operator")
    tokens["gone"] = accounts.add("gone")
    accounts.revoke("gone")
    return tokens


@contextmanager
def serving(
    cycle: Cycle,
    submitters: list[str],
    limits: ServiceLimits | None = None,
    trusted: tuple[str, ...] = (),
) -> Iterator[Served]:
    """``cycle`` served on loopback with accounts for ``submitters`` (see with_accounts),
    believing ``X-Forwarded-For`` from the ``trusted`` proxies only."""
    tokens = with_accounts(cycle, submitters)
    log = io.StringIO()
    with running_server(cycle.home, limits, access_log=log, trusted=trusted) as url:
        yield Served(cycle, url, tokens, log)


def assert_error(answer: httpx.Response, status: int, code: str) -> dict[str, Any]:
    """The answer is the uniform error body with this status and code, naming no path of the
    server's machine; returns the error."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    assert set(body) == {"error"}
    error: dict[str, Any] = body["error"]
    assert set(error) == {"status", "code", "message", "hint"}
    assert (error["status"], error["code"]) == (status, code)
    assert error["message"] and "Traceback" not in answer.text
    assert "/tmp" not in answer.text and os.sep + "home" not in answer.text
    return error


def packed(bundle: Bundle, **manifest: Any) -> bytes:
    """The packed bytes of ``bundle`` with its manifest's fields replaced by ``manifest``."""
    data = json.loads(bundle.canonical())
    data["manifest"].update(manifest)
    return json.dumps(data).encode()


def post_bundle(client: httpx.Client, body: bytes) -> httpx.Response:
    """Upload a packed bundle."""
    return client.post("/api/v1/submissions", content=body)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """An open cycle served with submitters alice and bob."""
    cycle = open_cycle_at(tmp_path_factory.mktemp("app") / "home", spec_with())
    with serving(cycle, ["alice", "bob"]) as s:
        yield s


@pytest.fixture(scope="module")
def alices(served: Served) -> dict[str, Any]:
    """The receipt JSON of the reference prompt-recipe bundle, uploaded by alice."""
    answer = post_bundle(served.client("alice"), reference_bundles()[1].canonical())
    assert answer.status_code == 201, answer.text
    receipt: dict[str, Any] = answer.json()["receipt"]
    return receipt


def test_an_upload_is_receipted_under_the_commitment_and_goes_to_the_frozen_run(
    served: Served, alices: dict[str, Any], tmp_path: Path
) -> None:
    bundle = reference_bundles()[1]
    receipt = Receipt.model_validate(alices)
    assert receipt.verify() and receipt.receipt.bundle_hash == bundle.hash
    published = served.client().get("/api/v1/commitment")
    assert published.status_code == 200
    assert published.content == served.cycle.paths.commitment.read_bytes()
    (tmp_path / "commitment.json").write_bytes(published.content)
    receipt.check_commitment(verify_commitment(tmp_path / "commitment.json"))
    cycle = Cycle.open(served.cycle.home)
    assert bundle.hash in [b.hash for b in submitted_bundles(cycle)]
    entry = [
        e for e in cycle.ledger.entries(SUBMISSION_EVENT) if e.payload["name"] == "prompt-recipe"
    ]
    assert entry[0].payload["submitter"] == "alice"
    assert Accounts(cycle.home).owner("prompt-recipe") == "alice"


def test_a_submitter_sees_its_own_submissions_and_receipts_only(
    served: Served, alices: dict[str, Any]
) -> None:
    alice, bob = served.client("alice"), served.client("bob")
    bundle_hash = alices["receipt"]["bundle_hash"]
    mine = alice.get("/api/v1/submissions").json()["submissions"]
    assert [(s["name"], s["bundle_hash"], s["late"]) for s in mine] == [
        ("prompt-recipe", bundle_hash, False)
    ]
    assert alice.get(f"/api/v1/submissions/{bundle_hash}/receipt").json() == alices
    assert bob.get("/api/v1/submissions").json() == {"submissions": []}
    theirs = assert_error(bob.get(f"/api/v1/submissions/{bundle_hash}/receipt"), 404, "not_found")
    unknown = assert_error(alice.get(f"/api/v1/submissions/{'0' * 64}/receipt"), 404, "not_found")
    assert theirs == unknown  # no existence leak


def test_another_submitters_name_is_forbidden(served: Served, alices: dict[str, Any]) -> None:
    body = packed(reference_bundles()[1], version="2")
    error = assert_error(post_bundle(served.client("bob"), body), 403, "forbidden")
    assert "prompt-recipe belongs to another submitter" in error["message"]
    again = assert_error(
        post_bundle(served.client("alice"), reference_bundles()[1].canonical()), 409, "conflict"
    )
    assert "already submitted" in again["message"]


@pytest.mark.parametrize("who", [None, "bad", "gone"])
def test_no_bad_or_revoked_token_is_unauthorized_alike(served: Served, who: str | None) -> None:
    served.tokens["bad"] = "vwt_" + "A" * 43
    client = served.client(who)
    listing = client.get("/api/v1/submissions")
    error = assert_error(listing, 401, "unauthorized")
    assert listing.headers["www-authenticate"] == "Bearer"
    upload = post_bundle(client, reference_bundles()[0].canonical())
    assert assert_error(upload, 401, "unauthorized") == error
    assert assert_error(client.get("/api/v1/operator/submissions"), 401, "unauthorized") == error


def test_the_operator_token_reads_operator_routes_but_cannot_upload(
    served: Served, alices: dict[str, Any]
) -> None:
    boss = served.client("boss")
    assert_error(post_bundle(boss, reference_bundles()[0].canonical()), 403, "forbidden")
    assert_error(boss.get("/api/v1/submissions"), 403, "forbidden")
    every = boss.get("/api/v1/operator/submissions").json()["submissions"]
    assert {(s["name"], s["submitter"]) for s in every} >= {("prompt-recipe", "alice")}
    attempts = boss.get("/api/v1/operator/access-log").json()["entries"]
    accepted = [a for a in attempts if a["status"] == 201]
    assert {(a["submitter"], a["bundle_hash"]) for a in accepted} == {
        ("alice", alices["receipt"]["bundle_hash"])
    }
    assert {a["status"] for a in attempts} >= {201, 403}
    assert None not in {a["submitter"] for a in attempts}  # a 401 is in the access log only
    assert_error(served.client("alice").get("/api/v1/operator/access-log"), 403, "forbidden")


def test_every_upload_attempt_of_an_account_is_in_the_ledger_and_every_request_in_the_log(
    served: Served, alices: dict[str, Any]
) -> None:
    with served.client("alice") as alice:
        post_bundle(alice, b"{}")
    entries = Cycle.open(served.cycle.home).ledger.entries(UPLOAD_EVENT)
    last = entries[-1].payload
    assert last == {
        "submitter": "alice",
        "route": "/api/v1/submissions",
        "status": 400,
        "code": "invalid_bundle",
        "bytes": 2,
        "bundle_hash": None,
        "at": last["at"],
    }
    with served.client() as anonymous:  # no account: the access log only
        assert_error(post_bundle(anonymous, b"{}"), 401, "unauthorized")
    assert Cycle.open(served.cycle.home).ledger.entries(UPLOAD_EVENT) == entries
    uploads = [x for x in served.log_lines() if x["method"] == "POST"]
    assert uploads[-1]["who"] is None and uploads[-1]["status"] == 401
    of_accounts = [x for x in uploads if x["who"] is not None and x["status"] != 429]
    assert len(of_accounts) == len(entries)
    first = next(x for x in uploads if x["status"] == 201)
    assert first["who"] == "alice" and first["route"] == "/api/v1/submissions"
    assert first["bytes_in"] == len(reference_bundles()[1].canonical()) and first["ms"] > 0


def test_public_routes_say_the_cycle_state_and_what_is_published(served: Served) -> None:
    client = served.client()
    index = client.get("/").json()
    assert index["service"] == "vwt" and index["state"] == "open"
    assert index["links"]["commitment"] == "/api/v1/commitment"
    info = client.get("/api/v1/cycle").json()
    assert info["cycle"] == served.cycle.id and info["next"] == "frozen_run"
    assert info["public_key"] == served.cycle.public_key_b64
    assert [h["state"] for h in info["history"]] == ["draft", "committed", "open"]
    assert info["published"] == {"commitment": True, "reveal": False, "release": False}
    assert_error(client.get("/api/v1/reveal"), 404, "not_found")
    assert_error(client.get("/release/release.json"), 404, "not_found")


def test_unknown_routes_and_methods_get_uniform_bodies(served: Served) -> None:
    client = served.client("alice")
    assert_error(client.get("/api/v1/nothing"), 404, "not_found")
    assert_error(client.delete("/api/v1/submissions"), 405, "method_not_allowed")
    assert_error(client.post("/api/v1/cycle", content=b"x"), 405, "method_not_allowed")
    assert_error(client.get("/api/v1/submissions/%2e%2e/receipt"), 404, "not_found")


def test_a_broken_home_is_an_internal_error_that_names_nothing(tmp_path: Path) -> None:
    cycle = open_cycle_at(tmp_path / "home", spec_with())
    with serving(cycle, ["alice"]) as s:
        os.chmod(cycle.paths.operator, 0o755)  # Cycle.open now refuses the home
        try:
            error = assert_error(s.client().get("/api/v1/cycle"), 500, "internal")
        finally:
            os.chmod(cycle.paths.operator, 0o700)
        assert error == {
            "status": 500,
            "code": "internal",
            "message": "internal error",
            "hint": None,
        }
        assert s.client().get("/api/v1/cycle").status_code == 200


def test_uploads_outside_the_open_state_are_refused_unread(tmp_path: Path) -> None:
    cycle = Cycle.init(tmp_path / "home", spec_with())
    cycle.generate()
    cycle.commit(public_seed=True)
    with serving(cycle, ["alice"]) as s:
        bundle = reference_bundles()[0].canonical()
        error = assert_error(post_bundle(s.client("alice"), bundle), 409, "wrong_state")
        assert "'committed', not 'open'" in error["message"]
        cycle.transition(CycleState.open)
        assert post_bundle(s.client("alice"), bundle).status_code == 201
        cycle.transition(CycleState.frozen_run)
        later = reference_bundles()[1].canonical()
        assert_error(post_bundle(s.client("alice"), later), 409, "wrong_state")
    assert [b.hash for b in submitted_bundles(cycle)] == [reference_bundles()[0].hash]
    refused = [e.payload for e in cycle.ledger.entries(UPLOAD_EVENT) if e.payload["status"] == 409]
    assert [(p["code"], p["bytes"]) for p in refused] == [("wrong_state", 0)] * 2


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A released cycle (a stand-in release: a few published files) served."""
    cycle = revealed_cycle(tmp_path_factory.mktemp("released") / "home", run=False)
    cycle.transition(CycleState.released)
    public = cycle.paths.public
    (public / "release.json").write_text('{"release": true}')
    (public / "report.html").write_text("<html>report</html>")
    (public / "traces").mkdir()
    (public / "traces" / "t.json.gz").write_bytes(b"\x1f\x8b trace")
    (public / ".release.json.1.tmp").write_text("half written")
    (public / "link.json").symlink_to(cycle.paths.targets)
    with serving(cycle, ["alice"]) as s:
        yield s


def test_the_release_and_reveal_are_served_once_published(released: Served) -> None:
    client = released.client()
    public = released.cycle.paths.public
    assert client.get("/api/v1/reveal").content == (public / "reveal.json").read_bytes()
    report = client.get("/release/report.html")
    assert report.status_code == 200 and report.text == "<html>report</html>"
    assert report.headers["content-type"].startswith("text/html")
    assert client.get("/release/traces/t.json.gz").content == b"\x1f\x8b trace"
    info = client.get("/api/v1/cycle").json()
    assert info["published"] == {"commitment": True, "reveal": True, "release": True}


@pytest.mark.parametrize(
    "path",
    [
        "../operator/targets.json",
        "%2e%2e/operator/targets.json",
        "..%2foperator%2ftargets.json",
        "traces/../../operator/cycle.json",
        "link.json",
        ".release.json.1.tmp",
        "traces",
        "traces//t.json.gz",
        "missing.json",
        "/etc/passwd",
    ],
)
def test_release_paths_stay_inside_the_published_files(released: Served, path: str) -> None:
    answer = released.client().get(f"/release/{path}")
    assert_error(answer, 404, "not_found")
    assert "condition" not in answer.text


def test_a_key_that_cannot_sign_is_refused_before_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cycle = Cycle.init(tmp_path / "home", spec_with(), passphrase="s3cret")
    monkeypatch.delenv(PASSPHRASE_ENV, raising=False)
    with pytest.raises(ConditionsError, match="passphrase-encrypted") as e:
        create_app(cycle.home)
    assert PASSPHRASE_ENV in (e.value.hint or "")
    monkeypatch.setenv(PASSPHRASE_ENV, "s3cret")
    cycle.generate()
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open)
    with serving(cycle, ["alice"]) as s:
        answer = post_bundle(s.client("alice"), reference_bundles()[0].canonical())
        assert answer.status_code == 201
        assert Receipt.model_validate(answer.json()["receipt"]).verify()


def test_a_submitter_revoked_during_its_upload_keeps_the_receipted_submission(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cycle = open_cycle_at(tmp_path / "home", spec_with())
    with serving(cycle, ["alice"]) as s:
        real_submit = submit

        def submit_then_revoke(*args: Any, **kwargs: Any) -> Receipt:
            receipt = real_submit(*args, **kwargs)
            Accounts(cycle.home).revoke("alice")
            return receipt

        monkeypatch.setattr("service._routes_submitter.submit", submit_then_revoke)
        answer = post_bundle(s.client("alice"), reference_bundles()[0].canonical())
        assert answer.status_code == 201
    assert [b.hash for b in submitted_bundles(cycle)] == [reference_bundles()[0].hash]
    assert Accounts(cycle.home).owner("no-artifacts") is None
