"""Abuse over real HTTP: per-token request and upload rates, the concurrent-upload caps, and
50 concurrent uploads from 10 submitters, every one accounted for."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest

from conditions import Cycle
from service import UPLOAD_EVENT, ServiceLimits
from submissions import SUBMISSION_EVENT, reference_bundles
from tests.service.test_app import assert_error, packed, post_bundle, serving
from tests.submissions.conftest import open_cycle_at, spec_with


@pytest.fixture
def cycle(tmp_path: Path) -> Cycle:
    """A fresh open cycle."""
    return open_cycle_at(tmp_path / "home", spec_with())


def test_a_caller_over_its_request_rate_waits_and_others_do_not(cycle: Cycle) -> None:
    with serving(cycle, ["alice"], ServiceLimits(requests_per_minute=3)) as s:
        anonymous, alice = s.client(), s.client("alice")
        assert [anonymous.get("/").status_code for _ in range(3)] == [200] * 3
        refused = anonymous.get("/api/v1/cycle")
        error = assert_error(refused, 429, "rate_limited")
        assert 1 <= int(refused.headers["retry-after"]) <= 20
        assert f"wait {refused.headers['retry-after']} s" in error["hint"]
        assert [alice.get("/api/v1/submissions").status_code for _ in range(3)] == [200] * 3
        assert_error(alice.get("/api/v1/submissions"), 429, "rate_limited")
        log = s.log_lines()
        assert [x["status"] for x in log] == [200, 200, 200, 429, 200, 200, 200, 429]
        assert [x["who"] for x in log[4:]] == ["alice"] * 4


def test_behind_a_trusted_local_proxy_each_forwarded_address_has_its_own_rate(
    cycle: Cycle,
) -> None:
    limits = ServiceLimits(requests_per_minute=1)
    with serving(cycle, [], limits, trusted=("127.0.0.1",)) as s, s.client() as client:

        def get(address: str) -> int:
            return client.get("/", headers={"X-Forwarded-For": address}).status_code

        assert [get("203.0.113.7"), get("203.0.113.7"), get("198.51.100.2")] == [200, 429, 200]
        assert [x["client"] for x in s.log_lines()] == ["203.0.113.7"] * 2 + ["198.51.100.2"]


def test_bad_tokens_count_against_the_address(cycle: Cycle) -> None:
    with serving(cycle, ["alice"], ServiceLimits(requests_per_minute=2)) as s:
        s.tokens["guess"] = "vwt_" + "B" * 43
        guesser = s.client("guess")
        assert_error(guesser.get("/api/v1/submissions"), 401, "unauthorized")
        assert_error(guesser.get("/api/v1/submissions"), 401, "unauthorized")
        assert_error(guesser.get("/api/v1/submissions"), 429, "rate_limited")
        assert_error(s.client().get("/"), 429, "rate_limited")  # the same address
        assert s.client("alice").get("/api/v1/submissions").status_code == 200


def test_a_submitter_over_its_upload_rate_is_refused_and_logged(cycle: Cycle) -> None:
    with serving(cycle, ["alice"], ServiceLimits(uploads_per_minute=2)) as s:
        alice = s.client("alice")
        bundle = reference_bundles()[0]
        answers = [post_bundle(alice, packed(bundle, version=str(v))) for v in range(3)]
        assert [a.status_code for a in answers[:2]] == [201, 201]
        assert_error(answers[2], 429, "rate_limited")
        assert alice.get("/api/v1/submissions").status_code == 200  # reading still allowed
        # the refusal is in the access log only: no one grows the ledger past their rate
        posts = [(x["who"], x["status"]) for x in s.log_lines() if x["method"] == "POST"]
        assert posts == [("alice", 201), ("alice", 201), ("alice", 429)]
    attempts = [e.payload for e in cycle.ledger.entries(UPLOAD_EVENT)]
    assert [(a["status"], a["code"], a["submitter"]) for a in attempts] == [
        (201, None, "alice"),
        (201, None, "alice"),
    ]


def upload_at_once(url: str, uploads: list[tuple[str, bytes]]) -> list[httpx.Response]:
    """POST every (token, packed bundle) from its own thread, all released at once."""
    start = threading.Barrier(len(uploads))
    answers: list[httpx.Response | None] = [None] * len(uploads)

    def send(i: int) -> None:
        token, body = uploads[i]
        with httpx.Client(base_url=url, timeout=60) as client:
            start.wait()
            answers[i] = client.post(
                "/api/v1/submissions", content=body, headers={"Authorization": f"Bearer {token}"}
            )

    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(uploads))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert all(a is not None for a in answers), "an upload got no answer"
    return [a for a in answers if a is not None]


def test_50_concurrent_uploads_from_10_submitters_are_all_accounted_for(cycle: Cycle) -> None:
    names = [f"team{i}" for i in range(10)]
    limits = ServiceLimits(
        requests_per_minute=1000,
        uploads_per_minute=1000,
        concurrent_uploads=6,
        concurrent_uploads_per_token=2,
    )
    base = reference_bundles()[1]
    with serving(cycle, names, limits) as s:
        uploads = [
            (s.tokens[name], packed(base, name=name, version=str(v)))
            for v in range(5)
            for name in names
        ]
        uploads[-1] = uploads[0]  # one bundle twice: at most one of the two is accepted
        answers = upload_at_once(s.url, uploads)
        statuses = Counter(a.status_code for a in answers)
        print(f"50 concurrent uploads: {dict(statuses)}")
        assert set(statuses) <= {201, 409, 429} and statuses[201] >= 1
        for answer in answers:
            if answer.status_code != 201:
                code = "conflict" if answer.status_code == 409 else "rate_limited"
                assert_error(answer, answer.status_code, code)
        accepted = [a.json()["receipt"]["receipt"] for a in answers if a.status_code == 201]
        assert_accounted(cycle, accepted, statuses)
        assert Counter(x["status"] for x in s.log_lines() if x["method"] == "POST") == statuses
        # What was refused left nothing behind: sent again one by one, each is accepted once.
        retried = [u for u, a in zip(uploads, answers, strict=True) if a.status_code == 429]
        again = [upload_at_once(s.url, [u])[0] for u in retried]
        accepted += [a.json()["receipt"]["receipt"] for a in again if a.status_code == 201]
    assert len({r["bundle_hash"] for r in accepted}) == len(accepted) == 49
    assert_accounted(cycle, accepted, statuses + Counter(a.status_code for a in again))


def assert_accounted(cycle: Cycle, accepted: list[dict[str, Any]], statuses: Counter[int]) -> None:
    """The ledger holds exactly the ``accepted`` receipts' submissions, each bundle stored and
    owned by its uploader, and one upload attempt per answer but the 429s (those are in the
    access log only); no temporary file is left."""
    submitted = cycle.ledger.entries(SUBMISSION_EVENT)
    hashes = sorted(r["bundle_hash"] for r in accepted)
    assert sorted(e.payload["bundle_hash"] for e in submitted) == hashes
    attempts = [e.payload for e in cycle.ledger.entries(UPLOAD_EVENT)]
    assert Counter(a["status"] for a in attempts) == statuses - Counter({429: statuses[429]})
    stored = list((cycle.home / "blobs" / "bundles").iterdir())
    assert sorted(p.name for p in stored) == [f"{h}.json" for h in hashes]
    assert list((cycle.home / "tmp").iterdir()) == []
    assert all(e.payload["name"] == e.payload["submitter"] for e in submitted)


def test_a_relative_home_is_hidden_by_its_path_not_by_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Served as ``--home vwt-default-2026-12``, a refusal still names the cycle, whose id is
    the home's name: only the home's path is hidden."""
    spec = spec_with()
    cycle = open_cycle_at(tmp_path / spec.cycle, spec)
    monkeypatch.chdir(tmp_path)
    relative = Cycle.open(Path(spec.cycle))
    with serving(relative, ["alice"]) as s:
        alice = s.client("alice")
        bundle = packed(reference_bundles()[0], name="alice-none")
        assert post_bundle(alice, bundle).status_code == 201
        error = assert_error(post_bundle(alice, bundle), 409, "conflict")
    assert f"already submitted to cycle {cycle.id}" in error["message"]
    assert "HOME" not in error["message"]
