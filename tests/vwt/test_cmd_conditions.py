"""`vwt conditions`: generate, list, commit, reveal and verify, through the CLI."""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conditions import PUBLIC_SEEDS, Cycle, CycleState
from tests.conditions.conftest import record_run
from vwt.cli import app

runner = CliRunner()
# A pinned spec (8 targets), so the embedded default can change without moving these counts.
SPEC = str(Path(__file__).resolve().parents[1] / "conditions" / "fixtures" / "cycle.yaml")


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "h"
    assert vwt("cycle", "init", "--home", str(home), "--spec", SPEC)[0] == 0
    return home


def _to_adapted_run(home: Path) -> None:
    """Advance through the CLI, with clean runs recorded as `vwt run` records them."""
    assert vwt("cycle", "advance", "open", "--home", str(home), "--override-window")[0] == 0
    assert vwt("cycle", "advance", "frozen_run", "--home", str(home))[0] == 0
    record_run(Cycle.open(home), "frozen")
    for state in ("adaptation", "adapted_run"):
        assert vwt("cycle", "advance", state, "--home", str(home))[0] == 0
    record_run(Cycle.open(home), "adapted")


def test_generate_reports_strata_and_manifest(home: Path) -> None:
    code, out = vwt("conditions", "generate", "--home", str(home), "--max-conditions", "6")
    assert code == 0, out
    assert "6 target conditions" in out and "of 8 realisable" in out
    assert "model+tool_interface: 1" in out
    assert Cycle.open(home).spec.catalogue.digest() in out
    code, out = vwt("conditions", "generate", "--home", str(home), "--max-conditions", "2")
    assert code == 2 and "below the 4 single-axis conditions" in out
    assert len(Cycle.open(home).targets()) == 6


def test_list_shows_every_target_as_table_or_json(home: Path) -> None:
    vwt("conditions", "generate", "--home", str(home))
    targets = Cycle.open(home).targets()
    code, out = vwt("conditions", "list", "--home", str(home))
    assert code == 0
    assert all(t.id in out for t in targets) and "(source)" in out
    code, out = vwt("conditions", "list", "--home", str(home), "--json")
    facts = json.loads(out)
    assert facts["cycle"] == "vwt-default-2026-12" and facts["state"] == "draft"
    assert facts["source"]["id"] == Cycle.open(home).source.id
    assert facts["targets"] == [
        {"id": t.id, "varied": list(t.varied), "condition": t.condition.model_dump(mode="json")}
        for t in targets
    ]
    assert not [t.salt for t in targets if t.salt in out]


def test_commit_refuses_the_public_default_seed_unless_meant(tmp_path: Path) -> None:
    """The embedded default's seed is public: committing to it is refused (one error line,
    nothing written) unless --public-seed says so, which the ledger records."""
    home = tmp_path / "h"
    default = Path(__file__).resolve().parents[2] / "benchmark" / "default_cycle.yaml"
    assert vwt("cycle", "init", "--home", str(home), "--spec", str(default))[0] == 0
    assert Cycle.open(home).spec.seed in PUBLIC_SEEDS
    assert vwt("conditions", "generate", "--home", str(home))[0] == 0
    before = _snapshot(home)
    code, out = vwt("conditions", "commit", "--home", str(home))
    assert code == 2, out
    assert out.startswith("error: cycle vwt-default-2026-12's seed 20261201 is public")
    assert "hint:" in out and "--public-seed" in out and len(out.strip().splitlines()) == 2
    assert _snapshot(home) == before and Cycle.open(home).state == CycleState.draft
    code, out = vwt("conditions", "commit", "--home", str(home), "--public-seed")
    assert code == 0, out
    entry = Cycle.open(home).ledger.last("conditions.committed")
    assert entry is not None and entry.payload["public_seed"] is True


def test_a_secret_seed_commits_without_a_flag_or_a_mark(home: Path) -> None:
    assert vwt("conditions", "generate", "--home", str(home))[0] == 0
    assert vwt("conditions", "commit", "--home", str(home))[0] == 0
    entry = Cycle.open(home).ledger.last("conditions.committed")
    assert entry is not None and "public_seed" not in entry.payload


def test_list_before_generate_says_what_to_do(home: Path) -> None:
    code, out = vwt("conditions", "list", "--home", str(home))
    assert code == 2 and "vwt conditions generate" in out


