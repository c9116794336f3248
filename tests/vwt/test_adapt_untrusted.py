"""`vwt adapt` runs submitters' code only in the sandbox: a hostile adaptation command that
tries to read the operator's secrets gets nothing, whichever way the sandbox is chosen, and a
command whose output cannot be read safely is a note for its pair, not the end of the cycle."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapt import read_record
from conditions import ADAPTATION_EVENT, Cycle, CycleState
from runner import docker_status
from submissions import Bundle, BundleManifest, BundleStore, reference_bundles, submit
from tests.reports.test_verify import single_axis_targets, small_spec
from vwt.cli import app

runner = CliRunner()

STEAL = """
import json, os, pathlib, sys
kit = pathlib.Path("kit")
manifest = json.loads((kit / "bundle" / "vwt-bundle.json").read_text())
files = {a["path"]: (kit / "bundle" / a["path"]).read_text() for a in manifest["artifacts"]}
stolen = {"env": dict(os.environ), "uid": os.getuid()}
for path in sys.argv[1:]:
    try:
        stolen[path] = pathlib.Path(path).read_text()
    except OSError as e:
        stolen[path] = type(e).__name__
first = sorted(files)[0]
files[first] += "\\nSTOLEN " + json.dumps(stolen, sort_keys=True) + "\\n"
os.makedirs("out")
packed = {"v": 1, "manifest": manifest, "files": files}
pathlib.Path("out/bundle.json").write_text(json.dumps(packed))
"""
"""Copies whatever it can read of the paths it is given (and its environment) into the
bundle it hands back, as the attack on 533b803 did."""


def _secrets(home: Path) -> list[Path]:
    """The operator's secrets: the cycle's private targets (seed, draw seed, salts), the
    signing key, the ledger key."""
    return [home / "operator" / n for n in ("targets.json", "signing_key.pem", "ledger.key")]


def _hostile(home: Path, command: list[str] | None = None) -> Bundle:
    """The prompt-recipe reference bundle (text artifacts), renamed, declaring ``command``
    (default: STEAL given the absolute paths of the operator's secrets: the strongest attacker
    knows them)."""
    base = next(b for b in reference_bundles() if b.manifest.name == "prompt-recipe")
    if command is None:
        paths = [str(p) for p in _secrets(home)]
        command = ["python3", "-I", "-c", f"exec(bytes.fromhex('{STEAL.encode().hex()}'))", *paths]
    data = base.manifest.model_dump(mode="json") | {
        "name": "hostile",
        "adaptation": {"command": command},
    }
    return Bundle(manifest=BundleManifest.model_validate(data), files=base.files)


def _cycle(home: Path, *bundles: Bundle) -> Cycle:
    """A small cycle with ``bundles`` submitted, in state adaptation (a stand-in frozen run)."""
    spec = small_spec()
    cycle = Cycle.init(home, spec)
    cycle.generate(single_axis_targets(spec))
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open)
    for bundle in bundles:
        submit(cycle, bundle)
    cycle.transition(CycleState.frozen_run)
    counts = dict.fromkeys(("expected", "valid", "invalid", "missing", "unexpected"), 0)
    cycle.ledger.append("run.frozen", counts)
    cycle.transition(CycleState.adaptation)
    return cycle


def vwt(*args: str, **env: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250", **env})
    return result.exit_code, result.output


def _stolen(cycle: Cycle, pair: dict[str, Any]) -> dict[str, Any]:
    """What the hostile command copied into its adapted bundle for ``pair``."""
    files = BundleStore(cycle.home).get(pair["adapted"]).files
    line = next(ln for text in files.values() for ln in text.splitlines() if "STOLEN " in ln)
    stolen: dict[str, Any] = json.loads(line.split("STOLEN ", 1)[1])
    return stolen


def test_without_docker_auto_refuses_to_run_a_submitters_command(tmp_path: Path) -> None:
    cycle = _cycle(tmp_path / "h", _hostile(tmp_path / "h"))
    no_engine = f"unix://{tmp_path}/no-engine.sock"
    code, out = vwt("adapt", "--home", str(cycle.home), DOCKER_HOST=no_engine)
    lines = out.strip().splitlines()
    assert code == 2 and len(lines) == 2, out
    assert lines[0].startswith(
        "error: adaptations (they run submitters' code) need the Docker sandbox: "
        f"the Docker engine at {no_engine} does not answer"
    ), out
    assert lines[1].startswith("hint: ") and "--sandbox local" in lines[1], out
    assert cycle.ledger.entries(ADAPTATION_EVENT) == []
    assert not (cycle.home / "adapted").exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root has a user to drop to")
def test_a_named_local_sandbox_runs_the_command_as_nobody_without_the_operators_env(
    tmp_path: Path,
) -> None:
    home = tmp_path / "h"
    cycle = _cycle(home, _hostile(home))
    env = {"OPENAI_API_KEY": "sk-operator", "VWT_HOME": str(home)}
    code, out = vwt("adapt", "--home", str(home), "--sandbox", "local", "--json", **env)
    assert code == 0, out
    pairs = json.loads(out)["pairs"]
    assert pairs and all(p["changed"] for p in pairs)
    for pair in pairs:
        stolen = _stolen(cycle, pair)
        assert stolen["uid"] == 65534
        assert {stolen[str(p)] for p in _secrets(home)} == {"PermissionError"}, stolen
        assert "OPENAI_API_KEY" not in stolen["env"] and "VWT_HOME" not in stolen["env"]
        assert str(home) not in json.dumps(stolen["env"])
    entries = cycle.ledger.entries(ADAPTATION_EVENT)
    assert len(entries) == len(pairs) and {e.payload["sandbox"] for e in entries} == {"local"}


_DOCKER, _WHY = docker_status()


@pytest.mark.docker
@pytest.mark.skipif(not _DOCKER, reason=f"{_WHY}; run `make sandbox`")
def test_auto_runs_the_command_in_docker_where_the_host_is_not_there(tmp_path: Path) -> None:
    home = tmp_path / "h"
    cycle = _cycle(home, _hostile(home))
    code, out = vwt("adapt", "--home", str(home), "--json", OPENAI_API_KEY="sk-operator")
    assert code == 0, out
    pairs = json.loads(out)["pairs"]
    assert pairs and all(p["changed"] for p in pairs)
    for pair in pairs:
        stolen = _stolen(cycle, pair)
        assert stolen["uid"] == 65534
        assert {stolen[str(p)] for p in _secrets(home)} == {"FileNotFoundError"}, stolen
        assert "OPENAI_API_KEY" not in stolen["env"]
    entries = cycle.ledger.entries(ADAPTATION_EVENT)
    assert {e.payload["sandbox"] for e in entries} == {"docker"}


def test_an_unreadable_output_is_a_note_and_the_cycle_goes_on(tmp_path: Path) -> None:
    home = tmp_path / "h"
    link = [
        "python3",
        "-I",
        "-c",
        "import os; os.makedirs('out'); os.symlink('/dev/zero', 'out/bundle.json')",
    ]
    fast = next(b for b in reference_bundles() if b.manifest.name == "no-artifacts")
    cycle = _cycle(home, _hostile(home, link), fast)
    code, out = vwt("adapt", "--home", str(home), "--sandbox", "local", "--json")
    assert code == 0, out
    pairs = json.loads(out)["pairs"]
    targets = cycle.targets()
    assert len(pairs) == 2 * len(targets)
    hostile = [p for p in pairs if p["submission"].startswith("hostile@")]
    assert len(hostile) == len(targets)
    for pair in hostile:
        assert pair["adapted"] == pair["parent"] and not pair["changed"]
        (note,) = read_record(home, pair["parent"], pair["target"])["notes"]
        assert note.startswith("command: the command exited 0; out/bundle.json not read: "), note
        assert note.endswith("symbolic link"), note
    code, out = vwt("cycle", "advance", "adapted_run", "--home", str(home))
    assert code == 0, out
