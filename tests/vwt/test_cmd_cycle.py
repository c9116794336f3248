"""`vwt cycle`: init, status, advance, schema, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from conditions import PASSPHRASE_ENV, Cycle, CycleSpec, CycleState
from vwt.cli import app
from vwt.cmd_cycle import default_spec_path

runner = CliRunner()
WIDE = {"COLUMNS": "250"}


def vwt(*args: str, input: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env=WIDE, input=input)
    return result.exit_code, result.output


def test_init_uses_the_embedded_default_and_prints_the_fingerprint(tmp_path: Path) -> None:
    code, out = vwt("cycle", "init", "--home", str(tmp_path / "h"))
    assert code == 0, out
    cycle = Cycle.open(tmp_path / "h")
    assert cycle.spec == CycleSpec.load(default_spec_path())
    assert f"key fingerprint: {cycle.fingerprint}" in out
    assert "state draft" in out and "vwt-default-2026-12" in out


def test_init_with_a_json_spec(tmp_path: Path) -> None:
    data = yaml.safe_load(default_spec_path().read_text())
    data["cycle"] = "my-cycle"
    (tmp_path / "spec.json").write_text(json.dumps(data))
    code, out = vwt(
        "cycle", "init", "--home", str(tmp_path / "h"), "--spec", str(tmp_path / "spec.json")
    )
    assert code == 0, out
    assert Cycle.open(tmp_path / "h").id == "my-cycle"


def test_init_refuses_a_bad_spec_and_writes_nothing(tmp_path: Path) -> None:
    data = yaml.safe_load(default_spec_path().read_text())
    data["closes_at"] = "2020-01-01T00:00:00Z"
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(data))
    code, out = vwt(
        "cycle", "init", "--home", str(tmp_path / "h"), "--spec", str(tmp_path / "spec.yaml")
    )
    assert code == 2
    assert "closes_at must be later than opens_at" in out and "hint:" in out
    assert not (tmp_path / "h").exists()
    code, out = vwt(
        "cycle", "init", "--home", str(tmp_path / "h"), "--spec", str(tmp_path / "no.yaml")
    )
    assert code == 2 and "cannot read cycle spec" in out


def test_init_twice_needs_force(tmp_path: Path) -> None:
    home = str(tmp_path / "h")
    assert vwt("cycle", "init", "--home", home)[0] == 0
    first_key = (tmp_path / "h" / "operator" / "signing_key.pem").read_bytes()
    code, out = vwt("cycle", "init", "--home", home)
    assert code == 2 and "already holds a release cycle" in out and "--force" in out
    assert (tmp_path / "h" / "operator" / "signing_key.pem").read_bytes() == first_key
    assert vwt("cycle", "init", "--home", home, "--force")[0] == 0
    (old,) = (tmp_path / "h" / "superseded").iterdir()
    assert (old / "operator" / "signing_key.pem").read_bytes() == first_key


def test_encrypted_key_from_the_prompt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PASSPHRASE_ENV, raising=False)
    home = tmp_path / "h"
    code, out = vwt("cycle", "init", "--home", str(home), "--encrypt-key", input="pw1\npw1\n")
    assert code == 0, out
    assert b"ENCRYPTED" in (home / "operator" / "signing_key.pem").read_bytes()
    assert vwt("conditions", "generate", "--home", str(home))[0] == 0
    code, out = vwt("conditions", "commit", "--home", str(home))
    assert code == 2 and PASSPHRASE_ENV in out
    assert not (home / "public" / "commitment.json").exists()
    monkeypatch.setenv(PASSPHRASE_ENV, "pw1")
    assert vwt("conditions", "commit", "--home", str(home))[0] == 0


def test_status_shows_state_history_and_next_step(tmp_path: Path) -> None:
    home = str(tmp_path / "h")
    spec = Path(__file__).resolve().parents[1] / "conditions" / "fixtures" / "cycle.yaml"
    vwt("cycle", "init", "--home", home, "--spec", str(spec))
    vwt("conditions", "generate", "--home", home)
    vwt("conditions", "commit", "--home", home)
    code, out = vwt("cycle", "status", "--home", home)
    assert code == 0, out
    assert "state committed" in out
    assert "draft" in out and "commitment published" in out
    assert "target conditions: 8" in out and "chain intact" in out
    assert "vwt cycle advance open" in out


def test_status_without_a_cycle(tmp_path: Path) -> None:
    code, out = vwt("cycle", "status", "--home", str(tmp_path / "none"))
    assert code == 2 and "no release cycle" in out and "--home of the operator's cycle" in out


def test_advance_moves_one_step_and_refuses_skips(tmp_path: Path) -> None:
    home = str(tmp_path / "h")
    spec = Path(__file__).resolve().parents[1] / "conditions" / "fixtures" / "cycle.yaml"
    vwt("cycle", "init", "--home", home, "--spec", str(spec))
    vwt("conditions", "generate", "--home", home)
    vwt("conditions", "commit", "--home", home)
    code, out = vwt("cycle", "advance", "frozen_run", "--home", home)
    assert code == 2
    assert "in state 'committed'" in out and "the next state is 'open'" in out
    code, out = vwt(
        "cycle",
        "advance",
        "open",
        "--home",
        home,
        "--note",
        "submissions open",
        "--override-window",
    )
    assert code == 0 and "committed -> open" in out
    cycle = Cycle.open(Path(home))
    assert cycle.state == CycleState.open
    assert cycle.history()[-1].payload["note"] == "submissions open"
    code, out = vwt("cycle", "advance", "nowhere", "--home", home)
    assert code == 2 and "nowhere" in out


def test_schema_prints_the_spec_schema() -> None:
    code, out = vwt("cycle", "schema")
    assert code == 0
    assert json.loads(out) == CycleSpec.model_json_schema()
