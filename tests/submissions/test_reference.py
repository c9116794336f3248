"""The reference submissions: what they declare matches what vwt serves, and their memories hold
solved tasks of the public examples splits only."""

from __future__ import annotations

import json
from typing import Any

from benchmark import Task, family, served_interface
from benchmark.harness import TrajectorySet, TypedSkill
from benchmark.reconciliation import KINDS as RECONCILIATION_KINDS
from benchmark.research import KINDS as RESEARCH_KINDS
from benchmark.support_ops import KINDS, REFUND_KINDS
from submissions import REFERENCE_NAMES, load_bundle_dir, reference_bundles, reference_dir

SKILL_FAMILIES = {
    "refund-ticket": ("support-ops", "support_ops"),
    "reconcile-books": ("reconciliation", "reconciliation"),
    "answer-with-citation": ("research", "research_evidence"),
    "dependency-update": ("repo", "code_maint"),
}
"""Each reference skill → the environment it declares and the family it triggers on."""


def _memories() -> dict[str, TrajectorySet]:
    bundle = load_bundle_dir(reference_dir("retrieved-trajectories"))
    return {m.name: m for m in bundle.agent_artifacts().trajectories}


def test_each_typed_skill_declares_the_digest_of_the_interface_it_was_written_for() -> None:
    skills = load_bundle_dir(reference_dir("typed-skill")).agent_artifacts().skills
    assert {s.name for s in skills} == set(SKILL_FAMILIES)
    for agent_skill in skills:
        skill = agent_skill.contract
        env, fam = SKILL_FAMILIES[skill.name]
        (req,) = skill.requires
        served = served_interface(env, f"{env}@1")
        assert req.env == env and req.version == "1"
        assert req.schema_digest == served.digest
        assert req.tools == tuple(served.tools.to_mcp())
        assert skill.triggers.families == (fam,)
        assert skill.on_interface_change == "rebind_preserving"
        assert isinstance(skill, TypedSkill)


def test_every_reference_is_a_valid_bundle_with_a_distinct_hash() -> None:
    bundles = reference_bundles()
    assert [b.manifest.name for b in bundles] == list(REFERENCE_NAMES)
    assert len({b.hash for b in bundles}) == len(bundles)
    for name, bundle in zip(REFERENCE_NAMES, bundles, strict=True):
        assert (reference_dir(name) / "vwt-bundle.json").is_file()
        assert bundle.manifest.developed_for


def _episode(task: Task) -> dict[str, Any]:
    """The calls the reference solution of support task ``task`` makes, lookups included."""
    refund, close = task.reference_calls
    calls = []
    if task.kind == "damaged_by_email":
        email = next(iter(task.initial_state["customers"].values()))["email"]
        calls.append({"name": "find_customer", "arguments": {"email": email}})
    if task.kind != "duplicate_charge":
        calls.append({"name": "get_order", "arguments": {"order_id": refund.arguments["order_id"]}})
    calls += [refund.model_dump(mode="json"), close.model_dump(mode="json")]
    return {"instruction": task.instruction, "calls": calls, "outcome": "success"}


def _reconciliation_episode(task: Task) -> dict[str, Any]:
    """Reconciliation task ``task`` solved: a merge looks the kept record's email up first, and
    an installment or interest whose amount the text does not state reads it first."""
    first = task.reference_calls[0].arguments
    calls: list[dict[str, Any]] = []
    if task.kind == "merge_duplicates":
        email = task.initial_state["customers"][first["customer_id"]]["email"]
        calls.append({"name": "find_customers", "arguments": {"query": email}})
    if "$" not in task.instruction and task.kind == "split_payment":
        calls.append({"name": "get_invoice", "arguments": {"invoice_id": first["invoice_id"]}})
    if "$" not in task.instruction and task.kind == "interest_credit":
        line = task.reference_calls[1].arguments["record_id"]
        calls.append({"name": "get_statement_line", "arguments": {"line_id": line}})
    calls += [c.model_dump(mode="json") for c in task.reference_calls]
    return {"instruction": task.instruction, "calls": calls, "outcome": "success"}


def _research_episode(task: Task) -> dict[str, Any]:
    """Research task ``task`` answered: search for the question's subject, read the cited
    document, then the reference claim and submission."""
    subject = task.initial_state["question"]["terms"][0]
    doc = task.reference_calls[0].arguments["doc_id"]
    calls = [
        {"name": "search_documents", "arguments": {"query": subject}},
        {"name": "read_document", "arguments": {"doc_id": doc}},
        *(c.model_dump(mode="json") for c in task.reference_calls),
    ]
    return {"instruction": task.instruction, "calls": calls, "outcome": "success"}


def test_the_support_memory_holds_solved_refund_tasks_of_the_examples_split() -> None:
    memory = _memories()["support-ops-episodes"]
    fam = family("support_ops")
    examples = fam.tasks("examples", 2 * len(KINDS), 0)
    refunds = [t for t in examples if t.kind in REFUND_KINDS]  # the memory stays refunds-only
    assert [e.model_dump(mode="json") for e in memory.episodes] == [_episode(t) for t in refunds]
    assert sorted(t.kind for t in refunds) == sorted(2 * REFUND_KINDS)


def test_the_new_family_memories_hold_two_solved_example_tasks_of_each_kind() -> None:
    memories = _memories()
    for name, family_id, kinds, solved in (
        (
            "reconciliation-episodes",
            "reconciliation",
            RECONCILIATION_KINDS,
            _reconciliation_episode,
        ),
        ("research-episodes", "research_evidence", RESEARCH_KINDS, _research_episode),
    ):
        examples = family(family_id).tasks("examples", 2 * len(kinds), 0)
        assert sorted(t.kind for t in examples) == sorted(2 * kinds)
        episodes = [e.model_dump(mode="json") for e in memories[name].episodes]
        assert episodes == [solved(t) for t in examples], name


def _solved(instruction: str, calls: list[dict[str, Any]]) -> str:
    """A request with its answer: the instruction and the calls with effect."""
    return json.dumps([instruction, calls], sort_keys=True)


def test_the_reference_memories_hold_no_task_of_an_evaluated_split() -> None:
    memories = _memories()
    assert set(memories) == {"support-ops-episodes", "reconciliation-episodes", "research-episodes"}
    for family_id in ("support_ops", "reconciliation", "research_evidence"):
        fam = family(family_id)
        remembered = {
            _solved(
                e.instruction,
                [c.model_dump(mode="json") for c in e.calls if c.name in fam.effectful_tools],
            )
            for m in memories.values()
            for e in m.episodes
        }
        for split in ("dev", "sealed", "adapt"):
            # a research question may recur over another collection, with another answer
            evaluated = {
                _solved(t.instruction, [c.model_dump(mode="json") for c in t.reference_calls])
                for t in fam.tasks(split, 200, 20261201)
            }
            assert not remembered & evaluated, (family_id, split)
        # the memories' own split is public and the same in every cycle
        assert fam.tasks("examples", 3, 1) == fam.tasks("examples", 3, 2)
