"""Planning: every submission × condition × arm × task × trial, grouped into batches, and
batches into the groups that share a sandbox."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from benchmark import family, interface_version, stable_int
from benchmark.harness import AgentArtifacts
from conditions import Condition, ModelEndpoint
from drift import InterfaceVersion
from runner._records import Arm, Batch, Phase, TrialSpec, sandbox_key, trial_key
from submissions import Bundle

BATCH_SIZE = 72
"""Trials per batch (one sandbox each): one batch per arm and family at the default 24 tasks ×
k=3, since a Docker sandbox costs about half a second to start."""


def _arms(bundles: list[Bundle], baseline: bool) -> list[tuple[Arm, Bundle | None]]:
    # The baseline arm is shared by every submission of a condition.
    arms: list[tuple[Arm, Bundle | None]] = [("without", None)] if baseline else []
    return arms + [("with", b) for b in bundles]


def plan_phase(
    *,
    cycle: str,
    cycle_seed: int,
    phase: Phase,
    conditions: Sequence[tuple[str, Condition]],
    bundles: list[Bundle],
    tasks_per_split: int,
    k: int,
    batch_size: int = BATCH_SIZE,
    interfaces: Sequence[InterfaceVersion] = (),
    baseline: bool = True,
    endpoints: Mapping[str, ModelEndpoint] | None = None,
) -> list[Batch]:
    """The batches of one phase: each bundle's arm and, if ``baseline``, the no-artifact arm.
    A trial's model seed depends only on (cycle seed, task, trial index), so arms, phases and
    conditions share their random draws and differences are attributable.

    ``conditions`` are (id, condition) pairs: a committed target's id is keyed (see
    ``Cycle.evaluation_conditions``), a public condition's is ``condition.id``. Trial keys and
    records carry that id. ``interfaces`` are the cycle's own interface versions, beyond the
    built-in ones. A condition over a family set runs ``tasks_per_split`` tasks of each family
    (task ids name their family, so keys stay distinct). ``endpoints`` (the spec's) say where
    each model is served, when not at its provider's defaults."""
    batches = []
    for condition_id, condition in conditions:
        for family_id in condition.task_family.families:
            batches += _family_batches(
                cycle,
                cycle_seed,
                phase,
                condition_id,
                condition,
                family_id,
                bundles,
                tasks_per_split,
                k,
                batch_size,
                interfaces,
                baseline,
                (endpoints or {}).get(condition.model.model),
            )
    return batches


def _family_batches(
    cycle: str,
    cycle_seed: int,
    phase: Phase,
    condition_id: str,
    condition: Condition,
    family_id: str,
    bundles: list[Bundle],
    tasks_per_split: int,
    k: int,
    batch_size: int,
    interfaces: Sequence[InterfaceVersion],
    baseline: bool,
    endpoint: ModelEndpoint | None,
) -> list[Batch]:
    fam = family(family_id)
    split = condition.task_family.split
    split_seed = fam.split_seed(split, cycle_seed)
    tasks = fam.tasks(split, tasks_per_split, cycle_seed)
    interface = interface_version(fam.env_id, condition.tool_interface[fam.env_id], interfaces)
    batches = []
    for arm, bundle in _arms(bundles, baseline):
        bundle_hash = bundle.hash if bundle else None
        specs = [
            TrialSpec(
                key=trial_key(bundle_hash, condition_id, phase, arm, t.id, j),
                task_id=t.id,
                task_index=t.index,
                trial=j,
                seed=stable_int(cycle_seed, t.id, j),
            )
            for t in tasks
            for j in range(k)
        ]
        artifacts = bundle.agent_artifacts() if bundle else AgentArtifacts()
        for start in range(0, len(specs), batch_size):
            batches.append(
                Batch(
                    cycle=cycle,
                    phase=phase,
                    condition_id=condition_id,
                    condition=condition,
                    family=fam.id,
                    arm=arm,
                    bundle_hash=bundle_hash,
                    submission=(
                        f"{bundle.manifest.name}@{bundle.manifest.version}" if bundle else None
                    ),
                    artifacts_json=artifacts.model_dump_json(),
                    interface=interface,
                    endpoint=endpoint,
                    split_seed=split_seed,
                    trials=tuple(specs[start : start + batch_size]),
                )
            )
    return batches


def sandbox_groups(batches: Sequence[Batch], size: int = BATCH_SIZE) -> list[list[Batch]]:
    """``batches`` in the groups that each run in one sandbox with one MCP server (one worker
    task): batches of the same arm (bundle), whatever their family, model, provider,
    harness, split or interface version (one server serves every family's canonical tools
    and every version's drift is served over them; a family served by releases of a real
    server runs one server per family and version: ``sandbox_key``), up to ``size`` trials a
    group (a larger batch is a group of its own), in plan order.

    At small sizes a sandbox and its server cost far more than the few trials of one batch
    (a second, against about 50 ms a trial). Arms never share one: a submission's trials
    cannot reach another's, or the baseline's, through a sandbox they share."""
    groups: list[list[Batch]] = []
    filling: dict[tuple[str | None, str | None, str | None], tuple[list[Batch], int]] = {}
    for batch in batches:
        key = sandbox_key(batch)
        group, trials = filling.get(key, ([], size))
        if trials + len(batch.trials) > size:
            group, trials = [], 0
            groups.append(group)
        group.append(batch)
        filling[key] = (group, trials + len(batch.trials))
    return groups
