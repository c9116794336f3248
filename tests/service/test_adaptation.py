"""Adaptation over HTTP, server side: a submitter's own pairs, its kit as tar.gz, the adapted
upload; and the client's unpacking of a kit archive, which trusts no entry."""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from pathlib import Path

import pytest

from adapt import KIT_FILE
from conditions import Cycle, CycleState
from service import (
    ServiceError,
    extract_kit,
    import_upload,
    kit_archive,
    list_pairs,
    own_submissions,
)
from submissions import load_bundle_dir, reference_bundles, submit, write_bundle
from tests.reports.test_verify import single_axis_targets, small_spec

FAST = ("no-artifacts", "typed-skill")
"""Submissions whose adaptation makes no model call."""


def adaptation_cycle(home: Path, owners: dict[str, str]) -> Cycle:
    """A small cycle in state adaptation; reference submission NAME uploaded by owners[NAME]
    (a stand-in frozen run)."""
    spec = small_spec()
    data = spec.model_dump(mode="json")
    data["adaptation"]["human_minutes"] = 30
    cycle = Cycle.init(home, type(spec).model_validate(data))
    cycle.generate(single_axis_targets(spec))
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open)
    for bundle in reference_bundles():
        if bundle.manifest.name in owners:
            submit(cycle, bundle, submitter=owners[bundle.manifest.name])
    cycle.transition(CycleState.frozen_run)
    counts = dict.fromkeys(("expected", "valid", "invalid", "missing", "unexpected"), 0)
    cycle.ledger.append("run.frozen", counts)
    cycle.transition(CycleState.adaptation)
    return cycle


@pytest.fixture(scope="module")
def cycle(tmp_path_factory: pytest.TempPathFactory) -> Cycle:
    home = tmp_path_factory.mktemp("adaptation") / "h"
    return adaptation_cycle(home, {"no-artifacts": "alice", "typed-skill": "bob"})


def assert_refused(
    error: pytest.ExceptionInfo[ServiceError], status: int, code: str, home: Path
) -> None:
    """The ServiceError carries ``status`` and ``code``, and names no path under ``home``'s
    parent (the operator's machine)."""
    assert (error.value.status, error.value.code) == (status, code), str(error.value)
    text = f"{error.value} {error.value.hint}"
    assert str(home.parent) not in text


def test_a_submitter_sees_only_its_own_pairs(cycle: Cycle) -> None:
    name = own_submissions(cycle, "alice")
    assert len(name) == 1 and next(iter(name)).startswith("no-artifacts@")
    targets = [t.id for t in cycle.targets()]
    pairs = list_pairs(cycle, "alice")
    assert [(p["target"], p["adapted"]) for p in pairs] == [(t, False) for t in targets]
    assert {p["submission"] for p in pairs} == set(name)
    assert list_pairs(cycle, "carol") == []


def test_the_kit_is_the_submitters_own_and_the_same_each_time(cycle: Cycle, tmp_path: Path) -> None:
    (submission,) = own_submissions(cycle, "bob")
    target = cycle.targets()[0].id
    for who, sub, tgt in [
        ("alice", submission, target),  # another submitter's
        ("bob", submission.split("@")[0], target),  # not name@version
        ("bob", submission, "c-0000000000000000"),  # not a committed target
    ]:
        with pytest.raises(ServiceError) as e:
            kit_archive(cycle, who, sub, tgt)
        assert_refused(e, 404, "not_found", cycle.home)
    archive = kit_archive(cycle, "bob", submission, target)
    assert archive == kit_archive(cycle, "bob", submission, target)
    names = extract_kit(archive, tmp_path / "kit")
    assert KIT_FILE in names and "README.md" in names and "bundle/vwt-bundle.json" in names
    described = json.loads((tmp_path / "kit" / KIT_FILE).read_text())
    assert described["target"] == target
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        members = tar.getmembers()
    assert all(m.isfile() and m.mtime == 0 and m.uid == 0 for m in members)