def test_commit_prints_no_condition(home: Path) -> None:
    vwt("conditions", "generate", "--home", str(home))
    code, out = vwt("conditions", "commit", "--home", str(home))
    assert code == 0, out
    cycle = Cycle.open(home)
    assert cycle.state == CycleState.committed
    commitment = json.loads(cycle.paths.commitment.read_text())["commitment"]
    assert commitment["root"] in out and cycle.fingerprint in out
    assert "committed evaluation size 24 tasks per split × k = 3" in out
    assert not [t.id for t in cycle.targets() if t.id in out]
    for value in ("sim/acme-3", "orbit", "support-ops@2"):
        assert value not in out
    code, out = vwt("conditions", "generate", "--home", str(home))
    assert code == 2 and "cannot change the target conditions" in out and "'committed'" in out


def test_reveal_before_the_runs_end_is_refused(home: Path) -> None:
    vwt("conditions", "generate", "--home", str(home))
    vwt("conditions", "commit", "--home", str(home))
    vwt("cycle", "advance", "open", "--home", str(home), "--override-window")
    code, out = vwt("conditions", "reveal", "--home", str(home))
    assert code == 2 and "in state 'open'" in out and "hint:" in out
    assert not (home / "public" / "reveal.json").exists()


def test_full_walk_reveal_and_verify(home: Path) -> None:
    vwt("conditions", "generate", "--home", str(home))
    vwt("conditions", "commit", "--home", str(home))
    _to_adapted_run(home)
    code, out = vwt("conditions", "reveal", "--home", str(home))
    assert code == 0, out
    assert "full reveal of 8 of 8" in out and "now revealed" in out
    pub = home / "public"
    code, out = vwt(
        "conditions",
        "verify",
        "--commitment",
        str(pub / "commitment.json"),
        "--reveal",
        str(pub / "reveal.json"),
    )
    assert code == 0, out
    assert "OK: full reveal" in out
    assert "evaluation size 24 tasks per split × k = 3" in out
    assert all(t.id in out for t in Cycle.open(home).targets())


def test_selective_reveal_and_key_pinning(home: Path) -> None:
    vwt("conditions", "generate", "--home", str(home))
    vwt("conditions", "commit", "--home", str(home))
    _to_adapted_run(home)
    cycle = Cycle.open(home)
    chosen = cycle.targets()[0].id
    code, out = vwt("conditions", "reveal", "--home", str(home), "--condition", chosen)
    assert code == 0 and "selective reveal of 1 of 8" in out
    pub = home / "public"
    args = ["conditions", "verify", "--commitment", str(pub / "commitment.json")]
    code, out = vwt(*args, "--reveal", str(pub / "reveal.json"), "--key", cycle.fingerprint)
    assert code == 0 and chosen in out and "OK: selective reveal" in out
    code, out = vwt(*args, "--key", cycle.public_key_b64)
    assert code == 0 and "no condition checked" in out
    assert "evaluation size 24 tasks per split × k = 3" in out
    code, out = vwt(*args, "--key", "sha256:" + "f" * 32)
    assert code == 2 and "not the expected operator key" in out
    code, out = vwt("conditions", "reveal", "--home", str(home), "--condition", "c-nope")
    assert code == 2 and "c-nope" in out


@pytest.mark.parametrize(
    ("which", "edit", "message"),
    [
        (
            "reveal",
            lambda d: d["reveal"]["leaves"][0]["leaf"]["condition"].update(provider="x"),
            "reveal's signature",
        ),
        ("reveal", lambda d: d["reveal"]["leaves"].pop(), "reveal's signature"),
        ("commitment", lambda d: d["commitment"].update(tree_size=9), "commitment's signature"),
        (
            "commitment",
            lambda d: d.update(signature=base64.b64encode(bytes(64)).decode()),
            "commitment's signature",
        ),
        ("commitment", lambda d: d.update(v=4), "malformed"),
        ("commitment", lambda d: d.update(v=1), "is format v1"),
        ("commitment", lambda d: d.update(v=2), "is format v2"),
        (
            "commitment",
            lambda d: d["commitment"]["families"]["held_out"].append("poetry"),
            "commitment's signature",
        ),
        (
            "commitment",
            lambda d: d["commitment"]["evaluation"].update(k=1),
            "commitment's signature",
        ),
    ],
)
def test_tampered_files_fail_and_nothing_changes(
    home: Path, which: str, edit: Callable[[dict[str, Any]], object], message: str
) -> None:
    vwt("conditions", "generate", "--home", str(home))
    vwt("conditions", "commit", "--home", str(home))
    _to_adapted_run(home)
    vwt("conditions", "reveal", "--home", str(home))
    pub = home / "public"
    doc = json.loads((pub / f"{which}.json").read_text())
    edit(doc)
    tampered = home.parent / f"{which}-tampered.json"
    tampered.write_text(json.dumps(doc))
    files = {"commitment": pub / "commitment.json", "reveal": pub / "reveal.json", which: tampered}
    before = _snapshot(home.parent)
    code, out = vwt(
        "conditions",
        "verify",
        "--commitment",
        str(files["commitment"]),
        "--reveal",
        str(files["reveal"]),
    )
    assert code == 2 and message in out and "OK" not in out
    assert _snapshot(home.parent) == before


