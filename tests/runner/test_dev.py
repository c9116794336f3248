"""A submitter's dev run: the dev split of the source condition, without a cycle home."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmark import default_cycle_spec_path
from benchmark.errors import BenchmarkError
from conditions import CycleSpec
from runner import dev_condition, run_dev
from submissions import reference_bundles

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
        ("gpt-4o", "litellm", "gpt-4o"),
    ],
)
def test_other_litellm_models_are_labelled_by_their_prefix(
    model: str, provider: str, version: str
) -> None:
    c = dev_condition(SPEC.source, model)
    assert (c.model.model, c.provider, c.model.version) == (model, provider, version)


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
