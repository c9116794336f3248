"""`vwt demo` end to end at a small size: the whole release cycle, every real component."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conditions import ConditionsError, verify_commitment_and_reveal
from reports import SignedRelease, cell_flags
from vwt.cli import app

# the module's demo is built in its first test's time: at a load average of 25 (two CPU hogs and
# two more demos beside the suite) it outlasted the default 900 s
pytestmark = [pytest.mark.slow, pytest.mark.ray, pytest.mark.timeout(2400)]
SMALL = ["--tasks", "4", "--k", "2", "--max-conditions", "9"]


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory, ray_runtime: None) -> Path:
    home = tmp_path_factory.mktemp("demo") / "home"
    result = CliRunner().invoke(app, ["demo", "--home", str(home), *SMALL])
    assert result.exit_code == 0, result.output
    assert "Transfer matrix" in result.output and "release.json" in result.output
    assert "report.html" in result.output and (home / "public" / "report.html").is_file()
    return home


def _release(home: Path) -> SignedRelease:
    return SignedRelease.model_validate_json((home / "public" / "release.json").read_text())


def test_published_commitment_and_reveal_verify(demo_home: Path) -> None:
    public = demo_home / "public"
    verified = verify_commitment_and_reveal(public / "commitment.json", public / "reveal.json")
    assert verified.scope == "full" and len(verified.conditions) == 9


def test_unit_drift_catches_the_recipe_and_not_the_typed_skill(demo_home: Path) -> None:
    release = _release(demo_home).release
    units = next(
        c
        for c in release.conditions
        if c.varied == ("tool_interface",)
        and c.condition.tool_interface["support-ops"] == "support-ops@2-units"
    )
    cells = {
        c.submission: c.metrics
        for c in release.cells
        if c.condition_id == units.id and c.phase == "frozen"
    }
    assert cells["prompt-recipe@1"].with_arm.critical > 0
    assert cells["typed-skill@1"].with_arm.critical == 0
    assert cells["typed-skill@1"].with_arm.safe_stop == cells["typed-skill@1"].with_arm.trials


def test_every_planned_trial_is_in_the_release(demo_home: Path) -> None:
    release = _release(demo_home).release
    # 10 conditions, one over 3 families: 12 family runs × (baseline + 4 reference
    # submissions) × 4 tasks × k=2
    frozen, adapted = release.accounting
    assert frozen.expected == 12 * 5 * 4 * 2
    lines = (demo_home / "public" / "trials.jsonl").read_text().splitlines()
    assert len(lines) == release.n_trials == frozen.expected + adapted.expected


def test_a_tampered_reveal_fails_verification(demo_home: Path, tmp_path: Path) -> None:
    public = demo_home / "public"
    reveal = json.loads((public / "reveal.json").read_text())
    leaf = reveal["reveal"]["leaves"][0]
    leaf["leaf"]["condition"]["harness"] = "harness-v9"
    tampered = tmp_path / "reveal.json"
    tampered.write_text(json.dumps(reveal))
    with pytest.raises(ConditionsError):
        verify_commitment_and_reveal(public / "commitment.json", tampered)


def test_the_same_home_is_refused_without_force(demo_home: Path) -> None:
    before = (demo_home / "public" / "release.json").read_bytes()
    result = CliRunner().invoke(app, ["demo", "--home", str(demo_home), *SMALL])
    assert result.exit_code == 2
    assert "already holds a release cycle" in result.output and "--force" in result.output
    assert (demo_home / "public" / "release.json").read_bytes() == before


def test_the_no_artifacts_arm_is_the_noise_check_tested_on_its_own(demo_home: Path) -> None:
    release = _release(demo_home).release
    aa = [
        c.metrics for c in release.cells if c.submission == "no-artifacts@1" and c.phase == "frozen"
    ]
    assert len(aa) == 10
    assert all(m.test_family == "noise_check" and m.negative_transfer is None for m in aa)
    assert all(m.noise_differs is not None for m in aa)
    # sampling noise differs per arm: the A/A comparison is not an identity everywhere
    assert any(m.variation != "identical" for m in aa)
    adapted = [c.metrics for c in release.cells if c.submission == "no-artifacts@1"]
    assert {m.test_family for m in adapted} == {"noise_check", "duplicate"}


def test_every_verdict_the_matrix_prints_is_a_tested_claim(demo_home: Path) -> None:
    release = _release(demo_home).release
    for cell in release.cells:
        m = cell.metrics
        codes = {f.code for f in cell_flags(cell)}
        # CRITICAL only where the paired excess is significant; counts stay on every cell
        assert ("critical" in codes) == bool(m.critical_excess)
        if m.with_arm.critical > m.without_arm.critical and not m.critical_excess:
            assert "more-critical" in codes
        # no ceiling on a reliably negative gain; no interval without its method
        assert not ("ceiling" in codes and m.gain_ci.hi < 0)
        assert m.interval_method in ("t", "stratified_t") and m.gain_se > 0
        # a negative verdict only with an interval that excludes 0 (BH may withhold one)
        if m.negative_transfer:
            assert m.gain_ci.hi < 0
        if m.variation != "varied":
            assert codes & {"identical", "no-variation"}
        # retention, where reported, is bounded (adjusted for its gate) and holds its value
        if (r := m.retention) is not None:
            assert m.v == 5 and r.ci.lo <= r.value <= r.ci.hi < float("inf")


def test_the_family_axis_is_varied_and_every_family_is_in_the_trials(demo_home: Path) -> None:
    release = _release(demo_home).release
    families = {f for c in release.conditions for f in c.condition.task_family.families}
    assert families == {"support_ops", "reconciliation", "research_evidence"}
    assert any(c.varied == ("task_family",) for c in release.conditions)
    lines = (demo_home / "public" / "trials.jsonl").read_text().splitlines()
    assert {json.loads(line)["family"] for line in lines} == families


def test_a_target_over_every_family_takes_the_families_as_strata(demo_home: Path) -> None:
    release = _release(demo_home).release
    (mixed,) = [c for c in release.conditions if len(c.condition.task_family.families) == 3]
    assert mixed.role == "target" and mixed.varied == ("task_family",)
    cells = [cell for cell in release.cells if cell.condition_id == mixed.id]
    assert cells and all(
        (m.n_families, m.interval_method, m.n_tasks) == (3, "stratified_t", 12)
        for m in (cell.metrics for cell in cells)
    )
    single = [cell for cell in release.cells if cell.condition_id == release.conditions[0].id]
    assert all(cell.metrics.interval_method == "t" for cell in single)
    lines = [json.loads(line) for line in (demo_home / "public" / "trials.jsonl").open()]
    mine = [r for r in lines if r["condition_id"] == mixed.id]
    assert {r["family"] for r in mine} == {"support_ops", "reconciliation", "research_evidence"}
    per_family = {f: sum(r["family"] == f for r in mine) for f in {r["family"] for r in mine}}
    assert len(set(per_family.values())) == 1  # tasks_per_split × k × arms of each family


def test_the_adapted_phase_runs_what_adapting_changed_and_rebinds_the_typed_skill(
    demo_home: Path,
) -> None:
    release = _release(demo_home).release
    lines = [json.loads(line) for line in (demo_home / "public" / "trials.jsonl").open()]
    adapted = [r for r in lines if r["phase"] == "adapted"]
    changed = {(a.target, a.adapted) for a in release.adaptations if not a.reused}
    assert adapted and {(r["condition_id"], r["bundle_hash"]) for r in adapted} == changed
    assert {r["arm"] for r in adapted} == {"with"}  # the frozen baseline is not run again
    targets = len(release.conditions) - 1
    assert len(release.adaptations) == targets * len(release.submissions)
    assert all(a.reused for a in release.adaptations if a.submission == "no-artifacts@1")
    assert not any(a.leak.flagged for a in release.adaptations)
    units = next(
        c.id
        for c in release.conditions
        if c.varied == ("tool_interface",)
        and c.condition.tool_interface["support-ops"] == "support-ops@2-units"
    )
    (skill,) = [
        c
        for c in release.cells
        if (c.condition_id, c.submission, c.phase) == (units, "typed-skill@1", "adapted")
    ]
    assert skill.adaptation is not None and skill.adaptation.procedure == "rebind-skills"
    assert not skill.adaptation.reused and skill.adaptation.cost.calls == 0
    assert skill.metrics.gain > skill.adaptation.frozen_gain
    assert skill.metrics.with_arm.safe_stop < skill.metrics.with_arm.trials
