"""`vwt adapt`: every submission × target adapted and recorded, resumably; a human adaptation's
kit and import; the guard that holds the adapted run until every pair is adapted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from adapt import KIT_FILE, read_access_log, sealed_tasks
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
    assert rebound and all(p["changed"] == ["refund-ticket.skill.json"] for p in rebound)
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
    skill = out / "bundle" / "refund-ticket.skill.json"
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
    assert pair["procedure"] == "human" and pair["changed"] == ["refund-ticket.skill.json"]
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
    skill = out / "bundle" / "refund-ticket.skill.json"
    data = json.loads(skill.read_text())
    data["description"] = copied.instruction
    skill.write_text(json.dumps(data, indent=2))
    code, text = vwt("adapt", "import", *args, "--from", str(out / "bundle"), "--minutes", "0")
    assert code == 0 and "LEAK" in text, text
    (entry,) = cycle.ledger.entries(ADAPTATION_EVENT)
    leak = entry.payload["leak"]
    assert leak["flagged"] and copied.id in leak["matches"]
    assert leak["adapted_max_permille"] == 1000 and leak["frozen_max_permille"] < 500
