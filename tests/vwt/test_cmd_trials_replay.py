"""`vwt trials replay`: a release's (or the store's) trials re-run with every model call
answered from the record reach their recorded outcomes; a changed prompt is a divergence at
its first differing field, a changed verdict a difference of outcome."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from benchmark import VerifierResult, family
from benchmark.harness import HARNESSES, VERSIONS, LoopHarness
from conditions import Cycle
from reports import TRIALS_FILE, calls_name
from tests.reports.test_verify import shared_revealed_cycle
from vwt.cli import app

runner = CliRunner()
Json = dict[str, Any]


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Cycle:
    """A small cycle released with `vwt report build`."""
    cycle = shared_revealed_cycle(tmp_path_factory, "replay")
    code, out = vwt("report", "build", "--home", str(cycle.home))
    assert code == 0, out
    return cycle


def _records(cycle: Cycle) -> list[Json]:
    lines = (cycle.paths.public / TRIALS_FILE).read_text().splitlines()
    return [json.loads(x) for x in lines]


def _replay(*args: str) -> tuple[int, Json]:
    args = ("trials", "replay", "--sandbox", "local", "--json", *args)
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)  # the progress lines go to stderr


def test_every_released_trial_replays_to_its_recorded_outcome(released: Cycle) -> None:
    public = str(released.paths.public)
    code, out = vwt("trials", "replay", "--release", public, "--all", "--sandbox", "local")
    n = len(_records(released))
    assert code == 0, out
    assert f"{n} replayed, {n} identical" in out
    code, out = vwt("report", "verify", public)
    assert (
        code == 0 and f"{len({r['calls_sha256'] for r in _records(released)})} call records" in out
    )


def test_a_sample_and_one_key_replay_from_the_release_and_from_the_home(
    released: Cycle,
) -> None:
    public = str(released.paths.public)
    code, data = _replay("--release", public, "--sample", "5", "--seed", "3")
    assert code == 0 and data["replayed"] == data["identical"] == 5
    assert len({t["key"] for t in data["trials"]}) == 5
    _, again = _replay("--release", public, "--sample", "5", "--seed", "3")
    assert [t["key"] for t in again["trials"]] == [t["key"] for t in data["trials"]]
    key = data["trials"][0]["key"]
    code, one = _replay(key[:16], "--home", str(released.home))
    assert code == 0 and [t["key"] for t in one["trials"]] == [key]
    assert one["where"].endswith("vwt.sqlite")


def test_a_changed_prompt_is_a_divergence_at_its_first_differing_field(
    released: Cycle, monkeypatch: pytest.MonkeyPatch
) -> None:
    for hid, h in VERSIONS.items():
        changed = h.model_copy(update={"preamble": h.preamble + " Hi."})
        monkeypatch.setitem(HARNESSES, hid, LoopHarness(changed))
    called = next(r for r in _records(released) if r["turns"] >= 1)
    code, data = _replay(called["key"], "--release", str(released.paths.public))
    (t,) = data["trials"]
    assert code == 1 and not t["identical"]
    assert t["difference"].startswith(
        "diverged: call 1's request differs from the record at messages[0].content (recorded "
    )
    recorded, now = t["difference"].rsplit(", now ", 1)
    assert " Hi." in now and " Hi." not in recorded  # quoted where the texts differ


def test_a_changed_verdict_is_reported_as_a_different_outcome(
    released: Cycle, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = _records(released)
    success = next(r for r in records if r["outcome"] == "success")
    fam = family(success["family"])
    monkeypatch.setattr(
        type(fam), "verify", lambda self, task, state: VerifierResult(passed=False, reasons=("x",))
    )
    code, data = _replay(success["key"], "--release", str(released.paths.public))
    (t,) = data["trials"]
    assert code == 1 and t["replayed"] == "failure"
    assert t["difference"] == "outcome (recorded 'success', replayed 'failure')"


def test_an_altered_call_file_is_refused(released: Cycle, tmp_path: Path) -> None:
    copy = tmp_path / "public"
    shutil.copytree(released.paths.public, copy)
    r = _records(released)[0]
    path = copy / calls_name(r["calls_sha256"])
    body = json.loads(gzip.decompress(path.read_bytes()))
    body["document"] = body["document"].replace('"seed":', '"seed": ', 1)
    path.write_bytes(gzip.compress(json.dumps(body).encode()))
    code, out = vwt("trials", "replay", r["key"], "--release", str(copy), "--sandbox", "local")
    assert code == 2 and "does not hash to" in out and "hint:" in out
    code, out = vwt("report", "verify", str(copy))
    assert code == 2 and "does not hash to" in out


def test_replay_needs_exactly_one_selection(released: Cycle) -> None:
    code, out = vwt("trials", "replay", "--release", str(released.paths.public))
    assert code == 2 and "a KEY, --all or --sample N" in out
    code, out = vwt("trials", "replay", "abc", "--all", "--release", str(released.paths.public))
    assert code == 2 and "one of them" in out
