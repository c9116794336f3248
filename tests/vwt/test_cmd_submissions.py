"""`vwt submissions`: init, pack, validate, submit, list, receipt, through the CLI."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conditions import Cycle, CycleSpec
from submissions import SUBMISSION_EVENT, Receipt, load_bundle_dir, reference_dir
from tests.submissions.conftest import CLOSED_WINDOW, spec_with
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


def open_home(home: Path, spec: CycleSpec, *init_args: str) -> Path:
    """A cycle of ``spec`` in ``home``, open for submissions, made through the CLI."""
    spec_file = home.parent / f"{home.name}-spec.json"
    spec_file.write_text(spec.model_dump_json())
    steps = (
        ["cycle", "init", "--spec", str(spec_file), *init_args],
        ["conditions", "generate"],
        ["conditions", "commit", "--public-seed"],  # spec_with: the embedded default
        ["cycle", "advance", "open"],
    )
    for cmd in steps:
        code, out = vwt(*cmd, "--home", str(home))
        assert code == 0, out
    return home


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A cycle open for submissions (its window opened long ago)."""
    return open_home(tmp_path / "h", spec_with())


def assert_one_line_error(code: int, out: str, *words: str) -> None:
    """Exit 2 with one error line and one hint line, no traceback."""
    assert code == 2, out
    lines = out.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: ") and lines[1].startswith("hint: ")
    for word in words:
        assert word.lower() in lines[0].lower()


@pytest.mark.parametrize(
    "name", ["no-artifacts", "prompt-recipe", "typed-skill", "retrieved-trajectories"]
)
def test_init_copies_a_reference_that_validates(tmp_path: Path, name: str) -> None:
    dest = tmp_path / "mine"
    code, out = vwt("submissions", "init", str(dest), "--from", name)
    assert code == 0, out
    assert load_bundle_dir(dest) == load_bundle_dir(reference_dir(name))
    assert "vwt run dev --submission" in out
    assert vwt("submissions", "validate", str(dest))[0] == 0


def test_init_defaults_to_the_prompt_recipe_and_never_overwrites(tmp_path: Path) -> None:
    dest = tmp_path / "mine"
    assert vwt("submissions", "init", str(dest))[0] == 0
    assert load_bundle_dir(dest).manifest.name == "prompt-recipe"
    (dest / "refund-playbook.md").write_text("1. my own playbook")
    code, out = vwt("submissions", "init", str(dest), "--from", "typed-skill")
    assert code == 2 and "not an empty directory" in out
    assert (dest / "refund-playbook.md").read_text() == "1. my own playbook"
    code, out = vwt("submissions", "init", str(tmp_path), "--from", "nonsense")
    assert code != 0 and "nonsense" in out


def test_pack_writes_the_canonical_file_and_prints_its_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundle = load_bundle_dir(reference_dir("typed-skill"))
    out_file = tmp_path / "out" / "b.json"
    skill = str(reference_dir("typed-skill"))
    code, out = vwt("submissions", "pack", skill, "--out", str(out_file))
    assert code == 0, out
    assert f"hash: {bundle.hash}" in out
    assert hashlib.sha256(out_file.read_bytes()).hexdigest() == bundle.hash
    monkeypatch.chdir(tmp_path)
    assert vwt("submissions", "pack", str(reference_dir("prompt-recipe")))[0] == 0
    assert (tmp_path / "prompt-recipe-1.bundle.json").is_file()


def test_pack_refuses_a_bad_directory_and_writes_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    assert vwt("submissions", "init", str(bad), "--from", "typed-skill")[0] == 0
    (bad / "refund-ticket.skill.json").write_text("{}")
    code, out = vwt("submissions", "pack", str(bad), "--out", str(tmp_path / "b.json"))
    assert code == 2 and "typed skill" in out and "hint:" in out
    assert not (tmp_path / "b.json").exists()
    code, out = vwt("submissions", "pack", str(tmp_path / "b.json"))
    assert code == 2 and "not a directory" in out


def test_validate_a_directory_and_a_packed_file(tmp_path: Path) -> None:
    source = reference_dir("prompt-recipe")
    bundle = load_bundle_dir(source)
    packed = tmp_path / "p.json"
    vwt("submissions", "pack", str(source), "--out", str(packed))
    for path in (source, packed):
        code, out = vwt("submissions", "validate", str(path))
        assert code == 0, out
        assert bundle.hash in out and "refund-playbook" in out and "prompt_recipe" in out
        assert "OK: the bundle is valid" in out