def test_an_adapted_upload_is_recorded_once(cycle: Cycle, tmp_path: Path) -> None:
    (submission,) = own_submissions(cycle, "alice")
    target = cycle.targets()[1].id
    extract_kit(kit_archive(cycle, "alice", submission, target), tmp_path / "kit")
    packed = write_bundle(load_bundle_dir(tmp_path / "kit" / "bundle"), tmp_path / "b.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"manifest": {}}')
    with pytest.raises(ServiceError, match="the uploaded bundle: not a valid bundle") as e:
        import_upload(cycle, "alice", submission, target, bad, 5)
    assert_refused(e, 400, "invalid_bundle", cycle.home)
    assert str(tmp_path) not in f"{e.value} {e.value.hint}"
    with pytest.raises(ServiceError, match="exceed the budget of 30") as e:
        import_upload(cycle, "alice", submission, target, packed, 31)
    assert_refused(e, 400, "bad_request", cycle.home)
    with pytest.raises(ServiceError) as e:
        import_upload(cycle, "bob", submission, target, packed, 5)
    assert_refused(e, 404, "not_found", cycle.home)
    outcome = import_upload(cycle, "alice", submission, target, packed, 5)
    assert (outcome["submission"], outcome["target"]) == (submission, target)
    assert outcome["cost"]["human_minutes"] == 5 and outcome["procedure"] == "human"
    adapted = {p["target"]: p["adapted"] for p in list_pairs(cycle, "alice")}
    assert adapted[target] is True and sum(adapted.values()) == 1
    for again in (
        lambda: import_upload(cycle, "alice", submission, target, packed, 5),
        lambda: kit_archive(cycle, "alice", submission, target),
    ):
        with pytest.raises(ServiceError, match="already adapted") as e:
            again()
        assert_refused(e, 409, "conflict", cycle.home)


def test_an_upload_without_a_downloaded_kit_is_refused(tmp_path: Path) -> None:
    cycle = adaptation_cycle(tmp_path / "h", {"no-artifacts": "alice"})
    (submission,) = own_submissions(cycle, "alice")
    bundle = next(b for b in reference_bundles() if b.manifest.name == "no-artifacts")
    packed = write_bundle(bundle, tmp_path / "b.json")
    with pytest.raises(ServiceError, match="no kit was exported") as e:
        import_upload(cycle, "alice", submission, cycle.targets()[0].id, packed, 1)
    assert_refused(e, 409, "wrong_state", cycle.home)
    assert e.value.hint is not None and "vwt adapt kit --to URL" in e.value.hint


def test_outside_the_adaptation_phase_everything_is_wrong_state(tmp_path: Path) -> None:
    spec = small_spec()
    cycle = Cycle.init(tmp_path / "h", spec)
    cycle.generate(single_axis_targets(spec))
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open)
    bundle = reference_bundles()[0]
    submit(cycle, bundle, submitter="alice")
    name = f"{bundle.manifest.name}@{bundle.manifest.version}"
    target = cycle.targets()[0].id
    packed = write_bundle(bundle, tmp_path / "b.json")
    for call in (
        lambda: list_pairs(cycle, "alice"),
        lambda: kit_archive(cycle, "alice", name, target),
        lambda: import_upload(cycle, "alice", name, target, packed, 1),
    ):
        with pytest.raises(ServiceError, match="not 'adaptation'") as e:
            call()
        assert_refused(e, 409, "wrong_state", cycle.home)


# -- the client's unpacking ----------------------------------------------------------------


def _archive(*members: tuple[tarfile.TarInfo, bytes]) -> bytes:
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb") as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for info, data in members:
            info.size = len(data) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return raw.getvalue()


def _member(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, link
    return info


OK = (_member("README.md"), b"hello")


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ((_member("/etc/passwd"), b"x"), "not a relative path"),
        ((_member("../outside"), b"x"), "not a relative path"),
        ((_member("tools/../../outside"), b"x"), "not a relative path"),
        ((_member("link", tarfile.SYMTYPE, "/etc/passwd"), b""), "links and devices"),
        ((_member("hard", tarfile.LNKTYPE, "README.md"), b""), "links and devices"),
        ((_member("dev", tarfile.CHRTYPE), b""), "links and devices"),
        ((_member("fifo", tarfile.FIFOTYPE), b""), "links and devices"),
        ((_member("README.md"), b"again"), "twice"),
        ((_member("README.md/inner"), b"x"), "both as a file and as a directory"),
    ],
)
def test_an_unsafe_kit_archive_writes_nothing(
    tmp_path: Path, bad: tuple[tarfile.TarInfo, bytes], why: str
) -> None:
    out = tmp_path / "kit"
    with pytest.raises(ServiceError, match=why) as e:
        extract_kit(_archive(OK, bad), out)
    assert e.value.code == "bad_response" and "nothing was written" in (e.value.hint or "")
    assert not out.exists() and not (tmp_path / "outside").exists()


def test_a_kit_archive_over_the_caps_or_not_a_tar_gz_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "kit"
    for data, why in [
        (b"not gzip at all", "not a readable tar.gz"),
        (_archive(OK)[:-20], "not a readable tar.gz"),
        (gzip.compress(b"not a tar" * 100), "not a readable tar.gz"),
    ]:
        with pytest.raises(ServiceError, match=why):
            extract_kit(data, out)
    monkeypatch.setattr("service._adaptation.MAX_KIT_BYTES", 8)
    with pytest.raises(ServiceError, match="over 4096 entries or 8 bytes"):
        extract_kit(_archive(OK, (_member("b"), b"12345")), out)
    monkeypatch.setattr("service._adaptation.MAX_KIT_FILES", 2)
    many = [(_member(f"d{i}", tarfile.DIRTYPE), b"") for i in range(3)]
    with pytest.raises(ServiceError, match="over 2 entries"):
        extract_kit(_archive(*many), out)
    assert not out.exists()


def test_a_kit_unpacks_only_into_a_new_directory(tmp_path: Path) -> None:
    out = tmp_path / "kit"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    with pytest.raises(ServiceError, match="not an empty directory"):
        extract_kit(_archive(OK), out)
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    nested = (_member("tools", tarfile.DIRTYPE), b""), (_member("tools/a.json"), b"{}")
    assert extract_kit(_archive(OK, *nested), tmp_path / "new") == ["README.md", "tools/a.json"]
    assert (tmp_path / "new" / "tools" / "a.json").read_text() == "{}"


def test_a_kit_that_cannot_be_written_whole_leaves_nothing_behind(tmp_path: Path) -> None:
    # Names are checked before anything is written, but only the file system knows its
    # limits: a 5,000-character name fails after other files could have been written.
    out = tmp_path / "kit"
    long = (_member("tools/" + "n" * 5000 + ".json"), b"{}")
    many = [(_member(f"a{i}.txt"), b"x") for i in range(20)]
    with pytest.raises(ServiceError, match="could not be written") as e:
        extract_kit(_archive(OK, *many, long), out)
    assert "nothing was written" in (e.value.hint or "")
    assert list(tmp_path.iterdir()) == []
    out.mkdir()
    with pytest.raises(ServiceError, match="could not be written"):
        extract_kit(_archive(*many, long), out)
    assert list(tmp_path.iterdir()) == [out] and list(out.iterdir()) == []
