"""Pulling a published release over real HTTP: the listing, the checked download, the refusals.

Also the helper the CLI test shares: a small cycle released in process.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from conditions import Cycle
from reports import RELEASE_FILE, build_release, verify_release, write_html_report
from reports._traces import MAX_TRACE_BYTES
from reports.errors import ReportError
from service import (
    ReleaseFile,
    ServiceClient,
    ServiceError,
    ServiceLimits,
    pull_release,
    release_names,
    running_server,
)
from service import _pull as pull_module
from service._pull import checked_listing
from tests.reports.test_verify import shared_revealed_cycle
from tests.service.test_app import Served, assert_error, serving
from tests.submissions.conftest import open_cycle_at, spec_with


def released_cycle(factory: pytest.TempPathFactory, name: str) -> Cycle:
    """A small cycle run, revealed and released in process, its HTML report published (in a
    home of its own, ``name``)."""
    cycle = shared_revealed_cycle(factory, name)
    write_html_report(build_release(cycle))
    return cycle


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A released cycle served, with a stray file in its public directory."""
    cycle = released_cycle(tmp_path_factory, "pull")
    (cycle.paths.public / "notes.txt").write_text("not part of the release")
    limits = ServiceLimits(requests_per_minute=100_000, file_requests_per_minute=100_000)
    with serving(cycle, [], limits) as s:
        yield s


@pytest.fixture(scope="module")
def unreleased(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A cycle open for submissions, served."""
    cycle = open_cycle_at(tmp_path_factory.mktemp("open") / "home", spec_with())
    with serving(cycle, []) as s:
        yield s


@contextmanager
def tampered(path: Path, data: bytes) -> Iterator[None]:
    """``path`` holds ``data`` inside the block, its own bytes again after."""
    original = path.read_bytes()
    path.write_bytes(data)
    try:
        yield
    finally:
        path.write_bytes(original)


@contextmanager
def served_again(served: Served, limits: ServiceLimits) -> Iterator[Served]:
    """The cycle of ``served`` served by a second server, with ``limits``."""
    log = io.StringIO()
    with running_server(served.cycle.home, limits, access_log=log) as url:
        yield Served(served.cycle, url, {}, log)


def assert_nothing_left(parent: Path) -> None:
    """No directory, temporary or not, was left in ``parent``."""
    assert list(parent.iterdir()) == []


def test_the_listing_names_exactly_the_release_files_with_their_hashes(released: Served) -> None:
    public = released.cycle.paths.public
    answer = released.client().get("/api/v1/release/files")
    assert answer.status_code == 200, answer.text
    files = [ReleaseFile.model_validate(f) for f in answer.json()["files"]]
    paths = [f.path for f in files]
    assert paths == sorted([*release_names(public), "report.html"])
    assert {"commitment.json", "reveal.json", "trials.jsonl", RELEASE_FILE} <= set(paths)
    assert any(p.startswith("traces/") for p in paths) and "notes.txt" not in paths
    for f in files:
        data = (public / f.path).read_bytes()
        assert (f.size, f.sha256) == (len(data), hashlib.sha256(data).hexdigest())


def test_a_pulled_release_verifies(released: Served, tmp_path: Path) -> None:
    pulled = pull_release(ServiceClient(released.url), tmp_path / "release")
    public = released.cycle.paths.public
    assert pulled.cycle == released.cycle.id and pulled.path == tmp_path / "release"
    written = sorted(
        p.relative_to(pulled.path).as_posix() for p in pulled.path.rglob("*") if p.is_file()
    )
    assert written == sorted([*release_names(public), "report.html"])
    assert pulled.files == len(written)
    assert all((pulled.path / p).read_bytes() == (public / p).read_bytes() for p in written)
    assert verify_release(pulled.path).cycle == released.cycle.id
    assert [p.name for p in tmp_path.iterdir()] == ["release"]
    assert pulled.path.stat().st_mode & 0o777 == 0o755


def test_an_empty_directory_is_filled_and_a_full_one_refused(
    released: Served, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    assert pull_release(ServiceClient(released.url), tmp_path / "empty").files > 0
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("keep")
    with pytest.raises(ServiceError, match="is not an empty directory"):
        pull_release(ServiceClient(released.url), tmp_path / "full")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "full"]
    assert [p.name for p in (tmp_path / "full").iterdir()] == ["mine.txt"]


def test_nothing_is_listed_or_pulled_before_the_release(unreleased: Served, tmp_path: Path) -> None:
    assert_error(unreleased.client().get("/api/v1/release/files"), 404, "not_found")
    with pytest.raises(ServiceError, match="has not been released yet") as refused:
        pull_release(ServiceClient(unreleased.url), tmp_path / "release")
    assert refused.value.status == 404
    assert_nothing_left(tmp_path)


def test_a_trace_tampered_on_the_server_is_pulled_but_fails_verification(
    released: Served, tmp_path: Path
) -> None:
    trace = next((released.cycle.paths.public / "traces").iterdir())
    with tampered(trace, gzip.compress(b'[{"role": "user", "content": "forged"}]', mtime=0)):
        pulled = pull_release(ServiceClient(released.url), tmp_path / "release")
    with pytest.raises(ReportError, match="does not match its name"):
        verify_release(pulled.path)


class Listed(ServiceClient):
    """A client of the real service that is given the listing: a stale or a forged one."""

    def __init__(self, url: str, files: list[ReleaseFile]) -> None:
        super().__init__(url)
        self.files = files

    def release_files(self) -> list[ReleaseFile]:
        return self.files


def listing(served: Served) -> list[ReleaseFile]:
    """The service's true listing."""
    return ServiceClient(served.url).release_files()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda data: data[:-1] + bytes([data[-1] ^ 1]), r"traces/\S+ is not the file it lists"),
        (lambda data: data + b"x", r"traces/\S+ answered with over [\d,]+ bytes"),
    ],
    ids=["same-size", "longer"],
)
def test_a_file_changed_after_the_listing_is_refused(
    released: Served, tmp_path: Path, change: Callable[[bytes], bytes], message: str
) -> None:
    files = listing(released)
    trace = next((released.cycle.paths.public / "traces").iterdir())
    with (
        tampered(trace, change(trace.read_bytes())),
        pytest.raises(ServiceError, match=message),
    ):
        pull_release(Listed(released.url, files), tmp_path / "release")
    assert_nothing_left(tmp_path)