def test_validate_refuses_a_tampered_packed_file(tmp_path: Path) -> None:
    packed = tmp_path / "p.json"
    vwt("submissions", "pack", str(reference_dir("prompt-recipe")), "--out", str(packed))
    data = json.loads(packed.read_text())
    data["files"]["extra.md"] = "smuggled"
    packed.write_text(json.dumps(data))
    code, out = vwt("submissions", "validate", str(packed))
    assert code == 2 and "files must be exactly the artifact paths" in out
    code, out = vwt("submissions", "validate", str(tmp_path / "absent.json"))
    assert code == 2 and "cannot read" in out


def test_submit_writes_a_verifiable_receipt(home: Path, tmp_path: Path) -> None:
    bundle = load_bundle_dir(reference_dir("typed-skill"))
    code, out = vwt("submissions", "submit", str(reference_dir("typed-skill")), "--home", str(home))
    assert code == 0, out
    path = home / "receipts" / f"{bundle.hash}.json"
    receipt = Receipt.model_validate_json(path.read_text())
    assert receipt.verify() and receipt.receipt.bundle_hash == bundle.hash
    assert receipt.model_dump_json(indent=2) in out
    skill = str(reference_dir("typed-skill"))
    code, out = vwt("submissions", "receipt", "--verify", str(path), "--bundle", skill)
    assert code == 0, out
    assert f"OK: typed-skill@1 (bundle {bundle.hash})" in out
    assert Cycle.open(home).fingerprint in out
    assert "not checked against the cycle's commitment" in out


def test_submit_twice_or_when_closed_is_refused(home: Path) -> None:
    path = str(reference_dir("no-artifacts"))
    assert vwt("submissions", "submit", path, "--home", str(home))[0] == 0
    code, out = vwt("submissions", "submit", path, "--home", str(home))
    assert code == 2 and "already submitted" in out
    assert vwt("cycle", "advance", "frozen_run", "--home", str(home))[0] == 0
    other = str(reference_dir("prompt-recipe"))
    code, out = vwt("submissions", "submit", other, "--home", str(home))
    assert code == 2 and "cannot submit a bundle" in out and "'frozen_run'" in out
    assert len(Cycle.open(home).ledger.entries(SUBMISSION_EVENT)) == 1
    assert len(list((home / "receipts").iterdir())) == 1


def test_submit_refuses_an_invalid_bundle_before_touching_the_cycle(
    home: Path, tmp_path: Path
) -> None:
    (tmp_path / "empty").mkdir()
    code, out = vwt("submissions", "submit", str(tmp_path / "empty"), "--home", str(home))
    assert code == 2 and "no vwt-bundle.json" in out
    assert Cycle.open(home).ledger.entries(SUBMISSION_EVENT) == []
    assert not (home / "receipts").exists()


def test_list_shows_submissions_in_order(home: Path) -> None:
    code, out = vwt("submissions", "list", "--home", str(home))
    assert code == 0 and "0 submissions" in out
    names = ["typed-skill", "no-artifacts"]
    for name in names:
        vwt("submissions", "submit", str(reference_dir(name)), "--home", str(home))
    code, out = vwt("submissions", "list", "--home", str(home))
    assert code == 0, out
    assert out.index("typed-skill") < out.index("no-artifacts")
    assert "typed_skill:refund-ticket" in out and "2 submissions" in out
    for name in names:
        assert load_bundle_dir(reference_dir(name)).hash in out


def test_receipt_refuses_tampering_the_wrong_key_and_the_wrong_bundle(
    home: Path, tmp_path: Path
) -> None:
    bundle_dir = str(reference_dir("prompt-recipe"))
    vwt("submissions", "submit", bundle_dir, "--home", str(home))
    (path,) = (home / "receipts").iterdir()
    key = Cycle.open(home).public_key_b64
    code, _ = vwt("submissions", "receipt", "--verify", str(path), "--key", key)
    assert code == 0
    code, out = vwt("submissions", "receipt", "--verify", str(path), "--key", "sha256:0123")
    assert_one_line_error(code, out, "not sha256:0123")
    skill = str(reference_dir("typed-skill"))
    code, out = vwt("submissions", "receipt", "--verify", str(path), "--bundle", skill)
    assert_one_line_error(code, out, "the receipt is for bundle")
    data = json.loads(path.read_text())
    data["receipt"]["version"] = "2"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    code, out = vwt("submissions", "receipt", "--verify", str(forged))
    assert_one_line_error(code, out, "signature does not verify")
    forged.write_text("{}")
    code, out = vwt("submissions", "receipt", "--verify", str(forged))
    assert_one_line_error(code, out, "is not a receipt")


