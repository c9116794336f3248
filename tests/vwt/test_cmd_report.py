"""`vwt report`: build, show and verify a release, through the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conditions import Cycle, CycleState
from reports import RELEASE_FILE, SignedRelease
from tests.reports.test_release import invalid_trials, shared_invalid_cycle
from tests.reports.test_verify import shared_revealed_cycle
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Cycle, str]:
    """A small revealed cycle released with `vwt report build`, and that command's output."""
    cycle = shared_revealed_cycle(tmp_path_factory, "report")
    code, out = vwt("report", "build", "--home", str(cycle.home))
    assert code == 0, out
    return cycle, out


def test_build_signs_publishes_renders_and_releases(built: tuple[Cycle, str]) -> None:
    cycle, out = built
    release = cycle.paths.public / RELEASE_FILE
    assert release.is_file() and (cycle.paths.public / "trials.jsonl").is_file()
    assert "Transfer matrix" in out and f"release: {release}" in out
    assert f"vwt report verify {cycle.paths.public}" in out
    assert Cycle.open(cycle.home).state == CycleState.released
    report = cycle.paths.public / "report.html"
    assert "HTML report:" in out and report.is_file()
    cells = json.loads(release.read_text())["release"]["cells"]
    page = report.read_text()
    assert all(c["condition_id"] in page and c["bundle_hash"] in page for c in cells)


def test_build_needs_a_revealed_cycle(tmp_path: Path) -> None:
    assert vwt("cycle", "init", "--home", str(tmp_path / "h"))[0] == 0
    code, out = vwt("report", "build", "--home", str(tmp_path / "h"))
    assert code == 2 and "cannot build the release" in out and "'draft'" in out
    assert not (tmp_path / "h" / "public" / RELEASE_FILE).exists()


def test_show_renders_and_says_it_did_not_verify(built: tuple[Cycle, str]) -> None:
    cycle, _ = built
    code, out = vwt("report", "show", str(cycle.paths.public / RELEASE_FILE))
    assert code == 0, out
    assert f"release of cycle {cycle.id}" in out and "Transfer matrix" in out
    assert "not verified here" in out and "typed-skill@1 — frozen" not in out
    code, out = vwt("report", "show", str(cycle.paths.public), "--detail")
    assert code == 0 and "typed-skill@1 — frozen" in out and "pass^k" in out


def test_show_json_is_the_release(built: tuple[Cycle, str]) -> None:
    cycle, _ = built
    code, out = vwt("report", "show", str(cycle.paths.public), "--json")
    assert code == 0
    on_disk = SignedRelease.model_validate_json((cycle.paths.public / RELEASE_FILE).read_text())
    assert SignedRelease.model_validate(json.loads(out)) == on_disk


def test_show_a_missing_release(tmp_path: Path) -> None:
    code, out = vwt("report", "show", str(tmp_path / "release.json"))
    assert code == 2 and "cannot read release" in out


def test_verify_passes_on_the_published_directory(built: tuple[Cycle, str]) -> None:
    cycle, _ = built
    code, out = vwt("report", "verify", str(cycle.paths.public), "--key", cycle.fingerprint)
    assert code == 0, out
    assert f"OK: release of cycle {cycle.id}" in out and cycle.fingerprint in out
    assert "cells recomputed from them match the release exactly" in out
    assert "tasks × k=2 planned trials (the size committed to)" in out


def test_verify_fails_on_tampering_and_changes_nothing(
    built: tuple[Cycle, str], tmp_path: Path
) -> None:
    cycle, _ = built
    pub = Path(shutil.copytree(cycle.paths.public, tmp_path / "pub"))
    data = json.loads((pub / RELEASE_FILE).read_text())
    data["release"]["cells"][0]["metrics"]["score_with"] -= 0.5
    (pub / RELEASE_FILE).write_text(json.dumps(data))
    before = {p: p.read_bytes() for p in pub.rglob("*") if p.is_file()}
    code, out = vwt("report", "verify", str(pub))
    assert code == 2
    assert "error: the release's signature does not verify" in out and "hint:" in out
    assert {p: p.read_bytes() for p in pub.rglob("*") if p.is_file()} == before


def test_verify_with_the_wrong_key(built: tuple[Cycle, str]) -> None:
    cycle, _ = built
    code, out = vwt("report", "verify", str(cycle.paths.public), "--key", "sha256:feed")
    assert code == 2 and "not the expected operator key sha256:feed" in out


