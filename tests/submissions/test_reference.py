"""The reference submissions: what they declare matches what vwt serves."""

from __future__ import annotations

from benchmark import Task, family, served_interface
from benchmark.harness import TypedSkill
from benchmark.support_ops import KINDS, REFUND_KINDS
from submissions import REFERENCE_NAMES, load_bundle_dir, reference_bundles, reference_dir


def test_the_typed_skill_declares_the_digest_of_the_interface_it_was_written_for() -> None:
    bundle = load_bundle_dir(reference_dir("typed-skill"))
    (entry,) = bundle.manifest.artifacts
    skill = TypedSkill.model_validate_json(bundle.files[entry.path])
    (req,) = skill.requires
    served = served_interface("support-ops", "support-ops@1")
    assert req.env == "support-ops" and req.version == "1"
    assert req.schema_digest == served.digest


def test_every_reference_is_a_valid_bundle_with_a_distinct_hash() -> None:
    bundles = reference_bundles()
    assert [b.manifest.name for b in bundles] == list(REFERENCE_NAMES)
    assert len({b.hash for b in bundles}) == len(bundles)
    for name, bundle in zip(REFERENCE_NAMES, bundles, strict=True):
        assert (reference_dir(name) / "vwt-bundle.json").is_file()
        assert bundle.manifest.developed_for


def _episode(task: Task) -> dict:
    """The calls the reference solution of ``task`` makes, lookups included."""
    refund, close = task.reference_calls
    calls = []
    if task.kind == "damaged_by_email":
        email = next(iter(task.initial_state["customers"].values()))["email"]
        calls.append({"name": "find_customer", "arguments": {"email": email}})
    if task.kind != "duplicate_charge":
        calls.append({"name": "get_order", "arguments": {"order_id": refund.arguments["order_id"]}})
    calls += [refund.model_dump(mode="json"), close.model_dump(mode="json")]
    return {"instruction": task.instruction, "calls": calls, "outcome": "success"}


def test_the_reference_episodes_are_solved_refund_tasks_of_the_examples_split() -> None:
    bundle = load_bundle_dir(reference_dir("retrieved-trajectories"))
    (memory,) = bundle.agent_artifacts().trajectories
    fam = family("support_ops")
    examples = fam.tasks("examples", 2 * len(KINDS), 0)
    refunds = [t for t in examples if t.kind in REFUND_KINDS]  # the memory stays refunds-only
    assert [e.model_dump(mode="json") for e in memory.episodes] == [_episode(t) for t in refunds]
    assert sorted(t.kind for t in refunds) == sorted(2 * REFUND_KINDS)


def test_the_reference_memory_holds_no_task_of_an_evaluated_split() -> None:
    (memory,) = (
        load_bundle_dir(reference_dir("retrieved-trajectories")).agent_artifacts().trajectories
    )
    remembered = {e.instruction for e in memory.episodes}
    fam = family("support_ops")
    for split in ("dev", "sealed", "adapt"):
        evaluated = {t.instruction for t in fam.tasks(split, 200, 20261201)}
        assert not remembered & evaluated, split
    # the memory's own split is public and the same in every cycle
    assert fam.tasks("examples", 3, 1) == fam.tasks("examples", 3, 2)