def test_text_from_the_bundle_is_printed_literally(tmp_path: Path) -> None:
    dest = tmp_path / "odd [/] dir"
    assert vwt("submissions", "init", str(dest), "--from", "no-artifacts")[0] == 0
    manifest = json.loads((dest / "vwt-bundle.json").read_text())
    manifest.update(description="[bold]not markup[/]", authors=["[red]Ann[/]"])
    (dest / "vwt-bundle.json").write_text(json.dumps(manifest))
    code, out = vwt("submissions", "validate", str(dest))
    assert code == 0, out
    assert "[bold]not markup[/]" in out and "authors: [red]Ann[/]" in out
    code, out = vwt("submissions", "validate", str(dest / "[/]absent"))
    assert_one_line_error(code, out, "[/]absent: cannot read")


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("name", "no-artifacts\n"),
        ("version", "1\x1b[31m"),
        ("version", "1\u202e"),
        ("description", "ok\x1b]0;pwned\x07"),
    ],
)
def test_terminal_controls_in_a_manifest_are_refused_on_one_line(
    tmp_path: Path, field: str, value: str
) -> None:
    dest = tmp_path / "b"
    assert vwt("submissions", "init", str(dest), "--from", "no-artifacts")[0] == 0
    manifest = json.loads((dest / "vwt-bundle.json").read_text())
    manifest[field] = value
    (dest / "vwt-bundle.json").write_text(json.dumps(manifest))
    code, out = vwt("submissions", "validate", str(dest))
    assert_one_line_error(code, out, field)
    assert "\x1b" not in out and "\u202e" not in out


def _deep_packed(path: Path) -> Path:
    path.write_text('{"v": 1, "manifest": ' + "[" * 100_000 + "]" * 100_000 + "}")
    return path


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda d: d / "nul\x00.json", ["nul"]),
        (lambda d: d / ("x" * 300), ["too long"]),
        (lambda d: Path("/dev/zero"), ["not a regular file"]),
        (_deep_packed, ["not a valid bundle", "recursion limit"]),
        (lambda d: d, ["no vwt-bundle.json"]),
    ],
)
def test_bad_paths_and_files_are_one_line_errors(
    tmp_path: Path, make: object, words: list[str]
) -> None:
    path = make(tmp_path / "deep.json" if make is _deep_packed else tmp_path)  # type: ignore[operator]
    for cmd in ("validate", "pack"):
        assert_one_line_error(
            *vwt("submissions", cmd, str(path)), *([] if cmd == "pack" else words)
        )


def vwt_without_root_file_access(*args: str) -> tuple[int, str]:
    """Run vwt in a process that file modes bind, even as root (whose DAC override is dropped)."""
    cmd = [sys.executable, "-m", "vwt", *args]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: file modes cannot be enforced")
        cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *cmd]
    env = {**os.environ, "COLUMNS": "250", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("unreadable", "word"),
    [
        ("refund-playbook.md", "Permission denied"),
        ("vwt-bundle.json", "Permission denied"),
        ("packed", "not readable"),  # click checks a path argument it is given
    ],
)
def test_an_unreadable_bundle_is_a_one_line_error(
    tmp_path: Path, unreadable: str, word: str
) -> None:
    dest = tmp_path / "b"
    assert vwt("submissions", "init", str(dest))[0] == 0
    target = dest / unreadable
    if unreadable == "packed":
        assert vwt("submissions", "pack", str(dest), "--out", str(target))[0] == 0
    target.chmod(0)
    code, out = vwt_without_root_file_access(
        "submissions", "validate", str(target.parent if unreadable != "packed" else target)
    )
    assert_one_line_error(code, out, word)


def test_a_second_bundle_under_a_taken_name_is_refused(home: Path, tmp_path: Path) -> None:
    dest = tmp_path / "impostor"
    assert vwt("submissions", "init", str(dest))[0] == 0
    (dest / "refund-playbook.md").write_text("1. Refund everything, twice.")
    holder = load_bundle_dir(reference_dir("prompt-recipe")).hash
    assert (
        vwt("submissions", "submit", str(reference_dir("prompt-recipe")), "--home", str(home))[0]
        == 0
    )
    code, out = vwt("submissions", "submit", str(dest), "--home", str(home))
    assert_one_line_error(code, out, "prompt-recipe@1 is already taken", holder[:12])
    assert len(Cycle.open(home).ledger.entries(SUBMISSION_EVENT)) == 1


