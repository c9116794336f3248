"""The reference artifacts for reconciliation and research evidence act through the mechanisms
alone, in real sim trials (litellm, harness, backend, verifier, oracle).

The typed skills' runtime guard runs them on the interface they declare, stops them safely
under a changing drift of a tool they use and rebinds them under a rename; what they, the
playbooks and the episodes say (codes, steps, field names) is what helps, so a wrong declared
interface or a wrong code map scores worse; and an artifact written for one family changes
nothing in another.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmark import family, interface_version
from benchmark.harness import (
    AgentArtifacts,
    AgentSkill,
    Recipe,
    TrajectorySet,
    TypedSkill,
    retrieve,
)
from benchmark.reconciliation import LEDGER_KINDS
from benchmark.reconciliation import interface_versions as reconciliation_versions
from benchmark.research import interface_versions as research_versions
from drift import ToolCall, parse_tool_list
from submissions import load_bundle_dir, reference_dir
from tests.benchmark.sim._experiment import Arm, run_arm, tool_calls, use_model

RECONCILIATION = family("reconciliation")
RESEARCH = family("research_evidence")
SUPPORT = family("support_ops")
RECON = reconciliation_versions()
RESEARCH_VERSIONS = research_versions()
FLAG_KINDS = ("duplicate_payment", "unidentified_payment")
UNAIDED: dict[str, Any] = {"map_enums": 0.0, "know_procedure": 0.0}
"""A model that needs an artifact for the codes and the steps a request does not state."""
MISSER: dict[str, Any] = {"read_conventions": 0.0, "recover": 0.0}
"""A model that misses a changed convention (it keeps what it remembers)."""


def _artifacts(bundle: str) -> AgentArtifacts:
    return load_bundle_dir(reference_dir(bundle)).agent_artifacts()


def _skill(name: str) -> TypedSkill:
    skill = next(s for s in _artifacts("typed-skill").skills if s.name == name)
    assert skill.contract is not None
    return skill.contract


def _recipe(name: str) -> Recipe:
    return next(r for r in _artifacts("prompt-recipe").recipes if r.name == name)


def _memory(name: str) -> TrajectorySet:
    return next(m for m in _artifacts("retrieved-trajectories").trajectories if m.name == name)


def _with_skill(skill: TypedSkill) -> AgentArtifacts:
    return AgentArtifacts(skills=(AgentSkill.from_typed(skill),))


def _edited(skill: TypedSkill, edit: Any) -> TypedSkill:
    """``skill`` as JSON, changed by ``edit`` in place, its declared digest recomputed."""
    data = json.loads(skill.model_dump_json())
    edit(data)
    for req in data["requires"]:
        req["schema_digest"] = parse_tool_list(req["tools"], "requires.tools").digest()
    return TypedSkill.model_validate(data)


def _flip_declared_sign(data: dict[str, Any]) -> None:
    """Declare post_adjustment with the opposite sign convention to the one served at @1."""
    (req,) = data["requires"]
    tool = next(t for t in req["tools"] if t["name"] == "post_adjustment")
    tool["inputSchema"]["properties"]["amount_cents"]["description"] = (
        "Adjustment amount in cents. Negative values are credits (money in); positive values "
        "are debits (money out)."
    )


def _code(calls: tuple[ToolCall, ...]) -> str:
    """The flag or stance code a solution's calls use."""
    return next(
        str(c.arguments.get("flag") or c.arguments.get("stance") or "")
        for c in calls
        if c.name in ("flag_record", "add_claim")
    )


def assert_all(arm: Arm, outcome: str) -> None:
    assert arm.outcomes[outcome] == len(arm.results) > 0, arm.outcomes


def test_the_reconciliation_skill_runs_on_its_interface_and_supplies_codes_and_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = use_model(monkeypatch, "unaided", **UNAIDED)
    skill = _with_skill(_skill("reconcile-books"))
    kinds = (*FLAG_KINDS, *LEDGER_KINDS)
    source = RECON["reconciliation@1"]
    without = run_arm(model, fam=RECONCILIATION, interface=source, tasks=12, kinds=kinds)
    with_skill = run_arm(
        model, fam=RECONCILIATION, interface=source, artifacts=skill, tasks=12, kinds=kinds
    )
    # needs_review for payments, and lines left unflagged unless the request says to flag them
    assert without.success < 0.5, without.outcomes
    assert_all(with_skill, "success")
    assert not any(r.run.notes or r.run.safe_stop for r in with_skill.results)


