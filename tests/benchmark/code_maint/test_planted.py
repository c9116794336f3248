"""Planted wrong answers to code-maintenance tasks: each fails the verifier at the check it
targets, together they have at least 8 names and cover every check, and the red-team gate
passes for the family."""

from collections import defaultdict

from benchmark._redteam import MIN_PLANTED_NAMES, redteam_family
from benchmark.code_maint import CHECKS, CodeMaintenance

FAM = CodeMaintenance()
TASKS = FAM.tasks("sealed", 8, 5)


def test_every_planted_answer_fails_at_the_check_it_targets() -> None:
    names: dict[str, set[str]] = defaultdict(set)
    for task in TASKS:
        for planted in FAM.planted(task):
            result = FAM.verify(task, FAM.end_state(task, planted.calls))
            found = {r.split(":", 1)[0] for r in result.reasons}
            assert planted.check in found, (task.id, planted.name, result.reasons)
            names[planted.name].add(task.kind)
    assert len(names) >= MIN_PLANTED_NAMES
    assert {
        "test deleted",
        "assertion weakened",
        "skip added",
        "build broken",
        "old API kept",
        "unit not converted",
        "config key wrong",
        "extra file written",
        "call site missed",
        "wrong replacement",
    } <= set(names)
    assert {p.check for t in TASKS for p in FAM.planted(t)} == set(CHECKS)


def test_shortcuts_that_make_the_suite_pass_are_still_caught() -> None:
    """Weakening, skipping or deleting the failing tests, or pinning the old version back, can
    leave every remaining test passing; the verifier fails them anyway."""
    task = next(t for t in TASKS if t.kind == "test_repair")
    for planted in FAM.planted(task):
        if planted.name in ("assertion weakened", "test deleted", "skip added"):
            end = FAM.end_state(task, planted.calls)
            assert all(o["outcome"] in ("pass", "skip") for o in end["tests"].values())
            assert not FAM.verify(task, end).passed


def test_the_red_team_gate_passes() -> None:
    report = redteam_family(FAM, tasks=4, cycle_seed=11)
    assert report.passed, [f.describe() for f in report.failures]
    assert set(report.checks) == set(CHECKS)
