"""`vwt adapt`: every submission × target adapted and recorded, resumably; a human adaptation's
kit and import; the guard that holds the adapted run until every pair is adapted."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from adapt import (
    KIT_FILE,
    AdaptError,
    AdaptInterrupted,
    PairOutcome,
    adapt_cycle,
    read_access_log,
    sealed_tasks,
)
from conditions import ADAPTATION_EVENT, Cycle, CycleState
from submissions import SUBMISSION_EVENT, BundleStore, reference_bundles, submit
from tests.reports.test_verify import single_axis_targets, small_spec
from vwt.cli import app

runner = CliRunner()
FAST = ("no-artifacts", "typed-skill")
"""Submissions whose adaptation makes no model call (the tests stay quick)."""


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


def _cycle(home: Path, names: tuple[str, ...] = FAST) -> Cycle:
    """A small cycle with ``names`` submitted, in state adaptation (a stand-in frozen run)."""
    spec = small_spec()
    cycle = Cycle.init(home, spec)
    cycle.generate(single_axis_targets(spec))
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open)
    for bundle in reference_bundles():
        if bundle.manifest.name in names:
            submit(cycle, bundle)
    cycle.transition(CycleState.frozen_run)
    counts = dict.fromkeys(("expected", "valid", "invalid", "missing", "unexpected"), 0)
    cycle.ledger.append("run.frozen", counts)
    cycle.transition(CycleState.adaptation)
    return cycle


def _adapt_json(home: Path) -> list[dict[str, Any]]:
    code, out = vwt("adapt", "--home", str(home), "--sandbox", "local", "--json")
    assert code == 0, out
    pairs: list[dict[str, Any]] = json.loads(out)["pairs"]
    return pairs


def test_the_submission_event_is_the_one_the_guard_reads() -> None:
    from conditions._cycle import _SUBMISSION_EVENT

    assert _SUBMISSION_EVENT == SUBMISSION_EVENT


def test_adapt_records_every_pair_and_resumes(tmp_path: Path) -> None:
    cycle = _cycle(tmp_path / "h")
    targets = [t.id for t in cycle.targets()]
    code, out = vwt("cycle", "advance", "adapted_run", "--home", str(cycle.home))
    assert code == 2 and f"{2 * len(targets)} of {2 * len(targets)} submission × target" in out
    assert "vwt adapt --home" in out
    pairs = _adapt_json(cycle.home)
    assert len(pairs) == 2 * len(targets) and not any(p["skipped"] for p in pairs)
    by = {(p["submission"].split("@")[0], p["target"]): p for p in pairs}
    for t in targets:
        same = by[("no-artifacts", t)]
        assert (same["procedure"], same["adapted"], same["changed"]) == ("none", same["parent"], [])
        skill = by[("typed-skill", t)]
        assert skill["procedure"] == "rebind-skills" and skill["cost"]["calls"] == 0
        assert (skill["adapted"] != skill["parent"]) == bool(skill["changed"])
        assert skill["leak"]["flagged"] is False and skill["sealed_reads"] == 0
    # the units drift re-binds the refund skill to a new bundle, stored with the submissions
    rebound = [p for p in pairs if p["changed"]]
    assert rebound and all(p["changed"] == ["skills/refund-ticket/SKILL.md"] for p in rebound)
    for p in rebound:
        assert BundleStore(cycle.home).get(p["adapted"]).manifest.name == "typed-skill"
    entries = cycle.ledger.entries(ADAPTATION_EVENT)
    assert len(entries) == len(pairs)
    first = next(e.payload for e in entries if e.payload["submission"] == "typed-skill@1")
    log = read_access_log(cycle.home, first["parent"], first["target"])
    assert log.digest() == first["access_log"] and first["reads"] == len(log.entries) > 0
    # resumable: nothing runs again, nothing is recorded twice
    again = _adapt_json(cycle.home)
    assert all(p["skipped"] for p in again)
    assert [p["adapted"] for p in again] == [p["adapted"] for p in pairs]
    assert len(cycle.ledger.entries(ADAPTATION_EVENT)) == len(pairs)
    code, out = vwt("adapt", "--home", str(cycle.home), "--sandbox", "local")
    assert code == 0 and "typed-skill@1 → " in out and "(recorded before)" in out, out
    code, out = vwt("cycle", "advance", "adapted_run", "--home", str(cycle.home))
    assert code == 0, out
    assert cycle.history()[-1].payload["adaptations"] == len(pairs)
    code, out = vwt("adapt", "--home", str(cycle.home))
    assert code == 2 and "cannot adapt the submissions" in out and "'adapted_run'" in out


def test_adapt_is_refused_before_the_adaptation_state(tmp_path: Path) -> None:
    spec = small_spec()
    cycle = Cycle.init(tmp_path / "h", spec)
    code, out = vwt("adapt", "--home", str(cycle.home))
    assert code == 2 and "'draft', not 'adaptation'" in out
    assert cycle.ledger.entries(ADAPTATION_EVENT) == []


def test_a_human_adaptation_round_trips_through_a_kit(tmp_path: Path) -> None:
    cycle = _cycle(tmp_path / "h", ("typed-skill",))
    target = cycle.targets()[0].id
    out = tmp_path / "kit"
    home = str(cycle.home)
    code, text = vwt(
        "adapt",
        "import",
        "--home",
        home,
        "--submission",
        "typed-skill",
        "--target",
        target,
        "--from",
        str(out),
        "--minutes",
        "5",
    )
    assert code == 2 and "no kit was exported" in text
    code, text = vwt(
        "adapt",
        "kit",
        "--home",
        home,
        "--submission",
        "typed-skill",
        "--target",
        target,
        "--out",
        str(out),
    )
    assert code == 0, text
    kit = json.loads((out / KIT_FILE).read_text())
    assert kit["target"] == target and all("/adapt/" in t for t in kit["sample"])
    skill = out / "bundle" / "skills" / "refund-ticket" / "SKILL.md"
    skill.write_text(skill.read_text().replace("Refund", "Refund (by hand)", 1))
    code, text = vwt(
        "adapt",
        "import",
        "--home",
        home,
        "--submission",
        "typed-skill",
        "--target",
        target,
        "--from",
        str(out / "bundle"),
        "--minutes",
        "500",
    )
    assert code == 2 and "exceed the budget" in text
    code, text = vwt(
        "adapt",
        "import",
        "--home",
        home,
        "--submission",
        "typed-skill@1",
        "--target",
        target,
        "--from",
        str(out / "bundle"),
        "--minutes",
        "0",
        "--json",
    )
    assert code == 0, text
    pair = json.loads(text)
    assert pair["procedure"] == "human" and pair["changed"] == ["skills/refund-ticket/SKILL.md"]
    (entry,) = cycle.ledger.entries(ADAPTATION_EVENT)
    assert entry.payload["adapted"] == pair["adapted"] != pair["parent"]
    log = read_access_log(cycle.home, pair["parent"], target)
    assert log.digest() == entry.payload["access_log"]
    assert {e.id for e in log.entries if e.kind == "file"} >= {KIT_FILE, "README.md"}
    code, text = vwt(
        "adapt",
        "kit",
        "--home",
        home,
        "--submission",
        "typed-skill",
        "--target",
        target,
        "--out",
        str(tmp_path / "again"),
    )
    assert code == 2 and "already adapted" in text
    code, text = vwt(
        "adapt",
        "kit",
        "--home",
        home,
        "--submission",
        "nope",
        "--target",
        target,
        "--out",
        str(tmp_path / "k2"),
    )
    assert code == 2 and "no submission named 'nope'" in text
    # the automatic step adapts the other targets and skips the imported pair
    pairs = _adapt_json(cycle.home)
    assert [p["skipped"] for p in pairs] == [p["target"] == target for p in pairs]
    assert len(cycle.ledger.entries(SUBMISSION_EVENT)) == 1


def test_an_imported_bundle_that_copied_a_sealed_request_is_flagged(tmp_path: Path) -> None:
    cycle = _cycle(tmp_path / "h", ("typed-skill",))
    target = next(t for t in cycle.targets() if "support_ops" in t.condition.task_family.families)
    home, out = str(cycle.home), tmp_path / "kit"
    args = ("--home", home, "--submission", "typed-skill", "--target", target.id)
    assert vwt("adapt", "kit", *args, "--out", str(out))[0] == 0
    copied = next(t for t in sealed_tasks(cycle) if t.family == "support_ops")
    skill = out / "bundle" / "skills" / "refund-ticket" / "SKILL.md"
    skill.write_text(skill.read_text() + "\n" + copied.instruction + "\n")
    code, text = vwt("adapt", "import", *args, "--from", str(out / "bundle"), "--minutes", "0")
    assert code == 0 and "LEAK" in text, text
    (entry,) = cycle.ledger.entries(ADAPTATION_EVENT)
    leak = entry.payload["leak"]
    assert leak["flagged"] and copied.id in leak["matches"]
    assert leak["adapted_max_permille"] == 1000 and leak["frozen_max_permille"] < 500


def _ledger_without_clock(cycle: Cycle) -> list[dict[str, Any]]:
    """The adaptation entries, less what the wall clock decides (the seconds, and the record
    digest, which covers them)."""
    out = []
    for e in cycle.ledger.entries(ADAPTATION_EVENT):
        p = dict(e.payload)
        p["cost"] = {k: v for k, v in p["cost"].items() if k != "milliseconds"}
        del p["record"]
        out.append(p)
    return out


def test_pairs_adapted_side_by_side_are_recorded_as_one_at_a_time(tmp_path: Path) -> None:
    # trajectories: each pair runs its sample's trials (sandbox, MCP, metered model calls)
    first = _cycle(tmp_path / "one", ("no-artifacts", "retrieved-trajectories"))
    shutil.copytree(first.home, tmp_path / "three")
    second = Cycle.open(tmp_path / "three")
    assert len(adapt_cycle(first, sandbox="local", jobs=1)) == 2 * len(first.targets())
    order: list[str] = []
    adapt_cycle(second, sandbox="local", jobs=3, on_pair=lambda o: order.append(o.target))
    one, three = _ledger_without_clock(first), _ledger_without_clock(second)
    assert one == three and any(p["cost"]["calls"] for p in one)
    assert order == [t.id for t in first.targets()] * 2


def test_an_interrupt_stops_the_pairs_in_flight_keeps_those_recorded_and_resumes(
    tmp_path: Path,
) -> None:
    cycle = _cycle(tmp_path / "h", ("retrieved-trajectories",))
    targets = len(cycle.targets())

    def ctrl_c(outcome: PairOutcome) -> None:
        raise KeyboardInterrupt

    with pytest.raises(AdaptInterrupted, match=f"interrupted: 1 of {targets} pairs recorded"):
        adapt_cycle(cycle, sandbox="local", jobs=3, on_pair=ctrl_c)
    # the first pair was recorded before its callback was interrupted; nothing else was
    assert len(cycle.ledger.entries(ADAPTATION_EVENT)) == 1
    assert not [t for t in threading.enumerate() if t.name.startswith("vwt-adapt")]
    pairs = _adapt_json(cycle.home)
    assert [p["skipped"] for p in pairs] == [True] + [False] * (targets - 1)
    assert len(cycle.ledger.entries(ADAPTATION_EVENT)) == targets


def test_jobs_must_be_positive(tmp_path: Path) -> None:
    cycle = _cycle(tmp_path / "h")
    code, out = vwt("adapt", "--home", str(cycle.home), "--jobs", "0")
    assert code == 2 and "--jobs" in out
    with pytest.raises(AdaptError, match="at least 1"):
        adapt_cycle(cycle, sandbox="local", jobs=0)
    assert not cycle.ledger.entries(ADAPTATION_EVENT)


def test_ctrl_c_of_vwt_adapt_says_how_to_resume_leaves_no_process_and_the_resume_completes(
    tmp_path: Path,
) -> None:
    cycle = _cycle(tmp_path / "h", ("retrieved-trajectories",))
    argv = [str(Path(sys.executable).with_name("vwt")), "adapt", "--home", str(cycle.home)]
    run = subprocess.Popen(
        [*argv, "--sandbox", "local", "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own group, as a terminal's foreground job
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    deadline = time.monotonic() + 300
    while not cycle.ledger.entries(ADAPTATION_EVENT):
        assert run.poll() is None, run.stdout.read().decode() if run.stdout else ""
        assert time.monotonic() < deadline, "no pair was recorded"
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)  # what a terminal sends its foreground group
    out = run.communicate(timeout=120)[0].decode()
    assert run.returncode == 2, out[-3000:]
    assert "interrupted:" in out and "run the same command again" in out, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    with pytest.raises(ProcessLookupError):  # no sandbox process of the group is left
        os.killpg(run.pid, 0)
    recorded = len(cycle.ledger.entries(ADAPTATION_EVENT))
    pairs = _adapt_json(cycle.home)
    assert sum(p["skipped"] for p in pairs) == recorded and len(pairs) == len(cycle.targets())
