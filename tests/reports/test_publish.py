"""Atomic publishing: a full disk leaves the previous files whole and no temporary file."""

from __future__ import annotations

import errno
import shutil
from pathlib import Path
from typing import IO, Any

import pytest

import reports._publish
from conditions import Cycle
from reports import RELEASE_FILE, TRIALS_FILE, ReportError, build_release
from reports._publish import publish_files
from tests.reports.test_verify import shared_revealed_cycle


class _FullDisk:
    """A file that takes ``room`` bytes, then fails with ENOSPC like a full disk."""

    def __init__(self, f: IO[bytes], room: int) -> None:
        self._f, self._room = f, room

    def write(self, data: bytes) -> int:
        self._f.write(data[: self._room])
        if len(data) > self._room:
            raise OSError(errno.ENOSPC, "No space left on device")
        self._room -= len(data)
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._f, name)

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self._f.close()


def fill_disk_after(monkeypatch: pytest.MonkeyPatch, room: int, name: str) -> None:
    """Make the publisher's writes of temporary files for ``name`` fail after ``room`` bytes."""

    def opener(path: Path, mode: str = "r") -> Any:
        f = open(path, mode)  # noqa: SIM115 - closed by the wrapper
        return _FullDisk(f, room) if name in Path(path).name else f

    monkeypatch.setattr(reports._publish, "open", opener, raising=False)


def _listing(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (traces, artifacts and interfaces too) by relative path;
    folders as their own entries, so an empty folder left behind shows."""
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
        for p in folder.rglob("*")
    }


def test_files_are_replaced_whole(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.jsonl"
    a.write_bytes(b"old a")
    publish_files([(b, b"new b\n" * 1000), (a, b"new a")], "hint")
    assert _listing(tmp_path) == {"a.json": b"new a", "b.jsonl": b"new b\n" * 1000}


@pytest.mark.parametrize("failing", ["a.json", "b.jsonl"])
def test_a_full_disk_leaves_every_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.jsonl"
    a.write_bytes(b"old a")
    before = _listing(tmp_path)
    fill_disk_after(monkeypatch, 3, failing)
    with pytest.raises(ReportError) as e:
        publish_files([(b, b"new b\n" * 1000), (a, b"new a")], "free some space")
    assert str(e.value) == f"cannot write {tmp_path / failing}: No space left on device"
    assert "\n" not in str(e.value) and e.value.hint == "free some space"
    assert _listing(tmp_path) == before  # no truncated file, no temporary file


@pytest.fixture(scope="module")
def revealed_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A revealed cycle, not yet released."""
    return shared_revealed_cycle(tmp_path_factory, "publish").home


def test_a_full_disk_during_the_first_build_publishes_nothing(
    revealed_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cycle = Cycle.open(Path(shutil.copytree(revealed_home, tmp_path / "home")))
    before = _listing(cycle.paths.public)
    fill_disk_after(monkeypatch, 4096, RELEASE_FILE)
    with pytest.raises(ReportError, match="No space left on device") as e:
        build_release(cycle)
    assert f"vwt report build --home {cycle.home}" in (e.value.hint or "")
    assert _listing(cycle.paths.public) == before
    assert RELEASE_FILE not in before and TRIALS_FILE not in before


def test_a_full_disk_during_a_rebuild_keeps_the_published_release(
    revealed_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cycle = Cycle.open(Path(shutil.copytree(revealed_home, tmp_path / "home")))
    build_release(cycle)
    published = _listing(cycle.paths.public)
    fill_disk_after(monkeypatch, 10, TRIALS_FILE)
    with pytest.raises(ReportError, match=f"cannot write .*{TRIALS_FILE}: No space left"):
        build_release(cycle)
    assert _listing(cycle.paths.public) == published
    monkeypatch.undo()
    build_release(cycle)  # with room again, the rebuild goes through
