"""`vwt submissions`: init, pack, validate, submit, list, receipt, through the CLI."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conditions import Cycle
from submissions import SUBMISSION_EVENT, Receipt, load_bundle_dir, reference_dir
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A cycle open for submissions."""
    home = tmp_path / "h"
    for cmd in (["cycle", "init"], ["conditions", "generate"], ["conditions", "commit"]):
        assert vwt(*cmd, "--home", str(home))[0] == 0
    assert vwt("cycle", "advance", "open", "--home", str(home))[0] == 0
    return home


@pytest.mark.parametrize("name", ["no-artifacts", "prompt-recipe", "typed-skill"])
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
    code, out = vwt("submissions", "receipt", str(path), "--bundle", skill)
    assert code == 0, out
    assert f"OK: typed-skill@1 (bundle {bundle.hash})" in out
    assert Cycle.open(home).fingerprint in out


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
    code, _ = vwt("submissions", "receipt", str(path), "--key", Cycle.open(home).public_key_b64)
    assert code == 0
    code, out = vwt("submissions", "receipt", str(path), "--key", "sha256:0123")
    assert code == 2 and "not sha256:0123" in out
    skill = str(reference_dir("typed-skill"))
    code, out = vwt("submissions", "receipt", str(path), "--bundle", skill)
    assert code == 2 and "the receipt is for bundle" in out
    data = json.loads(path.read_text())
    data["receipt"]["version"] = "2"
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    code, out = vwt("submissions", "receipt", str(forged))
    assert code == 2 and "signature does not verify" in out
    forged.write_text("{}")
    code, out = vwt("submissions", "receipt", str(forged))
    assert code == 2 and "is not a receipt" in out


def test_text_from_the_bundle_is_printed_literally(tmp_path: Path) -> None:
    dest = tmp_path / "odd [/] dir"
    assert vwt("submissions", "init", str(dest), "--from", "no-artifacts")[0] == 0
    manifest = json.loads((dest / "vwt-bundle.json").read_text())
    manifest.update(version="[/]", description="[bold]not markup[/]")
    (dest / "vwt-bundle.json").write_text(json.dumps(manifest))
    code, out = vwt("submissions", "validate", str(dest))
    assert code == 0, out
    assert "version [/]" in out and "[bold]not markup[/]" in out
    code, out = vwt("submissions", "validate", str(dest / "[/]absent"))
    assert code == 2 and "[/]absent: cannot read" in out
