"""Planning: counts, unique keys, shared seeds, a baseline independent of the submissions."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from benchmark import BenchmarkError, default_cycle_spec_path, family, load_family_folder
from benchmark.harness import AgentArtifacts
from conditions import Condition, CycleSpec, TaskFamilyAxis, plan_targets
from drift import InterfaceVersion, RenameTool
from runner import Batch, TrialSpec, _records, plan_phase, sandbox_groups, trial_key
from runner._records import sandbox_key
from submissions import Bundle, reference_bundles

SPEC = CycleSpec.load(default_cycle_spec_path())


def _conditions(n: int = 3) -> list[tuple[str, Condition]]:
    conditions = [SPEC.source] + [t.condition for t in plan_targets(SPEC).targets[: n - 1]]
    return [(c.id, c) for c in conditions]


def _plan(bundles: list[Bundle] | None = None, **kw: Any) -> list[Batch]:
    args: dict[str, Any] = {
        "cycle": SPEC.cycle,
        "cycle_seed": SPEC.seed,
        "phase": "frozen",
        "conditions": _conditions(),
        "bundles": reference_bundles() if bundles is None else bundles,
        "tasks_per_split": 5,
        "k": 3,
    }
    return plan_phase(**{**args, **kw})


def _trials(batches: list[Batch]) -> list[tuple[Batch, TrialSpec]]:
    return [(b, t) for b in batches for t in b.trials]


def test_counts_and_batch_sizes() -> None:
    batches = _plan(batch_size=4)
    conditions, arms = 3, len(reference_bundles()) + 1
    assert len(_trials(batches)) == conditions * arms * 5 * 3
    assert all(1 <= len(b.trials) <= 4 for b in batches)
    per_cell: dict[tuple[str, str], int] = defaultdict(int)
    for b in batches:
        per_cell[(b.condition_id, b.arm + (b.bundle_hash or ""))] += len(b.trials)
    assert len(per_cell) == conditions * arms and set(per_cell.values()) == {15}


def test_keys_are_unique_and_are_the_hash_of_their_parts() -> None:
    batches = _plan()
    keys = [t.key for _, t in _trials(batches)]
    assert len(set(keys)) == len(keys)
    for b in batches:
        for t in b.trials:
            assert t.key == trial_key(
                b.bundle_hash, b.condition_id, "frozen", b.arm, t.task_id, t.trial
            )


def test_phases_have_disjoint_keys() -> None:
    frozen = {t.key for b in _plan() for t in b.trials}
    adapted = {t.key for b in _plan(phase="adapted") for t in b.trials}
    assert not frozen & adapted


def test_model_seeds_are_shared_across_arms_and_conditions_but_not_trials() -> None:
    seeds: dict[tuple[str, int], set[int]] = defaultdict(set)
    for b in _plan():
        for t in b.trials:
            seeds[(t.task_id, t.trial)].add(t.seed)
    assert all(len(s) == 1 for s in seeds.values())
    distinct = {next(iter(s)) for s in seeds.values()}
    assert len(distinct) == len(seeds)  # every (task, trial) draws its own noise


def test_the_baseline_does_not_depend_on_the_submissions() -> None:
    def baseline(batches: list[Batch]) -> list[tuple[str, int, str]]:
        return [
            (t.key, t.seed, b.artifacts_json)
            for b in batches
            if b.arm == "without"
            for t in b.trials
        ]

    one, two = reference_bundles()[:1], reference_bundles()[1:]
    assert baseline(_plan(one)) == baseline(_plan(two)) == baseline(_plan([]))
    with_one = {t.key for b in _plan(one) if b.arm == "with" for t in b.trials}
    with_all = {t.key for b in _plan() if b.arm == "with" for t in b.trials}
    assert with_one < with_all  # adding submissions leaves the others' keys alone


def test_keys_and_batches_carry_the_given_condition_id_not_the_public_one() -> None:
    (source, _), (target_id, target) = _conditions(2)
    keyed = [(source, SPEC.source), ("c-" + "ab" * 8, target)]
    batches = _plan(conditions=keyed, k=1)
    assert {b.condition_id for b in batches} == {source, "c-" + "ab" * 8}
    assert all(b.condition is target for b in batches if b.condition_id != source)
    public = {t.key for b in _plan(conditions=[(target_id, target)], k=1) for t in b.trials}
    private = {t.key for b in batches if b.condition_id != source for t in b.trials}
    assert public and private and not public & private  # the key follows the given id


def test_batches_carry_what_the_worker_needs() -> None:
    bundles = reference_bundles()
    for b in _plan():
        fam = family(b.condition.task_family.family)
        assert b.split_seed == fam.split_seed(b.condition.task_family.split, SPEC.seed)
        if b.arm == "without":
            assert b.bundle_hash is None and b.submission is None
            assert b.artifacts_json == AgentArtifacts().model_dump_json()
        else:
            (bundle,) = [x for x in bundles if x.hash == b.bundle_hash]
            assert b.submission == f"{bundle.manifest.name}@{bundle.manifest.version}"
            assert b.artifacts_json == bundle.agent_artifacts().model_dump_json()


def test_tasks_are_the_splits_first_n_and_grow_by_prefix() -> None:
    small = [(t.task_id, t.task_index) for b in _plan(tasks_per_split=2, k=1) for t in b.trials]
    large = [(t.task_id, t.task_index) for b in _plan(tasks_per_split=4, k=1) for t in b.trials]
    assert set(small) < set(large)
    assert {i for _, i in large} == {0, 1, 2, 3}


@pytest.mark.parametrize("seed", [1, 2])
def test_the_sealed_split_depends_on_the_cycle_seed_and_dev_does_not(seed: int) -> None:
    dev = SPEC.source.model_copy(
        update={"task_family": SPEC.source.task_family.model_copy(update={"split": "dev"})}
    )

    def ids(cycle_seed: int, condition: Condition) -> set[str]:
        plan = _plan([], cycle_seed=cycle_seed, conditions=[(condition.id, condition)], k=1)
        return {t.task_id for b in plan for t in b.trials}

    assert ids(seed, SPEC.source) != ids(seed + 10, SPEC.source)
    assert ids(seed, dev) == ids(seed + 10, dev)


def test_batches_carry_the_interface_they_serve_including_cycle_defined_ones() -> None:
    own = InterfaceVersion(
        id="support-ops@7",
        env="support-ops",
        label="7",
        parent="support-ops@1",
        ops=(RenameTool(tool="get_order", new_name="fetch_order"),),
    )
    target = SPEC.source.model_copy(update={"tool_interface": {"support-ops": "support-ops@7"}})
    batches = _plan(conditions=[("s", SPEC.source), ("t", target)], interfaces=[own])
    served = {b.condition_id: b.interface for b in batches}
    assert served["t"] == own
    assert served["s"].id == "support-ops@1"
    with pytest.raises(BenchmarkError, match="unknown interface version 'support-ops@7'"):
        _plan(conditions=[("t", target)])


def test_a_family_set_plans_every_family_at_full_size() -> None:
    mixed = SPEC.source.model_copy(
        update={
            "task_family": TaskFamilyAxis(
                family=["reconciliation", "research_evidence", "support_ops"], split="sealed"
            )
        }
    )
    batches = _plan(conditions=[(mixed.id, mixed)], bundles=[], tasks_per_split=4, k=2)
    per_family: dict[str, set[str]] = defaultdict(set)
    for b, t in _trials(batches):
        assert t.task_id.startswith(b.family + "/")
        assert b.interface.env == family(b.family).env_id
        per_family[b.family].add(t.task_id)
    assert {f: len(ids) for f, ids in per_family.items()} == {
        "reconciliation": 4,
        "research_evidence": 4,
        "support_ops": 4,
    }
    assert len(_trials(batches)) == 3 * 4 * 2
    with pytest.raises(ValueError, match="not one of the condition's"):
        Batch.model_validate({**batches[0].model_dump(), "family": "other"})


def test_a_family_on_releases_of_a_real_server_runs_one_server_per_release(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    files = Path(__file__).resolve().parents[2] / "benchmark" / "families" / "file_ops"
    fam = load_family_folder(files)  # looked up for this test only, not registered for others
    monkeypatch.setattr(_records, "family", lambda i: fam if i == fam.id else family(i))
    releases = fam.interface_versions()
    batch = _plan()[0]

    def on(family_id: str, version: InterfaceVersion) -> Batch:
        return batch.model_copy(update={"family": family_id, "interface": version})

    old, new = (on("file_ops", releases[v]) for v in ("files@2025.7.1", "files@2026.8.31"))
    assert fam.external_server(old.interface) != fam.external_server(new.interface)
    assert sandbox_key(old) != sandbox_key(new)
    assert sandbox_key(old) == sandbox_key(on("file_ops", releases["files@2025.7.1"]))
    # a built-in family's versions are drift served over one canonical server
    drifted = family("support_ops").interface_versions().values()
    assert len(drifted) > 1
    assert len({sandbox_key(on("support_ops", v)) for v in drifted}) == 1
    # and one server serves every built-in family of an arm, never a folder family's release
    base = sandbox_key(on("support_ops", next(iter(drifted))))
    research = family("research_evidence")
    assert (
        sandbox_key(on(research.id, research.interface_versions()[f"{research.env_id}@1"])) == base
    )
    assert sandbox_key(old) != base


def test_sandbox_groups_share_a_sandbox_only_within_one_arm_and_server() -> None:
    conditions = [(SPEC.source.id, SPEC.source)] + [
        (t.id, t.condition) for t in plan_targets(SPEC).targets if len(t.varied) == 1
    ]
    batches = _plan(conditions=conditions, tasks_per_split=2, k=2)
    groups = sandbox_groups(batches, size=12)
    # every batch exactly once, in plan order within a group
    assert sorted(b.model_dump_json() for g in groups for b in g) == sorted(
        b.model_dump_json() for b in batches
    )
    order = {id(b): i for i, b in enumerate(batches)}
    assert all([order[id(b)] for b in g] == sorted(order[id(b)] for b in g) for g in groups)
    for group in groups:
        assert len({(b.bundle_hash, b.arm) for b in group}) == 1  # arms never share
        assert sum(len(b.trials) for b in group) <= 12
    # conditions that differ in family, model, provider, harness or interface version do
    # share one: one server serves the built-in families' canonical tools, each version's
    # drift over them
    assert any(len({b.family for b in g}) > 1 for g in groups)
    assert any(len({b.condition_id for b in g}) > 1 for g in groups)
    assert any(len({b.interface.model_dump_json() for b in g}) > 1 for g in groups)
    assert len(groups) < len(batches)
    # a batch larger than the size is a group of its own; size 1 groups nothing
    assert [len(g) for g in sandbox_groups(batches, size=1)] == [1] * len(batches)