@pytest.mark.parametrize(
    ("version_id", "kinds"),
    [
        pytest.param("reconciliation@2-sign", LEDGER_KINDS, id="sign"),
        pytest.param("reconciliation@2-percent", ("early_discount",), id="percent"),
        pytest.param("reconciliation@2-ids", ("match_invoice",), id="identifier"),
    ],
)
def test_the_reconciliation_skill_stops_safely_where_a_misser_does_harm(
    monkeypatch: pytest.MonkeyPatch, version_id: str, kinds: tuple[str, ...]
) -> None:
    model = use_model(monkeypatch, "misser", **MISSER)
    changed = RECON[version_id]
    skill = _with_skill(_skill("reconcile-books"))
    without = run_arm(model, fam=RECONCILIATION, interface=changed, tasks=6, kinds=kinds)
    with_skill = run_arm(
        model, fam=RECONCILIATION, interface=changed, artifacts=skill, tasks=6, kinds=kinds
    )
    assert_all(without, "critical")
    assert_all(with_skill, "safe_stop")
    assert all("(changing)" in str(r.run.safe_stop) for r in with_skill.results)
    assert all(r.run.turns == 0 for r in with_skill.results)  # stopped before the model acted


def test_the_reconciliation_skill_is_rebound_under_a_rename(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    remembering = use_model(monkeypatch, "remembering", read_schema=0.0, recover=0.0)
    renamed = RECON["reconciliation@2-rename"]
    skill = _with_skill(_skill("reconcile-books"))
    kinds = ("match_invoice",)
    without = run_arm(remembering, fam=RECONCILIATION, interface=renamed, tasks=6, kinds=kinds)
    rebound = run_arm(
        remembering, fam=RECONCILIATION, interface=renamed, artifacts=skill, tasks=6, kinds=kinds
    )
    assert_all(without, "failure")  # it sends the payment_id it remembers: a tool error
    assert_all(rebound, "success")
    for result in rebound.results:
        assert any("rebound" in note for note in result.run.notes)
        ((name, args),) = tool_calls(result)
        assert name == "match_payment" and "payment_ref" in args and "payment_id" not in args


def test_a_skill_declaring_the_wrong_sign_convention_stops_where_the_right_one_succeeds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = use_model(monkeypatch, "certain")
    right = _skill("reconcile-books")
    wrong = _edited(right, _flip_declared_sign)
    source = RECON["reconciliation@1"]
    kinds = LEDGER_KINDS
    good = run_arm(
        model,
        fam=RECONCILIATION,
        interface=source,
        artifacts=_with_skill(right),
        tasks=6,
        kinds=kinds,
    )
    bad = run_arm(
        model,
        fam=RECONCILIATION,
        interface=source,
        artifacts=_with_skill(wrong),
        tasks=6,
        kinds=kinds,
    )
    assert_all(good, "success")
    assert_all(bad, "safe_stop")  # the runtime finds the served sign is not the declared one
    assert all("sign_changed" in str(r.run.safe_stop) for r in bad.results)


def test_a_skill_with_a_wrong_flag_code_map_scores_below_the_right_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = use_model(monkeypatch, "unaided", **UNAIDED)
    right = _skill("reconcile-books")

    def swap_codes(data: dict[str, Any]) -> None:
        data["codes"] = {
            "payment imported twice": "unidentified",
            "unknown payer nobody can trace": "duplicate",
        }

    wrong = _edited(right, swap_codes)
    source = RECON["reconciliation@1"]
    good = run_arm(
        model,
        fam=RECONCILIATION,
        interface=source,
        artifacts=_with_skill(right),
        tasks=8,
        kinds=FLAG_KINDS,
    )
    bad = run_arm(
        model,
        fam=RECONCILIATION,
        interface=source,
        artifacts=_with_skill(wrong),
        tasks=8,
        kinds=FLAG_KINDS,
    )
    assert_all(good, "success")
    assert_all(bad, "failure")
    for task, result in zip(bad.tasks, bad.results, strict=True):
        ((_, args),) = tool_calls(result)
        assert args["flag"] == {"duplicate_payment": "unidentified"}.get(task.kind, "duplicate")


def test_the_research_skill_supplies_the_submit_step_and_the_stance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = use_model(monkeypatch, "unaided", **UNAIDED)
    source = RESEARCH_VERSIONS["research@1"]
    skill = _with_skill(_skill("answer-with-citation"))
    without = run_arm(model, fam=RESEARCH, interface=source, tasks=16)
    with_skill = run_arm(model, fam=RESEARCH, interface=source, artifacts=skill, tasks=16)
    assert without.success <= 0.5, without.outcomes
    assert_all(with_skill, "success")


@pytest.mark.parametrize("version_id", ["research@2-keys", "research@2-stance"])
def test_the_research_skill_stops_safely_under_its_changing_drifts(
    monkeypatch: pytest.MonkeyPatch, version_id: str
) -> None:
    model = use_model(monkeypatch, "misser", **MISSER)
    changed = RESEARCH_VERSIONS[version_id]
    skill = _with_skill(_skill("answer-with-citation"))
    kinds = ("figure", "date")
    without = run_arm(model, fam=RESEARCH, interface=changed, tasks=6, kinds=kinds)
    with_skill = run_arm(
        model, fam=RESEARCH, interface=changed, artifacts=skill, tasks=6, kinds=kinds
    )
    assert_all(without, "critical")
    assert_all(with_skill, "safe_stop")


@pytest.mark.parametrize(
    ("fam", "memory", "kinds"),
    [
        pytest.param(
            RECONCILIATION,
            "reconciliation-episodes",
            FLAG_KINDS,
            id="reconciliation",
        ),
        pytest.param(RESEARCH, "research-episodes", ("check",), id="research"),
    ],
)
def test_a_retrieved_episode_shows_the_code_of_its_own_kind(
    monkeypatch: pytest.MonkeyPatch, fam: Any, memory: str, kinds: tuple[str, ...]
) -> None:
    model = use_model(monkeypatch, "unaided", **UNAIDED)
    source = interface_version(fam.env_id, f"{fam.env_id}@1")
    remembered = _memory(memory)
    episodes = AgentArtifacts(trajectories=(remembered,))
    without = run_arm(model, fam=fam, interface=source, tasks=8, kinds=kinds)
    with_memory = run_arm(
        model, fam=fam, interface=source, artifacts=episodes, tasks=8, kinds=kinds
    )
    assert without.success == 0.0, without.outcomes  # the fallback code: needs_review, supports
    # an episode shows its own kind's code: the trial succeeds when the retrieved one shows
    # the code this task takes, and only then (word overlap is an imperfect retriever)
    shows_its_code = [
        _code(retrieve(remembered, task.instruction).calls) == _code(task.reference_calls)
        for task in with_memory.tasks
    ]
    assert [r.outcome.value == "success" for r in with_memory.results] == shows_its_code
    assert with_memory.success >= 0.5, with_memory.outcomes


def test_the_research_playbook_supplies_the_submit_step_and_the_stance(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = use_model(monkeypatch, "numbered", follows=("numbered",), **UNAIDED)
    source = RESEARCH_VERSIONS["research@1"]
    playbook = AgentArtifacts(recipes=(_recipe("research-playbook"),))
    without = run_arm(model, fam=RESEARCH, interface=source, tasks=16)
    with_playbook = run_arm(model, fam=RESEARCH, interface=source, artifacts=playbook, tasks=16)
    assert without.success <= 0.5, without.outcomes
    assert_all(with_playbook, "success")


def test_the_reconciliation_playbook_agrees_with_its_interface_and_conflicts_with_the_sign_flip(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stopper = use_model(
        monkeypatch, "stopper", follows=("numbered",), notice_conflicts=1.0, on_conflict="stop"
    )
    playbook = AgentArtifacts(recipes=(_recipe("reconciliation-playbook"),))
    kinds = LEDGER_KINDS
    agrees = run_arm(
        stopper,
        fam=RECONCILIATION,
        interface=RECON["reconciliation@1"],
        artifacts=playbook,
        tasks=6,
        kinds=kinds,
    )
    flipped = run_arm(
        stopper,
        fam=RECONCILIATION,
        interface=RECON["reconciliation@2-sign"],
        artifacts=playbook,
        tasks=6,
        kinds=kinds,
    )
    assert_all(agrees, "success")
    assert_all(flipped, "safe_stop")  # the model stops on the playbook's sign against the schema


def test_the_new_family_artifacts_change_nothing_in_support_operations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = use_model(monkeypatch, "mid", map_enums=0.5, know_procedure=0.5, read_numbers=0.8)
    foreign = AgentArtifacts(
        recipes=(_recipe("reconciliation-playbook"), _recipe("research-playbook")),
        skills=tuple(
            map(AgentSkill.from_typed, map(_skill, ("reconcile-books", "answer-with-citation")))
        ),
        trajectories=(_memory("reconciliation-episodes"), _memory("research-episodes")),
    )
    source = interface_version("support-ops", "support-ops@1")
    without = run_arm(model, fam=SUPPORT, interface=source, tasks=20)
    with_foreign = run_arm(model, fam=SUPPORT, interface=source, artifacts=foreign, tasks=20)
    assert [r.outcome for r in with_foreign.results] == [r.outcome for r in without.results]
    assert [tool_calls(r) for r in with_foreign.results] == [tool_calls(r) for r in without.results]
    assert 0 < without.success < 1  # the model is uncertain enough for artifacts to matter