def test_verify_json_carries_the_commitment_facts_and_keyed_ids(home: Path) -> None:
    vwt("conditions", "generate", "--home", str(home))
    vwt("conditions", "commit", "--home", str(home))
    pub = home / "public"
    args = ["conditions", "verify", "--commitment", str(pub / "commitment.json"), "--json"]
    code, out = vwt(*args)
    assert code == 0, out
    alone = json.loads(out)
    cycle = Cycle.open(home)
    c = json.loads(cycle.paths.commitment.read_text())["commitment"]
    assert alone["ok"] is True and alone["root"] == c["root"] and alone["tree_size"] == 8
    assert alone["fingerprint"] == cycle.fingerprint and alone["scope"] is None
    size = {"tasks_per_split": 24, "k": 3}
    assert alone["evaluation"] == c["evaluation"] == size
    assert alone["conditions"] == []
    _to_adapted_run(home)
    assert vwt("conditions", "reveal", "--home", str(home))[0] == 0
    code, out = vwt(*args, "--reveal", str(pub / "reveal.json"))
    assert code == 0, out
    full = json.loads(out)
    assert {k: full[k] for k in alone if k not in ("scope", "conditions")} == {
        k: v for k, v in alone.items() if k not in ("scope", "conditions")
    }
    assert full["scope"] == "full" and len(full["conditions"]) == 8
    assert full["evaluation"] == size
    assert {x["id"] for x in full["conditions"]} == {t.id for t in cycle.targets()}
    code, out = vwt(*args, "--key", "sha256:" + "f" * 32)
    assert code == 2 and "not the expected operator key" in out


def test_reveal_with_invalid_adapted_trials_needs_accept_invalid(home: Path) -> None:
    vwt("conditions", "generate", "--home", str(home))
    vwt("conditions", "commit", "--home", str(home))
    _to_adapted_run(home)
    record_run(Cycle.open(home), "adapted", valid=3, invalid=1)
    code, out = vwt("conditions", "reveal", "--home", str(home))
    assert code == 2 and "1 of 4 adapted trials are invalid" in out
    assert not (home / "public" / "reveal.json").exists()
    code, out = vwt("conditions", "reveal", "--home", str(home), "--accept-invalid")
    assert code == 0, out
    assert Cycle.open(home).history()[-1].payload["accept_invalid"] is True


def test_commit_warns_once_when_the_size_cannot_detect_a_gain_of_015(tmp_path: Path) -> None:
    """The planned size decides the warning: 24 × 3 detects 0.15 (no warning, above), 4 × 1
    does not — a warning, and the commitment stands."""
    small = tmp_path / "small.yaml"
    text = Path(SPEC).read_text()
    small.write_text(
        text.replace("tasks_per_split: 24", "tasks_per_split: 4").replace("k: 3", "k: 1")
    )
    home = tmp_path / "h"
    assert vwt("cycle", "init", "--home", str(home), "--spec", str(small))[0] == 0
    vwt("conditions", "generate", "--home", str(home))
    code, out = vwt("conditions", "commit", "--home", str(home))
    assert code == 0, out
    assert Cycle.open(home).state == CycleState.committed
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "4 tasks × k = 1" in warnings[0], out


def test_commit_at_the_default_size_does_not_warn(home: Path) -> None:
    vwt("conditions", "generate", "--home", str(home))
    code, out = vwt("conditions", "commit", "--home", str(home))
    assert code == 0 and "warning:" not in out, out
