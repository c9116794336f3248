"""The adaptation kit serves only the target's adaptation sample (and public examples): a read
of a sealed task is refused and logged; the log is canonical, digested and checkable."""

from __future__ import annotations

import json

import pytest

from adapt import ADAPT_SPLIT, AccessLog, SealedRead, sealed_reads, task_sha
from benchmark import FAMILIES, Family, Task
from tests.adapt._helpers import SPEC, kit


def _solved(task: Task) -> str:
    return json.dumps([task.instruction, [c.model_dump(mode="json") for c in task.reference_calls]])


def test_a_sealed_read_is_refused_and_logged() -> None:
    k = kit("support-ops@2-units", sample=3)
    sealed = FAMILIES["support_ops"].tasks("sealed", 5, SPEC.seed)
    served = k.sample()
    assert [t.split for t in served] == [ADAPT_SPLIT] * 3
    with pytest.raises(SealedRead, match="sealed task"):
        k.task(sealed[2].id)
    with pytest.raises(SealedRead, match="sealed split"):
        k.split("support_ops", "sealed")
    refused = k.log.refused()
    assert [(e.kind, e.id) for e in refused] == [
        ("task", sealed[2].id),
        ("split", "support_ops/sealed"),
    ]
    assert all("adaptation sample" in e.reason for e in refused)
    # what was served is logged with its content hash, and none of it is sealed
    assert {e.id: e.sha256 for e in k.log.entries if e.kind == "task" and e.allowed} == {
        t.id: task_sha(t) for t in served
    }
    assert sealed_reads(k.log, sealed) == []


def test_dev_tasks_and_other_families_are_not_served_either() -> None:
    k = kit("support-ops@2-units", sample=2)
    dev = FAMILIES["support_ops"].tasks("dev", 1, SPEC.seed)[0]
    other = FAMILIES["reconciliation"].tasks(ADAPT_SPLIT, 1, SPEC.seed)[0]
    for task_id in (dev.id, other.id):
        with pytest.raises(SealedRead, match="not in the kit"):
            k.task(task_id)
    with pytest.raises(SealedRead, match="not a task id"):
        k.task("support_ops/sealed")
    assert k.task(k.sample()[1].id).split == ADAPT_SPLIT
    assert len(k.log.refused()) == 3


def test_the_log_check_finds_a_served_read_of_a_sealed_task() -> None:
    """``sealed_reads`` is the release check: it catches a sealed task by id or by content."""
    sealed = FAMILIES["support_ops"].tasks("sealed", 2, SPEC.seed)
    log = AccessLog()
    log.record("task", "support_ops/adapt/0000-x", task_sha(sealed[1]))  # content of a sealed
    log.record("task", sealed[0].id, "0" * 64)
    log.record("task", sealed[0].id, "0" * 64, allowed=False, reason="refused")
    assert [e.seq for e in sealed_reads(log, sealed)] == [0, 1]


def test_the_log_is_canonical_and_its_digest_covers_every_entry() -> None:
    k = kit("support-ops@2-units", sample=2)
    k.sample()
    k.tools("support-ops")
    data = json.loads(k.log.canonical())
    again = AccessLog.from_json(data)
    assert again.canonical() == k.log.canonical() and again.digest() == k.log.digest()
    tool = next(e for e in k.log.entries if e.kind == "tool")
    assert tool.id == "support-ops" and tool.sha256 == k.served("support-ops").digest
    before = k.log.digest()
    with pytest.raises(SealedRead):
        k.task(FAMILIES["support_ops"].tasks("sealed", 1, SPEC.seed)[0].id)
    assert k.log.digest() != before


@pytest.mark.parametrize("fam", list(FAMILIES.values()), ids=list(FAMILIES))
@pytest.mark.parametrize("cycle_seed", [SPEC.seed, 1])
def test_the_adaptation_sample_is_disjoint_from_the_sealed_split(
    fam: Family, cycle_seed: int
) -> None:
    """For every built-in family: no served task shares an id, or a request with its answer,
    with a sealed one."""
    env = fam.env_id
    k = kit(f"{env}@1", sample=40)
    k = type(k)(k.target, sample_seed=cycle_seed, sample=40, examples=10)
    served = k.sample() + k.examples()
    assert len(served) == 50 and {t.family for t in served} == {fam.id}
    sealed = fam.tasks("sealed", 60, cycle_seed)
    assert not {t.id for t in served} & {t.id for t in sealed}
    # a request with its answer (research questions recur over other document collections)
    assert not {_solved(t) for t in served} & {_solved(t) for t in sealed}
    assert sealed_reads(k.log, sealed) == []
