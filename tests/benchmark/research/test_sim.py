"""Sim models act in the research family through its knowledge pack alone, over the real trial
path (litellm, harness, backend subprocess, verifier, oracle): a mid model solves some tasks
and not others for reasons its skills name, and each changing operator is critical for a model
that misses it and for no model that reads it."""

from __future__ import annotations

import pytest

from benchmark import TrialResult, interface_version
from benchmark.research import ENV_ID, ResearchEvidence
from tests.benchmark.sim._experiment import run_arm, tool_calls, use_model, version


def _solved(result: TrialResult) -> bool:
    return result.verifier is not None and result.verifier.passed


def test_a_mid_model_solves_some_but_not_all_tasks(registered: ResearchEvidence) -> None:
    arm = run_arm("acme-2", fam=registered, interface=version(env=ENV_ID), tasks=24)
    assert len(arm.results) == 24
    assert 0.4 <= arm.success <= 0.9, arm.outcomes
    assert arm.critical == 0  # nothing changed: mistakes are failures
    solved = {t.kind for t, r in zip(arm.tasks, arm.results, strict=True) if _solved(r)}
    assert len(solved) >= 3, solved


def test_a_model_without_the_procedure_submits_only_when_asked(
    registered: ResearchEvidence, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = use_model(monkeypatch, "no-procedure", know_procedure=0.0)
    arm = run_arm(model, fam=registered, interface=version(env=ENV_ID), tasks=16)
    for task, result in zip(arm.tasks, arm.results, strict=True):
        asked = "submit" in task.instruction
        called = [name for name, _ in tool_calls(result)]
        assert called[:3] == ["search_documents", "read_document", "add_claim"]
        assert ("submit_answer" in called) is asked
        assert _solved(result) is asked, result.verifier
    assert 0 < arm.success < 1


def test_a_model_unsure_of_the_codes_says_supports_even_to_a_contradiction(
    registered: ResearchEvidence, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = use_model(monkeypatch, "no-enums", map_enums=0.0)
    arm = run_arm(model, fam=registered, interface=version(env=ENV_ID), tasks=16)
    for task, result in zip(arm.tasks, arm.results, strict=True):
        (claim,) = [args for name, args in tool_calls(result) if name == "add_claim"]
        assert claim["stance"] == "supports"
        assert _solved(result) is (task.kind != "check"), result.verifier


@pytest.mark.parametrize("version_id", ["research@2-keys", "research@2-stance"])
def test_each_changing_operator_is_critical_for_a_model_that_misses_it_only(
    registered: ResearchEvidence, monkeypatch: pytest.MonkeyPatch, version_id: str
) -> None:
    changed = interface_version(ENV_ID, version_id)
    (op,) = changed.ops
    misser = use_model(monkeypatch, "convention-misser", read_conventions=0.0, recover=0.0)
    reader = use_model(monkeypatch, "convention-reader")
    missed = run_arm(misser, fam=registered, interface=changed, tasks=12)
    read = run_arm(reader, fam=registered, interface=changed, tasks=12)
    assert missed.critical == 12, missed.outcomes
    assert {f.operator for r in missed.results for f in r.critical} == {op.describe()}
    assert read.critical == 0, read.outcomes
    assert read.success == 1.0, [r.verifier for r in read.results]
