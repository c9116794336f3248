"""`vwt cycle`: init, status, advance, schema, through the CLI."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from conditions import PASSPHRASE_ENV, PUBLIC_SEEDS, Cycle, CycleSpec, CycleState
from tests.conditions.conftest import record_run
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
    default = CycleSpec.load(default_spec_path())
    assert cycle.spec == default.model_copy(update={"seed": cycle.spec.seed})
    assert f"key fingerprint: {cycle.fingerprint}" in out
    assert "state draft" in out and "vwt-default-2026-12" in out


def test_init_draws_a_fresh_secret_seed_unless_the_spec_names_one(tmp_path: Path) -> None:
    """Without --spec, or with a spec without `seed:`, every init draws its own seed; the
    embedded default's public seed is never kept by accident."""
    seeds = []
    for name in ("a", "b"):
        code, out = vwt("cycle", "init", "--home", str(tmp_path / name))
        assert code == 0, out
        assert "seed: a fresh secret one" in out
        seeds.append(Cycle.open(tmp_path / name).spec.seed)
    data = yaml.safe_load(default_spec_path().read_text())
    del data["seed"]
    (tmp_path / "no-seed.yaml").write_text(yaml.safe_dump(data))
    code, out = vwt(
        "cycle", "init", "--home", str(tmp_path / "c"), "--spec", str(tmp_path / "no-seed.yaml")
    )
    assert code == 0, out
    seeds.append(Cycle.open(tmp_path / "c").spec.seed)
    assert len(set(seeds)) == 3 and not set(seeds) & PUBLIC_SEEDS
    assert all(2**32 <= s < 2**52 for s in seeds)  # 52 random bits: below 2**32 once in 2**20
    data["seed"] = 12345
    (tmp_path / "seed.yaml").write_text(yaml.safe_dump(data))
    code, out = vwt(
        "cycle", "init", "--home", str(tmp_path / "d"), "--spec", str(tmp_path / "seed.yaml")
    )
    assert code == 0 and "seed: a fresh secret one" not in out
    assert Cycle.open(tmp_path / "d").spec.seed == 12345
    code, out = vwt(
        "cycle", "init", "--home", str(tmp_path / "e"), "--spec", str(default_spec_path())
    )
    assert code == 0 and "is public" in out and "--public-seed" in out


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


def _committed_home(tmp_path: Path) -> str:
    home = str(tmp_path / "h")
    spec = Path(__file__).resolve().parents[1] / "conditions" / "fixtures" / "cycle.yaml"
    data = yaml.safe_load(spec.read_text())
    data |= {"opens_at": "2099-01-01T00:00:00Z", "closes_at": "2099-01-15T00:00:00Z"}
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(data))
    assert vwt("cycle", "init", "--home", home, "--spec", str(tmp_path / "spec.yaml"))[0] == 0
    assert vwt("conditions", "generate", "--home", home)[0] == 0
    assert vwt("conditions", "commit", "--home", home)[0] == 0
    return home


def test_status_json_is_one_object(tmp_path: Path) -> None:
    home = _committed_home(tmp_path)
    code, out = vwt("cycle", "status", "--home", home, "--json")
    assert code == 0, out
    facts = json.loads(out)
    cycle = Cycle.open(Path(home))
    assert facts["state"] == "committed" and facts["cycle"] == cycle.id
    assert facts["opens_at"] == "2099-01-01T00:00:00Z"
    assert facts["source"]["id"] == cycle.source.id and facts["fingerprint"] == cycle.fingerprint
    assert facts["targets"] == 8 and facts["reveal"] is None
    assert [t["to"] for t in facts["transitions"]] == ["draft", "committed"]
    ledger = facts["ledger"]
    assert (
        ledger["head"] == cycle.ledger.head() and ledger["entries"] == ledger["checkpoint_seq"] + 1
    )
    assert "vwt cycle advance open" in facts["next"]


def test_advance_open_early_needs_override_window_which_is_recorded(tmp_path: Path) -> None:
    home = _committed_home(tmp_path)
    code, out = vwt("cycle", "advance", "open", "--home", home)
    assert code == 2 and "cannot open before its opens_at 2099-01-01T00:00:00Z" in out
    assert "--override-window" in out
    code, out = vwt("cycle", "advance", "open", "--home", home, "--override-window")
    assert code == 0 and 'override="opens_at"' in out
    assert Cycle.open(Path(home)).history()[-1].payload["override"] == "opens_at"
    code, out = vwt("cycle", "status", "--home", home)
    assert code == 0 and 'override="opens_at"' in out


def test_advance_to_adaptation_needs_a_clean_frozen_run(tmp_path: Path) -> None:
    home = _committed_home(tmp_path)
    vwt("cycle", "advance", "open", "--home", home, "--override-window")
    assert vwt("cycle", "advance", "frozen_run", "--home", home)[0] == 0
    code, out = vwt("cycle", "advance", "adaptation", "--home", home)
    assert code == 2 and "no frozen run recorded" in out and f"vwt run frozen --home {home}" in out
    record_run(Cycle.open(Path(home)), "frozen", valid=2, invalid=2)
    code, out = vwt("cycle", "advance", "adaptation", "--home", home)
    assert code == 2 and "2 of 4 frozen trials are invalid" in out and "--accept-invalid" in out
    code, out = vwt("cycle", "advance", "adaptation", "--home", home, "--accept-invalid")
    assert code == 0 and "accept_invalid=true" in out and "invalid=2" in out
    assert Cycle.open(Path(home)).state == CycleState.adaptation


def assert_one_error(code: int, out: str, fragment: str) -> None:
    lines = out.strip().splitlines()
    assert code == 2 and "Traceback" not in out, out
    assert lines[0].startswith("error: ") and fragment in lines[0], out
    assert len(lines) == 2 and lines[1].startswith("hint: "), out


@pytest.mark.parametrize(
    ("statement", "fragment"),
    [
        (
            'UPDATE ledger SET payload = \'{"note":"x"}\' WHERE seq = 2',
            "ledger entry 2 was altered",
        ),
        ("DELETE FROM ledger WHERE seq = 2", "ledger entry 2 is missing"),
        ("DELETE FROM ledger WHERE seq = (SELECT max(seq) FROM ledger)", "is missing: the ledger"),
    ],
)
def test_every_command_refuses_an_edited_ledger(
    tmp_path: Path, statement: str, fragment: str
) -> None:
    home = _committed_home(tmp_path)
    db = sqlite3.connect(Path(home) / "vwt.sqlite")
    db.execute(statement)
    db.commit()
    db.close()
    for command in (
        ("cycle", "status"),
        ("cycle", "status", "--json"),
        ("cycle", "advance", "open", "--override-window"),
        ("conditions", "list"),
        ("conditions", "reveal"),
    ):
        code, out = vwt(*command, "--home", home)
        assert_one_error(code, out, fragment)


def test_a_home_readable_by_others_is_refused_with_the_fix(tmp_path: Path) -> None:
    home = _committed_home(tmp_path)
    os.chmod(home, 0o755)
    code, out = vwt("cycle", "status", "--home", home)
    assert_one_error(code, out, f"{home} is 0755")
    assert f"chmod 700 {home}" in out
