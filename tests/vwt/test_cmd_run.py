"""`vwt run`: frozen and adapted phases of a cycle, and a submitter's dev run, through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmark import default_cycle_spec_path
from conditions import Cycle, CycleSpec, CycleState
from runner import store_for
from submissions import load_bundle_dir, reference_bundles, reference_dir, submit
from tests.reports.test_verify import single_axis_targets, small_spec
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


def _cycle(home: Path, *, bundles: bool = True) -> Cycle:
    """A small committed cycle, closed for submissions (state frozen_run)."""
    spec = small_spec()
    cycle = Cycle.init(home, spec)
    cycle.generate(single_axis_targets(spec))
    cycle.commit()
    cycle.transition(CycleState.open)
    for bundle in reference_bundles() if bundles else []:
        submit(cycle, bundle)
    cycle.transition(CycleState.frozen_run)
    return cycle


def test_run_needs_the_right_state_and_submissions(tmp_path: Path) -> None:
    cycle = _cycle(tmp_path / "h", bundles=False)
    code, out = vwt("run", "adapted", "--home", str(cycle.home))
    assert code == 2 and "cannot run the adapted evaluation" in out and "'frozen_run'" in out
    code, out = vwt("run", "frozen", "--home", str(cycle.home), "--sandbox", "local")
    assert code == 2 and "has no submissions" in out
    code, out = vwt("run", "frozen", "--home", str(tmp_path / "none"))
    assert code == 2 and "no release cycle" in out
    code, out = vwt("run", "frozen", "--home", str(cycle.home), "--sandbox", "kvm")
    assert code == 2 and "kvm" in out
    assert store_for(cycle.home).records() == []


@pytest.mark.ray
def test_run_frozen_prints_the_accounting_and_resumes(ray_runtime: None, tmp_path: Path) -> None:
    cycle = _cycle(tmp_path / "h")
    home = str(cycle.home)
    expected = (single_axis_targets(cycle.spec) + 1) * (len(reference_bundles()) + 1) * 2
    args = ("run", "frozen", "--home", home, "--sandbox", "local", "--tasks", "2", "--k", "1")
    code, out = vwt(*args)
    assert code == 0, out
    assert f"{expected} trials planned: 0 already stored, {expected} run now" in out
    assert f"frozen: {expected} of {expected} trials recorded (0 missing, 0 unexpected)" in out
    assert "vwt cycle advance adaptation" in out
    assert len(store_for(cycle.home).records("frozen")) == expected
    code, out = vwt(*args)
    assert code == 0 and f"{expected} already stored, 0 run now" in out
    (entry, again) = cycle.ledger.entries("run.frozen")
    assert entry.payload["observed"] == again.payload["observed"] == expected


@pytest.mark.ray
def test_run_dev_prints_one_cell_and_reuses_the_baseline(ray_runtime: None, tmp_path: Path) -> None:
    bundle = tmp_path / "mine"
    assert vwt("submissions", "init", str(bundle), "--from", "typed-skill")[0] == 0
    dev = ("run", "dev", "--home", str(tmp_path / "dev"), "--sandbox", "local")
    size = ("--tasks", "2", "--k", "2")
    code, out = vwt(*dev, "--submission", str(bundle), *size)
    assert code == 0, out
    assert "typed-skill@1 vs the no-artifact baseline" in out and "support_ops/dev" in out
    for word in ("baseline", "gain", "95% CI", "critical / trials", "safe stops", "pass^k"):
        assert word in out
    assert "8 trials run now, 0 reused" in out

    manifest = json.loads((bundle / "vwt-bundle.json").read_text())
    (bundle / "vwt-bundle.json").write_text(json.dumps({**manifest, "version": "2"}))
    code, out = vwt(*dev, "--submission", str(bundle), *size)
    assert code == 0 and "typed-skill@2" in out and "4 trials run now, 4 reused" in out

    code, out = vwt(*dev, "--submission", str(bundle), *size, "--model", "sim/orbit-2")
    assert code == 0 and "model sim/orbit-2 (orbit)" in out and "8 trials run now" in out


def test_run_dev_refuses_bad_input_before_running(tmp_path: Path) -> None:
    dev = ("run", "dev", "--home", str(tmp_path / "dev"))
    code, out = vwt(*dev, "--submission", str(tmp_path / "absent"))
    assert code == 2 and "cannot read" in out
    code, out = vwt(*dev, "--submission", str(reference_dir("typed-skill")), "--model", "sim/x9")
    assert code == 2 and "x9" in out
    code, out = vwt(*dev, "--submission", str(reference_dir("typed-skill")), "--spec", "no.yaml")
    assert code == 2 and "cannot read cycle spec" in out
    code, out = vwt(*dev)
    assert code == 2 and "--submission" in out
    assert not (tmp_path / "dev").exists()


@pytest.mark.ray
def test_run_dev_with_a_spec_file(ray_runtime: None, tmp_path: Path) -> None:
    spec = small_spec("my-dev-cycle")
    path = tmp_path / "spec.json"
    path.write_text(spec.model_dump_json())
    source = str(reference_dir("no-artifacts"))
    home = tmp_path / "dev"
    code, out = vwt("run", "dev", "--submission", source, "--spec", str(path), "--home", str(home))
    assert code == 0, out
    assert (home / f"dev-my-dev-cycle-{spec.seed}.sqlite").is_file()
    n = spec.evaluation.tasks_per_split * spec.evaluation.k
    assert f"{2 * n} trials run now" in out
    assert load_bundle_dir(reference_dir("no-artifacts")).manifest.name in out


def test_adapted_phase_is_recorded_empty_while_nothing_adapts(tmp_path: Path) -> None:
    cycle = Cycle.init(tmp_path / "h", CycleSpec.load(default_cycle_spec_path()))
    cycle.generate(5)
    cycle.commit()
    for state in ("open", "frozen_run", "adaptation", "adapted_run"):
        cycle.transition(CycleState(state))
    code, out = vwt("run", "adapted", "--home", str(cycle.home))
    assert code == 0 and "0 of 0 trials recorded" in out, out
    entry = cycle.ledger.last("run.adapted")
    assert entry is not None and entry.payload["note"] == "no adapted bundles"
