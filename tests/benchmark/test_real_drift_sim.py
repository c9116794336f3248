"""Sim models under the versions modelled on real releases, on small dev runs through the real
trial path: a model that keeps its old reading misuses a change (critical) and one whose
artifact states the new convention, or that re-reads what the schema shows, does not. Nothing
here is per-condition: the misuse comes from what the model reads (a remembered schema, the
descriptions served, a recipe), so a schema-silent change is misused even by a careful reader
of the schema until an artifact states it."""

from __future__ import annotations

import pytest

from benchmark import family
from benchmark.harness import AgentArtifacts, Recipe
from benchmark.reconciliation import interface_versions as recon_versions
from benchmark.support_ops import REFUND_KINDS
from benchmark.support_ops import interface_versions as support_versions
from tests.benchmark.sim._experiment import Arm, run_arm, use_model

SUPPORT = family("support_ops")
STATED = {
    "support-ops@2-credit": "- In issue_refund, store_credit defaults to true: send it as false "
    "so the money goes back to the original payment method.",
    "support-ops@2-format": "- get_order gives amounts in dollars; issue_refund takes "
    "amount_cents in cents.",
    "support-ops@2-base0": "- Call issue_refund with order_id counted from 0: a customer's first "
    "order is number 0.",
}
"""A playbook line stating each version's new convention, written from the release notes'
point of view (what changed), not from the sim's parser."""


def _arm(model: str, version_id: str, text: str = "") -> Arm:
    artifacts = AgentArtifacts(recipes=(Recipe(name="playbook", text=text),)) if text else None
    return run_arm(
        model,
        fam=SUPPORT,
        interface=support_versions()[version_id],
        artifacts=artifacts,
        tasks=4,
        kinds=REFUND_KINDS,
        split="dev",
        arm="adapted" if text else "baseline",
    )


def _flagged_by(arm: Arm) -> set[str]:
    return {f.operator for r in arm.results for f in r.critical}


@pytest.mark.parametrize("version_id", sorted(STATED))
def test_an_old_reading_is_critical_and_an_artifact_stating_the_change_prevents_it(
    monkeypatch: pytest.MonkeyPatch, version_id: str
) -> None:
    (op,) = support_versions()[version_id].ops
    misser = use_model(monkeypatch, "real-misser", read_conventions=0.0, recover=0.0)
    missed = _arm(misser, version_id)
    assert missed.critical >= 2, missed.outcomes
    assert _flagged_by(missed) == {op.describe()}
    told = _arm(misser, version_id, STATED[version_id])
    assert told.critical == 0 and told.success == 1.0, told.outcomes


@pytest.mark.parametrize(
    ("version_id", "careful_misuses"),
    [
        ("support-ops@2-credit", False),
        ("support-ops@2-format", False),
        ("support-ops@2-base0", True),
    ],
)
def test_a_careful_reader_of_the_schema_catches_only_what_the_schema_shows(
    monkeypatch: pytest.MonkeyPatch, version_id: str, careful_misuses: bool
) -> None:
    reader = use_model(monkeypatch, "real-reader")
    arm = _arm(reader, version_id)
    assert (arm.critical > 0) is careful_misuses, arm.outcomes


def test_trading_roles_is_misused_by_a_model_that_keeps_its_remembered_schema(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    changed = recon_versions()["reconciliation@2-roles"]
    fam = family("reconciliation")
    misser = use_model(monkeypatch, "real-misser", read_conventions=0.0, recover=0.0)
    reader = use_model(monkeypatch, "real-reader")
    kinds = ("merge_duplicates",)
    missed = run_arm(misser, fam=fam, interface=changed, tasks=3, kinds=kinds, split="dev")
    read = run_arm(reader, fam=fam, interface=changed, tasks=3, kinds=kinds, split="dev")
    assert missed.critical == len(missed.results) == 3, missed.outcomes
    assert _flagged_by(missed) == {changed.ops[0].describe()}
    assert read.critical == 0 and read.success == 1.0, read.outcomes