def _without_trace(files: list[ReleaseFile]) -> list[ReleaseFile]:
    first = next(f for f in files if f.path.startswith("traces/"))
    return [f for f in files if f != first]


def _with_extra(files: list[ReleaseFile]) -> list[ReleaseFile]:
    extra = ReleaseFile(path="traces/" + "0" * 64 + ".json.gz", size=1, sha256="0" * 64)
    return [*files, extra]


def _with_outsider(files: list[ReleaseFile]) -> list[ReleaseFile]:
    return [*files, ReleaseFile(path="../operator/targets.json", size=1, sha256="0" * 64)]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (_without_trace, "does not list 1 file the release names: traces/"),
        (_with_extra, "lists 1 file the release does not name: traces/0000"),
        (_with_outsider, "lists the release file '../operator/targets.json', not a plain path"),
        (
            lambda files: [f for f in files if f.path != "trials.jsonl"],
            "does not list the release's trials.jsonl",
        ),
    ],
    ids=["missing", "extra", "outsider", "no-trials-file"],
)
def test_a_listing_that_is_not_the_release_is_refused(
    released: Served,
    tmp_path: Path,
    edit: Callable[[list[ReleaseFile]], list[ReleaseFile]],
    message: str,
) -> None:
    with pytest.raises(ServiceError, match=re.escape(message)):
        pull_release(Listed(released.url, edit(listing(released))), tmp_path / "release")
    assert_nothing_left(tmp_path)


def _entry(path: str, size: int = 1) -> ReleaseFile:
    return ReleaseFile(path=path, size=size, sha256="a" * 64)


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ([_entry("/etc/passwd")], "not a plain path"),
        ([_entry("traces/../../x")], "not a plain path"),
        ([_entry("..")], "not a plain path"),
        ([_entry(".release.json.1.tmp")], "not a plain path"),
        ([_entry("traces/a/b")], "not a plain path"),
        ([_entry("operator/targets.json")], "not a plain path"),
        ([_entry("traces\\x")], "not a plain path"),
        ([_entry("a.json"), _entry("a.json")], "a.json twice"),
        ([_entry("traces/t.json.gz", MAX_TRACE_BYTES + 1)], "over its cap"),
        ([ReleaseFile(path="a.json", size=1, sha256="A" * 64)], "malformed hash"),
    ],
)
def test_unsafe_listings_are_refused(files: list[ReleaseFile], message: str) -> None:
    with pytest.raises(ServiceError, match=re.escape(message)):
        checked_listing(files)


def test_listings_are_capped_in_count_and_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pull_module, "MAX_PULL_FILES", 2)
    with pytest.raises(ServiceError, match="lists 3 release files, over 2"):
        checked_listing([_entry(f"{i}.json") for i in range(3)])
    monkeypatch.setattr(pull_module, "MAX_PULL_BYTES", 10)
    with pytest.raises(ServiceError, match="add up to over 10 bytes"):
        checked_listing([_entry("a.json", 6), _entry("b.json", 6)])


def test_a_release_larger_than_the_rate_limit_is_pulled_whole(
    released: Served, tmp_path: Path
) -> None:
    files = len(release_names(released.cycle.paths.public)) + 1  # and report.html
    rate = ServiceLimits(file_requests_per_minute=files - 20)  # a pull outruns the burst
    with served_again(released, rate) as s:
        assert len(listing(s)) == files
        pulled = pull_release(ServiceClient(s.url), tmp_path / "release")
        statuses = [line["status"] for line in s.log_lines()]
    assert pulled.files == files and verify_release(pulled.path).cycle == released.cycle.id
    assert set(statuses) <= {200, 429} and statuses.count(200) == 2 + files


def test_a_pull_gives_up_when_the_rate_limit_does_not_lift(
    released: Served, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pull_module, "RETRIES", 2)
    with served_again(released, ServiceLimits(file_requests_per_minute=1)) as s:
        listing(s)
        with pytest.raises(ServiceError, match="too many requests") as refused:
            pull_release(ServiceClient(s.url), tmp_path / "release")
        assert [line["status"] for line in s.log_lines()] == [200, 429, 429, 429]
    assert refused.value.status == 429
    assert_nothing_left(tmp_path)


def test_release_files_have_their_own_rate(released: Served, tmp_path: Path) -> None:
    """A request rate that would stop a pull at once does not touch the files' own rate."""
    with served_again(released, ServiceLimits(requests_per_minute=1)) as s:
        pulled = pull_release(ServiceClient(s.url), tmp_path / "release")
        statuses = [line["status"] for line in s.log_lines()]
    assert verify_release(pulled.path).cycle == released.cycle.id
    assert set(statuses) == {200}
