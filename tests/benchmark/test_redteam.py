"""The verifier red-team gate: passes for a sound verifier, names family, task and planted answer
for a broken one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmark import (
    FAMILIES,
    BenchmarkError,
    Planted,
    Task,
    VerifierResult,
    cycle_families,
    default_cycle_spec_path,
    redteam,
    require_gate,
)
from benchmark.support_ops import SupportOps
from conditions import CycleSpec

SPEC = CycleSpec.load(default_cycle_spec_path())


def _always(passed: bool) -> Any:
    def verify(self: SupportOps, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        return VerifierResult(passed=passed, reasons=() if passed else ("broken",))

    return verify


def test_support_ops_passes_on_the_first_tasks_of_every_evaluated_split() -> None:
    report = redteam(["support_ops"], tasks=20)
    assert report.passed and report.tasks_per_split == 20
    (fam,) = report.families
    assert fam.splits == ("dev", "sealed", "adapt")  # the examples split is never evaluated
    assert fam.tasks == 60 and fam.planted >= 3 * fam.tasks
    assert len(fam.names) >= 8 and "wrong unit" in fam.names
    assert fam.checks == ("callbacks", "customers", "orders", "refunds", "tickets")
    assert fam.failures == () and fam.passed


def test_a_verifier_that_passes_everything_fails_the_gate_on_every_planted_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(SupportOps, "verify", _always(True))
    report = redteam(["support_ops"], tasks=2)
    assert not report.passed
    (fam,) = report.families
    assert not fam.passed and len(fam.failures) == fam.planted
    first = fam.failures[0]
    assert (first.family, first.planted, first.problem) == (
        "support_ops",
        "wrong amount",
        "passes the verifier",
    )
    assert first.task is not None and first.task.startswith("support_ops/dev/0000-")
    assert first.describe() == (
        f"support_ops task {first.task}: planted answer 'wrong amount' passes the verifier"
    )


def test_a_verifier_that_fails_everything_fails_the_gate_on_the_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(SupportOps, "verify", _always(False))
    (fam,) = redteam(["support_ops"], tasks=1).families
    assert [f.planted for f in fam.failures] == ["reference"] * 3  # one task of each split
    assert (
        fam.failures[0].describe().endswith(": the reference solution fails the verifier (broken)")
    )


def test_too_few_planted_answers_and_refused_calls_are_failures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def planted(self: SupportOps, task: Task) -> list[Planted]:
        close = task.reference_calls[-1]
        return [Planted(name="closed twice", check="tickets", calls=(close, close))]

    monkeypatch.setattr(SupportOps, "planted", planted)
    (fam,) = redteam(["support_ops"], tasks=1).families
    refused, *_, few = fam.failures
    assert refused.planted == "closed twice"
    assert refused.problem.startswith("cannot be applied (BenchmarkError: task ")
    assert "already closed" in refused.problem
    assert (few.task, few.planted) == (None, None)
    assert few.describe() == (
        "support_ops has 1 distinct planted answers over 3 tasks; the gate needs at least 8"
    )


def test_sealed_tasks_follow_the_cycle_seed_and_dev_tasks_do_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(SupportOps, "verify", _always(True))

    def failed_tasks(seed: int, split: str) -> set[str]:
        (fam,) = redteam(["support_ops"], tasks=1, cycle_seed=seed).families
        return {f.task or "" for f in fam.failures if f"/{split}/" in (f.task or "")}

    assert failed_tasks(1, "dev") == failed_tasks(2, "dev")
    assert failed_tasks(1, "sealed") != failed_tasks(2, "sealed")


def test_require_gate_checks_the_families_a_cycle_uses(monkeypatch: pytest.MonkeyPatch) -> None:
    assert cycle_families(SPEC) == ["reconciliation", "research_evidence", "support_ops"]
    assert require_gate(SPEC, "the run").passed
    monkeypatch.setattr(SupportOps, "verify", _always(True))
    with pytest.raises(BenchmarkError) as e:
        require_gate(SPEC, "the frozen evaluation")
    assert str(e.value).startswith(
        "the frozen evaluation is refused: the verifier red-team gate fails: support_ops task "
        "support_ops/dev/0000-"
    )
    assert "planted answer 'wrong amount' passes the verifier (and " in str(e.value)
    assert "vwt families redteam" in (e.value.hint or "")


def test_every_built_in_family_passes_the_gate() -> None:
    report = redteam(tasks=5)
    assert report.passed
    assert {f.family for f in report.families} == set(FAMILIES)
    assert all(len(f.names) >= 8 for f in report.families)


def test_a_cached_gate_is_reused_until_a_familys_source_changes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import benchmark._redteam as gate

    runs: list[list[str]] = []

    def counted(
        families: list[str], tasks: int, cycle_seed: int, sandbox: object = None
    ) -> gate.RedTeamReport:
        runs.append(list(families))
        return redteam(families, 4, cycle_seed)  # the gate's checks, at a test's size

    monkeypatch.setattr(gate, "redteam", counted)
    cache = tmp_path / "redteam.json"
    first = require_gate(SPEC, "the run", cache)
    assert len(runs) == 1 and cache.exists()
    assert require_gate(SPEC, "the release", cache) == first and len(runs) == 1
    # a verifier's code changing changes its family's digest: the gate runs again, and fails
    monkeypatch.setattr(SupportOps, "verify", _always(True))
    monkeypatch.setattr(SupportOps, "source_digest", lambda self: "edited")
    with pytest.raises(BenchmarkError, match="red-team gate fails"):
        require_gate(SPEC, "the adapted evaluation", cache)
    assert len(runs) == 2
    # a failing result is never cached: the last passing one stays, under its own key
    with pytest.raises(BenchmarkError):
        require_gate(SPEC, "the adapted evaluation", cache)
    assert len(runs) == 3


def test_a_familys_source_digest_follows_its_package_files() -> None:
    support, recon = FAMILIES["support_ops"], FAMILIES["reconciliation"]
    assert support.source_digest() == support.source_digest()
    assert support.source_digest() != recon.source_digest()