def test_show_prints_the_release_summary(built: tuple[Cycle, str]) -> None:
    cycle, build_out = built
    code, out = vwt("report", "show", str(cycle.paths.public))
    n = SignedRelease.model_validate_json((cycle.paths.public / RELEASE_FILE).read_text())
    trials, frozen = n.release.n_trials, n.release.accounting[0].expected
    assert code == 0
    for text in (out, build_out):
        assert "evaluation: 2 tasks per split × k=2 per arm" in text
        assert f"frozen {frozen} of {frozen} planned trials ({frozen} valid, 0 invalid)" in text
        assert f"sandboxes: {trials} local trials" in text
        adapted = n.release.n_trials - frozen
        assert f"cost: frozen $0.0000 ({frozen} trials); adapted $0.0000 ({adapted} trials)" in text
        assert f"warning: {trials} trials ran in the 'local' sandbox, without isolation" in text
        assert "ACCEPTED INVALID" not in text


def test_verify_json_is_one_object_of_what_was_checked(built: tuple[Cycle, str]) -> None:
    cycle, _ = built
    code, out = vwt("report", "verify", str(cycle.paths.public), "--json")
    assert code == 0, out
    v = json.loads(out)
    assert (v["cycle"], v["fingerprint"], v["complete"]) == (cycle.id, cycle.fingerprint, True)
    assert (v["tasks_per_split"], v["k"], v["accepted_invalid"], v["invalid_trials"]) == (
        2,
        2,
        False,
        0,
    )
    assert v["sandboxes"] == {"local": v["trials"]}
    assert [a["phase"] for a in v["accounting"]] == ["frozen", "adapted"]
    frozen, adapted = (a["expected"] for a in v["accounting"])
    assert frozen + adapted == v["trials"] and v["late_submissions"] == 0
    assert v["path"] == str(cycle.paths.public / RELEASE_FILE)


def test_verify_json_of_a_broken_release_is_an_error(
    built: tuple[Cycle, str], tmp_path: Path
) -> None:
    cycle, _ = built
    pub = Path(shutil.copytree(cycle.paths.public, tmp_path / "pub"))
    (pub / "trials.jsonl").write_text("")
    code, out = vwt("report", "verify", str(pub), "--json")
    assert code == 2 and "error: trials file" in out and "{" not in out


def test_build_refuses_invalid_trials_unless_accepted(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    cycle = shared_invalid_cycle(tmp_path_factory, "report-invalid")
    code, out = vwt("report", "build", "--home", str(cycle.home))
    assert code == 2 and out.count("error:") == 1
    assert "error: cannot build the release:" in out and "frozen trials are invalid" in out
    assert f"vwt run frozen --home {cycle.home}" in out and "--accept-invalid" in out
    assert not (cycle.paths.public / RELEASE_FILE).exists()
    code, out = vwt("report", "build", "--home", str(cycle.home), "--accept-invalid")
    assert code == 0, out
    n = invalid_trials(cycle.spec)
    assert f"ACCEPTED INVALID: {n} invalid trials published" in out
    assert "i = infrastructure-invalid trials accepted" in " ".join(out.split())
    code, out = vwt("report", "verify", str(cycle.paths.public))
    assert code == 0 and f"accepted invalid: {n} invalid trials" in out


def test_show_escapes_what_an_untrusted_release_holds(
    built: tuple[Cycle, str], tmp_path: Path
) -> None:
    cycle, _ = built
    pub = Path(shutil.copytree(cycle.paths.public, tmp_path / "pub"))
    data = json.loads((pub / RELEASE_FILE).read_text())
    data["release"]["cycle"] = "[red]c\x1b[2J"
    data["release"]["submissions"][0]["name"] = "[link=x]evil\u202e\x1b[31m"
    data["release"]["sandboxes"] = {"loc\x07al": 1}
    (pub / RELEASE_FILE).write_text(json.dumps(data))
    code, out = vwt("report", "show", str(pub))
    assert code == 0, out
    assert "\x1b" not in out and "\u202e" not in out and "\x07" not in out
    assert "release of cycle [red]c\\x1b[2J" in out
    assert "[link=x]evil\\u202e\\x1b[31m@1" in out and "1 loc\\x07al trials" in out