def test_late_submissions_need_the_operator_override(tmp_path: Path) -> None:
    home = open_home(tmp_path / "closed", spec_with(CLOSED_WINDOW))
    bundle = str(reference_dir("typed-skill"))
    code, out = vwt("submissions", "submit", bundle, "--home", str(home))
    assert_one_line_error(code, out, "closed at 2020-02-01T00:00:00Z")
    assert "--late" in out
    code, out = vwt("submissions", "submit", bundle, "--home", str(home), "--late")
    assert code == 0, out
    assert "accepted late" in out and '"late": true' in out
    (receipt,) = (home / "receipts").iterdir()
    code, out = vwt("submissions", "receipt", "--verify", str(receipt))
    assert code == 0 and "(late, by operator override)" in out
    code, out = vwt("submissions", "list", "--home", str(home))
    assert "(late)" in out


def test_list_json(home: Path) -> None:
    code, out = vwt("submissions", "list", "--home", str(home), "--json")
    assert code == 0 and json.loads(out) == {
        "cycle": Cycle.open(home).id,
        "state": "open",
        "submissions": [],
    }
    for name in ("typed-skill", "no-artifacts"):
        vwt("submissions", "submit", str(reference_dir(name)), "--home", str(home))
    code, out = vwt("submissions", "list", "--home", str(home), "--json")
    assert code == 0, out
    data = json.loads(out)
    skill, empty = data["submissions"]
    receipt = json.loads((home / "receipts" / f"{skill['bundle_hash']}.json").read_text())
    assert skill == {
        "name": "typed-skill",
        "version": "1",
        "bundle_hash": load_bundle_dir(reference_dir("typed-skill")).hash,
        "received_at": receipt["receipt"]["received_at"],
        "late": False,
        "artifacts": [
            {
                "kind": "typed_skill",
                "name": name,
                "path": f"{name}.skill.json",
                "bytes": (reference_dir("typed-skill") / f"{name}.skill.json").stat().st_size,
            }
            for name in (
                "refund-ticket",
                "reconcile-books",
                "answer-with-citation",
                "dependency-update",
            )
        ],
    }
    assert empty["name"] == "no-artifacts" and empty["artifacts"] == []


def test_receipt_checked_against_the_public_commitment(home: Path, tmp_path: Path) -> None:
    vwt("submissions", "submit", str(reference_dir("no-artifacts")), "--home", str(home))
    (receipt,) = (home / "receipts").iterdir()
    commitment = home / "public" / "commitment.json"
    code, out = vwt(
        "submissions", "receipt", "--verify", str(receipt), "--commitment", str(commitment)
    )
    assert code == 0, out
    root = json.loads(commitment.read_text())["commitment"]["root"]
    assert f"issued under the commitment of cycle {Cycle.open(home).id} (root {root})" in out
    key = str(home / "operator" / "signing_key.pem")
    other_cycle = open_home(tmp_path / "other", spec_with(cycle="other-cycle"), "--key", key)
    recommitted = open_home(tmp_path / "again", spec_with(), "--key", key)
    other_key = open_home(tmp_path / "stranger", spec_with())
    edited = tmp_path / "edited.json"
    data = json.loads(commitment.read_text())
    data["commitment"]["root"] = "0" * 64
    edited.write_text(json.dumps(data))
    for path, words in [
        (other_cycle / "public" / "commitment.json", ["the commitment for cycle other-cycle"]),
        (recommitted / "public" / "commitment.json", ["issued under commitment root"]),
        (other_key / "public" / "commitment.json", ["the commitment by key"]),
        (edited, ["signature does not verify"]),
    ]:
        code, out = vwt(
            "submissions", "receipt", "--verify", str(receipt), "--commitment", str(path)
        )
        assert_one_line_error(code, out, *words)


def test_write_failures_are_one_line_errors(home: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    code, out = vwt(
        "submissions", "pack", str(reference_dir("prompt-recipe")), "--out", str(blocker / "b.json")
    )
    assert_one_line_error(code, out, "cannot write", "b.json")
    (home / "receipts").write_text("in the way")
    code, out = vwt(
        "submissions", "submit", str(reference_dir("no-artifacts")), "--home", str(home)
    )
    assert code == 2 and '"bundle_hash"' in out  # the receipt is printed before the failure
    assert "the bundle was accepted, but its receipt could not be written" in out
    assert len(Cycle.open(home).ledger.entries(SUBMISSION_EVENT)) == 1
