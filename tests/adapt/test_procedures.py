"""The built-in procedures on the reference bundles under a changing target (support-ops
@2-units, amounts now in dollars), run through the real path with the sim models."""

from __future__ import annotations

import json

import pytest

from adapt import (
    AdaptError,
    adapt_bundle,
    default_procedures,
    rebind_skills,
    refresh_episodes,
    rewrite_recipes,
    sealed_reads,
)
from adapt._trials import run_sample
from benchmark import FAMILIES
from benchmark.harness import Episode, TrajectorySet
from conditions import ModelAxis
from drift import ToolCall
from submissions import ArtifactEntry, Bundle, reference_bundles
from tests.adapt._helpers import SPEC, Writer, gateway, install_writer, kit

UNITS = "support-ops@2-units"
REFERENCE = {b.manifest.name: b for b in reference_bundles()}


def _outcomes(bundle: Bundle, sample: int = 4) -> list[str]:
    k = kit(UNITS, sample=sample)
    results = run_sample(k, gateway(), bundle.agent_artifacts(), k.sample(), "probe")
    return [r.outcome.value for _, r in results]


def test_the_typed_skill_is_rebound_without_a_model_call_and_then_works() -> None:
    frozen = REFERENCE["typed-skill"]
    adapted = rebind_skills(frozen, kit(UNITS), gateway())
    assert adapted.changed and adapted.cost.calls == 0 and adapted.parent == frozen.hash
    (diff,) = [d for d in adapted.diff if d.status == "changed"]
    removed = [line for line in diff.diff.splitlines() if line.startswith("-")]
    added = [line for line in diff.diff.splitlines() if line.startswith("+")]
    assert any('"amount_cents": "$amount",' in line for line in removed)
    assert any('"amount": "$amount",' in line for line in added)
    before, after = _outcomes(frozen), _outcomes(adapted.bundle)
    assert set(before) == {"safe_stop"}, before  # the frozen skill stops safely
    assert after.count("success") > before.count("success"), after


def test_the_sim_rewrites_the_recipe_the_changes_touch_and_keeps_the_others() -> None:
    """The target's model reads the changes: the refund playbook's renamed field and its new
    unit are carried into the text; playbooks no change touches come back unchanged."""
    frozen = REFERENCE["prompt-recipe"]
    adapted = rewrite_recipes(frozen, kit(UNITS), gateway())
    changed = [d.path for d in adapted.diff if d.status == "changed"]
    assert adapted.changed and changed == ["refund-playbook.md"], adapted.notes
    text = adapted.bundle.files["refund-playbook.md"]
    assert "amount (in dollars)" in text and "amount_cents" not in text and "x 100" not in text
    old = frozen.files["refund-playbook.md"].splitlines()
    assert [a for a, b in zip(old, text.splitlines(), strict=True) if a != b] == [old[4]]
    assert adapted.cost.calls > len(frozen.files)  # the probe trials and one request per recipe


def test_a_recipe_rewrite_that_parses_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    rewrite = "Refund playbook\n\n1. Pass amount in dollars to issue_refund."
    writer = Writer(f"Here it is.\n<recipe>\n{rewrite}\n</recipe>")
    model = install_writer(monkeypatch, writer)
    k = kit(UNITS, sample=2)
    k.target = k.target.model_copy(update={"model": ModelAxis(model=model, version="1")})
    frozen = REFERENCE["prompt-recipe"]
    adapted = rewrite_recipes(frozen, k, gateway())
    assert adapted.bundle.files["refund-playbook.md"] == rewrite + "\n"
    assert {d.path: d.status for d in adapted.diff} == dict.fromkeys(frozen.files, "changed")
    request = writer.requests[-1][-1]["content"]
    assert '"amount"' in request and "unit_changed" in request  # served tools and changes
    assert "Request: " in request  # the probe trials' transcripts


def test_episodes_are_refreshed_from_verified_sample_solutions() -> None:
    frozen = REFERENCE["retrieved-trajectories"]
    k = kit(UNITS, sample=4)
    adapted = refresh_episodes(frozen, k, gateway())
    memory = TrajectorySet.model_validate_json(adapted.bundle.files["episodes.json"])
    sample = {t.instruction: t for t in k.sample()}
    assert memory.episodes and all(e.instruction in sample for e in memory.episodes)
    refunds = [c for e in memory.episodes for c in e.calls if c.name == "issue_refund"]
    assert refunds and all("amount" in c.arguments for c in refunds)
    assert all("amount_cents" not in c.arguments for c in refunds)
    sealed = FAMILIES["support_ops"].tasks("sealed", 24, SPEC.seed)
    assert sealed_reads(k.log, sealed) == [] and not k.log.refused()
    assert 0 < adapted.cost.calls <= 400 and adapted.cost.tokens > 0


def test_a_memory_of_another_family_is_left_alone() -> None:
    frozen = REFERENCE["retrieved-trajectories"]
    other = TrajectorySet(
        name="books",
        episodes=(
            Episode(
                instruction="Post the bank fee of $4.00 on line SL-1 and flag it.",
                calls=(ToolCall(name="post_adjustment", arguments={"amount_cents": -400}),),
            ),
        ),
    )
    text = json.dumps(other.model_dump(mode="json"))
    manifest = frozen.manifest.model_copy(
        update={
            "artifacts": (
                *frozen.manifest.artifacts,
                ArtifactEntry(kind="trajectory", name="books", path="books.json"),
            )
        }
    )
    bundle = Bundle(manifest=manifest, files={**frozen.files, "books.json": text})
    adapted = refresh_episodes(bundle, kit(UNITS, sample=2), gateway())
    status = {d.path: d.status for d in adapted.diff}
    assert status["books.json"] == "unchanged" and status["episodes.json"] == "changed"


def test_a_procedure_ends_with_what_it_has_at_the_first_refused_call() -> None:
    frozen = REFERENCE["retrieved-trajectories"]
    g = gateway(calls=5)
    adapted = refresh_episodes(frozen, kit(UNITS, sample=4), g)
    assert adapted.cost.calls == 5 and adapted.cost.refused >= 1
    assert any("stopped early" in n for n in adapted.notes), adapted.notes


def test_adapt_bundle_runs_the_procedures_an_artifact_kind_calls_for() -> None:
    assert [default_procedures(b) for b in REFERENCE.values()] == [
        [],
        ["rewrite-recipes"],
        ["rebind-skills"],
        ["refresh-episodes"],
    ]
    none = adapt_bundle(REFERENCE["no-artifacts"], kit(UNITS), gateway())
    assert none.hash == none.parent and none.procedure == "none" and none.cost.calls == 0
    skill = adapt_bundle(REFERENCE["typed-skill"], kit(UNITS), gateway())
    assert skill.procedure == "rebind-skills" and skill.changed
    assert skill.cost.stopped == "finished"
    record = json.loads(json.dumps(skill.record()))
    assert record["parent"] == REFERENCE["typed-skill"].hash and record["hash"] == skill.hash
    with pytest.raises(AdaptError, match="unknown adaptation procedure"):
        adapt_bundle(REFERENCE["typed-skill"], kit(UNITS), gateway(), ["retrain"])
