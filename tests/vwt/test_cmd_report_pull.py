"""`vwt report pull`: a published release downloaded from a real service, then verified."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from conditions import Cycle
from service import ServiceLimits, running_server
from tests.service.test_pull import released_cycle
from tests.submissions.conftest import open_cycle_at, spec_with
from tests.vwt.test_cmd_report import vwt


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cycle, str]]:
    """A small released cycle and the URL of the service serving it."""
    cycle = released_cycle(tmp_path_factory, "pull")
    with running_server(cycle.home, ServiceLimits(requests_per_minute=100_000)) as url:
        yield cycle, url


def test_pull_then_verify(released: tuple[Cycle, str], tmp_path: Path) -> None:
    cycle, url = released
    out = tmp_path / "release"
    code, text = vwt("report", "pull", url, "--out", str(out))
    assert code == 0, text
    assert f"pulled the release of cycle {cycle.id}: " in text
    assert f"next: vwt report verify {out}" in text
    assert (out / "release.json").read_bytes() == (cycle.paths.public / "release.json").read_bytes()
    code, text = vwt("report", "verify", str(out))
    assert code == 0 and f"OK: release of cycle {cycle.id}" in text, text


def test_pull_with_verify_verifies(released: tuple[Cycle, str], tmp_path: Path) -> None:
    code, text = vwt("report", "pull", released[1], "--out", str(tmp_path / "r"), "--verify")
    assert code == 0, text
    assert "OK: release of cycle" in text and "next:" not in text


def test_pull_before_the_release_writes_nothing(tmp_path: Path) -> None:
    cycle = open_cycle_at(tmp_path / "home", spec_with())
    out = tmp_path / "out"
    with running_server(cycle.home) as url:
        code, text = vwt("report", "pull", url, "--out", str(out))
    assert code == 2
    assert f"error: cycle {cycle.id} has not been released yet" in text and "hint:" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]


def test_pull_refuses_a_non_empty_directory(released: tuple[Cycle, str], tmp_path: Path) -> None:
    (tmp_path / "mine.txt").write_text("keep")
    code, text = vwt("report", "pull", released[1], "--out", str(tmp_path))
    assert code == 2 and "is not an empty directory" in text and "--out" in text
    assert [p.name for p in tmp_path.iterdir()] == ["mine.txt"]


def test_pull_refuses_what_is_not_a_url(tmp_path: Path) -> None:
    code, text = vwt("report", "pull", "ftp://example.org", "--out", str(tmp_path / "r"))
    assert code == 2 and "is not an http(s) URL" in text
    assert list(tmp_path.iterdir()) == []
