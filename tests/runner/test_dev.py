"""A submitter's dev run: the dev split of the source condition, without a cycle home."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark import default_cycle_spec_path
from benchmark.errors import BenchmarkError
from conditions import CycleSpec
from runner import dev_condition, run_dev
from submissions import reference_bundles
from tests.runner.test_execute import failing_first

SPEC = CycleSpec.load(default_cycle_spec_path())


def test_dev_condition_is_the_source_on_the_dev_split() -> None:
    c = dev_condition(SPEC.source)
    assert c.task_family.split == "dev"
    assert c.task_family.family == SPEC.source.task_family.family
    assert c.differs_on(SPEC.source) == ["task_family"]
    assert c.id != SPEC.source.id


def test_a_sim_model_override_takes_its_catalogue_labels() -> None:
    c = dev_condition(SPEC.source, "sim/orbit-2")
    assert (c.model.model, c.model.version, c.provider) == ("sim/orbit-2", "2", "orbit")
    assert c.tool_interface == SPEC.source.tool_interface and c.harness == SPEC.source.harness


@pytest.mark.parametrize(
    ("model", "provider", "version"),
    [
        ("openai/gpt-4o-mini", "openai", "gpt-4o-mini"),
        ("ollama/llama3.1:8b", "ollama", "llama3.1:8b"),
    ],
)
def test_other_litellm_models_are_labelled_by_their_prefix(
    model: str, provider: str, version: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    c = dev_condition(SPEC.source, model)
    assert (c.model.model, c.provider, c.model.version) == (model, provider, version)


def test_a_model_without_a_provider_prefix_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkError, match="no provider prefix"):
        run_dev(reference_bundles()[1], SPEC, tmp_path / "dev", model="gpt-4o")
    assert not (tmp_path / "dev").exists()


def test_an_unknown_sim_model_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(BenchmarkError, match="nope"):
        run_dev(reference_bundles()[1], SPEC, tmp_path / "dev", model="sim/nope")
    assert not (tmp_path / "dev").exists()


@pytest.mark.ray
def test_run_dev_runs_both_arms_and_resumes(ray_runtime: None, tmp_path: Path) -> None:
    recipe, skill = reference_bundles()[1:3]
    home = tmp_path / "dev"  # an empty directory: no cycle, no keys
    run = run_dev(recipe, SPEC, home, tasks_per_split=2, k=2, sandbox="local")
    assert run.accounting.complete and run.accounting.expected == 8
    assert (run.execution.ran, run.execution.already_stored) == (8, 0)
    assert {(r.arm, r.bundle_hash) for r in run.records} == {
        ("without", None),
        ("with", recipe.hash),
    }
    assert {(r.phase, r.split, r.condition_id) for r in run.records} == {
        ("dev", "dev", dev_condition(SPEC.source).id)
    }
    assert run.submission == "prompt-recipe@1" and run.store.parent == home

    again = run_dev(recipe, SPEC, home, tasks_per_split=2, k=2, sandbox="local")
    assert (again.execution.ran, again.execution.already_stored) == (0, 8)
    assert again.records == run.records

    other = run_dev(skill, SPEC, home, tasks_per_split=2, k=2, sandbox="local")
    assert (other.execution.ran, other.execution.already_stored) == (4, 4)  # baseline reused
    baseline = [r for r in run.records if r.arm == "without"]
    assert baseline == [r for r in other.records if r.arm == "without"]
    assert len(other.records) == 8


@pytest.mark.ray
def test_run_dev_with_another_model(ray_runtime: None, tmp_path: Path) -> None:
    run = run_dev(
        reference_bundles()[0], SPEC, tmp_path, model="sim/acme-3", tasks_per_split=2, k=1
    )
    assert {r.model for r in run.records} == {"sim/acme-3"}
    assert {r.provider for r in run.records} == {"acme"} and len(run.records) == 4


@pytest.mark.ray
def test_a_dev_run_keeps_invalid_trials_counted_and_the_next_run_retries_only_them(
    ray_runtime: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setattr("runner._execute.stream_batch", failing_first(marks, times=2))
    recipe = reference_bundles()[1]
    home = tmp_path / "dev"
    run = run_dev(recipe, SPEC, home, tasks_per_split=2, k=2, sandbox="local", max_attempts=2)
    a = run.accounting
    assert (a.expected, a.valid, a.invalid, a.missing) == (8, 4, 4, 0)
    assert a.complete and not a.clean
    assert {(c.arm, c.invalid) for c in a.cells} == {("without", 2), ("with", 2)}
    assert run.execution.first_invalid and "injected (2)" in run.execution.first_invalid
    assert all(r.outcome == "invalid" for r in run.records if r.trial == 0)

    again = run_dev(recipe, SPEC, home, tasks_per_split=2, k=2, sandbox="local")
    assert (again.execution.ran, again.execution.already_stored) == (4, 4)
    assert again.accounting.clean and again.execution.first_invalid is None
    assert {r.attempt for r in again.records if r.trial == 0} == {3}
    assert [r for r in again.records if r.trial == 1] == [r for r in run.records if r.trial == 1]
