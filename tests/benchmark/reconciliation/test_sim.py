"""Sim models in reconciliation through its knowledge pack alone (no engine change), run through
the real trial path (litellm, harness, backend subprocess, verifier, oracle): the pack reads
every instruction as its kind, a mid model solves a fair share, a model certain of every skill
solves all, and each changing operator is critical for a model that misses it only."""

import pytest

from benchmark import serve
from benchmark.reconciliation import (
    ENV_ID,
    KINDS,
    LEDGER_KINDS,
    MATCH_KINDS,
    Reconciliation,
    _generator,
    _phrasings,
)
from benchmark.reconciliation import interface_versions as versions
from benchmark.reconciliation._sim_pack import PACK
from benchmark.sim._intent import read_request
from tests.benchmark.sim._experiment import run_arm, use_model, version

SOURCE = version(env=ENV_ID)
SOURCE_TOOLS = serve(ENV_ID, SOURCE).tools


@pytest.mark.parametrize("phrasings", ["PHRASINGS", "SECOND_PHRASINGS"])
def test_the_pack_reads_every_instruction_as_its_kind(
    phrasings: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the generator's phrasings and a second set written independently of them
    monkeypatch.setattr(_generator, "PHRASINGS", getattr(_phrasings, phrasings))
    assert {k.name for k in PACK.kinds} == set(KINDS)
    tools = {t.name: t.description for t in SOURCE_TOOLS.tools}
    for task in Reconciliation().tasks("sealed", 48, 13):
        read = read_request(task.instruction, True, 0.0, 0.0, tools)
        assert read is not None and read.kind.name == task.kind, task.instruction


def test_the_family_serves_its_pack(registered: Reconciliation) -> None:
    assert registered.sim_pack() is PACK
    assert PACK.family == registered.id


def test_a_mid_model_solves_a_fair_share_on_the_source_interface(
    registered: Reconciliation,
) -> None:
    arm = run_arm("acme-2", fam=registered, interface=SOURCE, tasks=24)
    assert {t.kind for t in arm.tasks} == set(KINDS)
    assert 0.4 <= arm.success <= 0.9, arm.outcomes
    assert arm.critical == 0


def test_a_model_certain_of_every_skill_solves_every_task(
    registered: Reconciliation, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = use_model(monkeypatch, "recon-certain")
    arm = run_arm(model, fam=registered, interface=SOURCE, tasks=24)
    assert arm.success == 1.0, [r.verifier for r in arm.results]


OPERATORS = [
    pytest.param(f"{ENV_ID}@2-sign", LEDGER_KINDS, id="sign"),
    pytest.param(f"{ENV_ID}@2-percent", ("early_discount",), id="percent"),
    pytest.param(f"{ENV_ID}@2-ids", MATCH_KINDS, id="identifier"),
]


@pytest.mark.parametrize(("version_id", "kinds"), OPERATORS)
def test_each_changing_operator_is_critical_for_a_model_that_misses_it_only(
    registered: Reconciliation,
    monkeypatch: pytest.MonkeyPatch,
    version_id: str,
    kinds: tuple[str, ...],
) -> None:
    changed = versions()[version_id]
    misser = use_model(monkeypatch, "recon-misser", read_conventions=0.0, recover=0.0)
    reader = use_model(monkeypatch, "recon-reader")
    missed = run_arm(misser, fam=registered, interface=changed, tasks=8, kinds=kinds)
    read = run_arm(reader, fam=registered, interface=changed, tasks=8, kinds=kinds)
    assert missed.critical == len(missed.results) == 8, missed.outcomes
    (op,) = changed.ops
    assert {f.operator for r in missed.results for f in r.critical} == {op.describe()}
    assert read.critical == 0, read.outcomes
    assert read.success == 1.0, read.outcomes
