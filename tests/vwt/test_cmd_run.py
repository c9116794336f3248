"""`vwt run`: frozen and adapted phases of a cycle, and a submitter's dev run, through the CLI."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from benchmark import VerifierResult, default_cycle_spec_path
from benchmark.sim import SimServer
from benchmark.support_ops import SupportOps
from conditions import ConditionsError, Cycle, CycleSpec, CycleState
from runner import TrialStore, phase_accounting, store_for, stream_batch
from runner._phase import adapted_bundles
from submissions import load_bundle_dir, reference_bundles, reference_dir, submit
from tests.reports.test_verify import (
    record_unchanged_adaptations,
    single_axis_runs,
    single_axis_targets,
    small_spec,
)
from tests.runner.test_execute import failing_first
from tests.runner.test_lock import held_by_another_process
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


def closed_cycle(home: Path, *, bundles: int | None = None) -> Cycle:
    """A small committed cycle, closed for submissions (state frozen_run), with the first
    ``bundles`` reference bundles submitted (all of them by default)."""
    spec = small_spec()
    cycle = Cycle.init(home, spec)
    cycle.generate(single_axis_targets(spec))
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open, override_window=True)
    for bundle in reference_bundles()[:bundles]:
        submit(cycle, bundle)
    cycle.transition(CycleState.frozen_run)
    return cycle


def test_run_needs_the_right_state_and_submissions(tmp_path: Path) -> None:
    cycle = closed_cycle(tmp_path / "h", bundles=0)
    code, out = vwt("run", "adapted", "--home", str(cycle.home))
    assert code == 2 and "cannot run the adapted evaluation" in out and "'frozen_run'" in out
    code, out = vwt("run", "frozen", "--home", str(cycle.home), "--sandbox", "local")
    assert code == 2 and "has no submissions" in out
    code, out = vwt("run", "frozen", "--home", str(tmp_path / "none"))
    assert code == 2 and "no release cycle" in out
    code, out = vwt("run", "frozen", "--home", str(cycle.home), "--sandbox", "kvm")
    assert code == 2 and "kvm" in out
    assert store_for(cycle.home).records() == []


def test_run_frozen_refuses_another_evaluation_size_naming_the_committed_one(
    tmp_path: Path,
) -> None:
    cycle = closed_cycle(tmp_path / "h")
    for size in (("--tasks", "3"), ("--k", "1"), ("--tasks", "2", "--k", "3")):
        code, out = vwt("run", "frozen", "--home", str(cycle.home), "--sandbox", "local", *size)
        assert code == 2, out
        assert "the evaluation size is fixed at commit: 2 tasks per split and k=2" in out
        assert "leave out --tasks and --k" in out
    code, out = vwt("run", "adapted", "--home", str(cycle.home), "--k", "5")
    assert code == 2 and "fixed at commit" in out
    assert store_for(cycle.home).attempts() == [] and cycle.ledger.last("run.frozen") is None


def test_a_second_run_on_the_same_home_is_refused_at_once(tmp_path: Path) -> None:
    cycle = closed_cycle(tmp_path / "h")
    with held_by_another_process(cycle.home) as other:
        code, out = vwt("run", "frozen", "--home", str(cycle.home), "--sandbox", "local")
        assert code == 2, out
        assert f"another vwt process (pid {other.pid}) is running on {cycle.home}" in out
        dev = tmp_path / "dev"
        dev.mkdir()
        with held_by_another_process(dev) as dev_other:
            code, out = vwt(
                "run", "dev", "--home", str(dev), "--submission", str(reference_dir("no-artifacts"))
            )
            assert code == 2 and f"another vwt process (pid {dev_other.pid})" in out
    assert cycle.ledger.last("run.frozen") is None


def test_run_dev_on_a_corrupt_store_is_a_clear_error(tmp_path: Path) -> None:
    home = tmp_path / "dev"
    spec = CycleSpec.load(default_cycle_spec_path())
    home.mkdir()
    (home / f"dev-{spec.cycle}-{spec.seed}.sqlite").write_bytes(b"\x00garbage" * 4096)
    code, out = vwt(
        "run", "dev", "--home", str(home), "--submission", str(reference_dir("no-artifacts"))
    )
    assert code == 2 and "is corrupt" in out and ".recover" in out, out
    assert "Traceback" not in out


@pytest.mark.ray
def test_run_frozen_prints_the_accounting_and_resumes_then_adapted_runs_what_changed(
    ray_runtime: None, tmp_path: Path
) -> None:
    cycle = closed_cycle(tmp_path / "h")
    home = str(cycle.home)
    expected = single_axis_runs(cycle.spec) * (len(reference_bundles()) + 1) * 2 * 2
    args = ("run", "frozen", "--home", home, "--sandbox", "local", "--tasks", "2", "--k", "2")
    code, out = vwt(*args)
    assert code == 0, out
    assert f"{expected} trials planned: 0 already stored, {expected} run now" in out
    assert (
        f"frozen: {expected} of {expected} trials recorded ({expected} valid, 0 invalid, "
        "0 missing, 0 unexpected)"
    ) in out
    assert "vwt cycle advance adaptation" in out
    assert len(store_for(cycle.home).records("frozen")) == expected
    code, out = vwt(*args[:-4], "--json")
    assert code == 0, out
    shown = json.loads(out)
    assert shown["cycle"] == cycle.id and shown["phase"] == "frozen"
    assert shown["execution"]["already_stored"] == expected and shown["execution"]["ran"] == 0
    accounting = shown["accounting"]
    assert accounting["complete"] is accounting["clean"] is True
    assert (accounting["expected"], accounting["valid"], accounting["invalid"]) == (
        expected,
        expected,
        0,
    )
    conditions = [cid for cid, _ in cycle.evaluation_conditions()]
    assert len(accounting["cells"]) == len(conditions) * (len(reference_bundles()) + 1)
    assert {c["condition_id"] for c in accounting["cells"]} == set(conditions)
    families = {cid: len(c.task_family.families) for cid, c in cycle.evaluation_conditions()}
    assert all(
        c["planned"] == c["valid"] == 4 * families[c["condition_id"]] for c in accounting["cells"]
    )
    assert accounting == phase_accounting(cycle, "frozen").as_json()
    (entry, again) = cycle.ledger.entries("run.frozen")
    assert entry.payload["observed"] == again.payload["observed"] == expected
    assert again.payload["clean"] is True and again.payload["ran"] == 0

    cycle.transition(CycleState.adaptation)
    assert vwt("adapt", "--home", home, "--sandbox", "local")[0] == 0
    cycle.transition(CycleState.adapted_run)
    code, out = vwt("run", "adapted", "--home", home, "--sandbox", "local")
    assert code == 0, out
    changed = adapted_bundles(cycle)
    where = dict(cycle.evaluation_conditions())
    planned = sum(len(where[t].task_family.families) * 2 * 2 for t, _ in changed)
    assert changed and f"adapted: {planned} of {planned} trials recorded" in out, out
    adapted = cycle.ledger.last("run.adapted")
    assert adapted is not None and adapted.payload["complete"] is True
    pairs = len(reference_bundles()) * len(cycle.targets())
    assert adapted.payload["adaptations"] == pairs > len(changed)
    assert adapted.payload["adapted_bundles"] == len({b.hash for _, b in changed})
    records = store_for(cycle.home).records("adapted")
    assert len(records) == planned and {r.arm for r in records} == {"with"}
    # only the bundles that changed run, in the target they were adapted to, on the frozen
    # run's tasks and seeds
    assert {(r.condition_id, r.bundle_hash) for r in records} == {(t, b.hash) for t, b in changed}
    frozen = {
        (r.condition_id, r.submission, r.task_id, r.trial): r.seed
        for r in store_for(cycle.home).records("frozen")
    }
    assert all(
        frozen[(r.condition_id, r.submission, r.task_id, r.trial)] == r.seed for r in records
    )


@pytest.mark.ray
def test_run_frozen_with_trials_still_invalid_names_the_reason_and_blocks_the_advance(
    ray_runtime: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setattr("runner._execute.stream_batch", failing_first(marks, times=99))
    cycle = closed_cycle(tmp_path / "h", bundles=2)
    home = str(cycle.home)
    code, out = vwt("run", "frozen", "--home", home, "--sandbox", "local", "--max-attempts", "2")
    assert code == 2, out
    half = len(store_for(cycle.home).records("frozen")) // 2
    assert f"{half} of {2 * half} frozen trials are still invalid after 2 attempts each" in out
    assert "first: " in out and "model: Timeout: injected (2)" in out
    assert f"vwt cycle advance adaptation --home {home} --accept-invalid" in out
    entry = cycle.ledger.last("run.frozen")
    assert entry is not None and entry.payload["invalid"] == half
    assert entry.payload["complete"] is True and entry.payload["clean"] is False
    assert "injected (2)" in entry.payload["first_invalid"]
    assert len(store_for(cycle.home).attempts("frozen")) == 3 * half  # 2 tries of the invalid
    with pytest.raises(ConditionsError, match="invalid"):
        cycle.transition(CycleState.adaptation)

    monkeypatch.setattr("runner._execute.stream_batch", stream_batch)  # the cause is fixed
    code, out = vwt("run", "frozen", "--home", home, "--sandbox", "local", "--json")
    assert code == 0, out
    shown = json.loads(out)
    assert (shown["execution"]["ran"], shown["execution"]["already_stored"]) == (half, half)
    assert shown["accounting"]["clean"] is True
    cycle.transition(CycleState.adaptation)


@pytest.mark.ray
def test_run_dev_prints_one_cell_and_reuses_the_baseline(ray_runtime: None, tmp_path: Path) -> None:
    bundle = tmp_path / "mine"
    assert vwt("submissions", "init", str(bundle), "--from", "typed-skill")[0] == 0
    dev = ("run", "dev", "--home", str(tmp_path / "dev"), "--sandbox", "local")
    size = ("--tasks", "2", "--k", "2")
    code, out = vwt(*dev, "--submission", str(bundle), *size)
    assert code == 0, out
    assert "typed-skill@1 vs the no-artifact baseline" in out and "support_ops/dev" in out
    # the interval names its method (not "95% CI, 10000 resamples", whatever it was)
    assert "95% t over tasks, 1 df" in out and "resamples" not in out
    for word in ("baseline", "gain", "critical / trials", "safe stops", "pass^k", "detects"):
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


_ARM_KEYS = {"score", "trials", "valid", "invalid", "critical", "safe_stop", "pass_hat_k"}


@pytest.mark.ray
def test_run_dev_json_is_one_documented_object(ray_runtime: None, tmp_path: Path) -> None:
    home = tmp_path / "dev"
    skill = reference_dir("typed-skill")
    args = ("run", "dev", "--home", str(home), "--sandbox", "local", "--submission", str(skill))
    result = runner.invoke(app, [*args, "--tasks", "2", "--k", "2", "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)  # nothing but the object on stdout
    assert set(shown) == {
        "submission",
        "bundle_hash",
        "condition_id",
        "model",
        "tasks",
        "k",
        "store",
        "with",
        "without",
        "gain",
        "interval",
        "confidence",
        "interval_method",
        "interval_method_text",
        "gain_se",
        "mde",
        "p_negative",
        "execution",
        "accounting",
    }
    assert shown["submission"] == "typed-skill@1" and (shown["tasks"], shown["k"]) == (2, 2)
    assert set(shown["with"]) == set(shown["without"]) == _ARM_KEYS
    for arm in ("with", "without"):
        assert shown[arm]["trials"] == 4 == shown[arm]["valid"] + shown[arm]["invalid"]
    lo, hi = shown["interval"]
    assert lo <= shown["gain"] <= hi and 0 <= shown["p_negative"] <= 1
    assert shown["interval_method"] == "t" and shown["interval_method_text"].startswith("95% t")
    assert shown["gain"] == pytest.approx(shown["with"]["score"] - shown["without"]["score"])
    assert shown["accounting"]["clean"] is True and shown["execution"]["ran"] == 8
    assert Path(shown["store"]).parent == home


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_run_dev_with_the_model_server_down_then_up_reruns_exactly_the_invalid_trials(
    tmp_path: Path,
) -> None:
    """The real path: `vwt run dev` in its own process (its own Ray) against the sim models over
    HTTP, the way a user points an OpenAI-compatible model at a server."""
    port = _free_port()
    env = {
        **os.environ,
        "OPENAI_API_BASE": f"http://127.0.0.1:{port}/v1",
        "OPENAI_API_KEY": "sim",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    env.pop("OPENAI_BASE_URL", None)  # it would win over OPENAI_API_BASE
    home = tmp_path / "dev"

    def dev(k: int) -> tuple[int, dict[str, Any] | None, str]:
        args = ["run", "dev", "--json", "--sandbox", "local", "--home", str(home)]
        args += ["--submission", str(reference_dir("typed-skill")), "--model", "openai/acme-2"]
        done = subprocess.run(
            [sys.executable, "-m", "vwt", *args, "--tasks", "2", "--k", str(k)],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        return done.returncode, json.loads(done.stdout) if done.stdout else None, done.stderr

    with SimServer(port=port):
        code, first, err = dev(1)
    assert code == 0 and first is not None, err
    assert first["accounting"]["valid"] == 4

    code, down, err = dev(2)  # the server is down: the 4 new trials fail, the 4 old are reused
    assert code == 2 and down is not None, err
    assert "error: 4 of 8 dev trials are still invalid after 3 attempts each; first:" in err
    assert "openai/acme-2" in err and "Connection" in err and "run the same command again" in err
    assert (down["execution"]["already_stored"], down["execution"]["ran"]) == (4, 12)
    assert (down["with"]["invalid"], down["without"]["invalid"]) == (2, 2)
    store = TrialStore(Path(down["store"]))
    invalid = {r.key for r in store.records("dev") if r.outcome == "invalid"}
    assert len(invalid) == 4

    with SimServer(port=port) as server:
        code, up, err = dev(2)
    assert code == 0 and up is not None, err
    assert (up["execution"]["already_stored"], up["execution"]["ran"]) == (4, 4)
    assert up["execution"]["retried"] == 4 and server.stats.answered > 0
    assert up["accounting"]["invalid"] == 0 and up["accounting"]["clean"] is True
    assert up["with"]["invalid"] == up["without"]["invalid"] == 0
    assert up["with"]["valid"] == up["without"]["valid"] == 4
    history = store.attempts("dev")
    rerun = {r.key for r in history if r.attempt == 4 and r.outcome != "invalid"}
    assert rerun == invalid  # exactly the invalid trials ran, each as its 4th attempt
    assert len(history) == 4 + 4 * 4


def _stored_rows(home: Path) -> int:
    with sqlite3.connect(home / "vwt.sqlite", timeout=30) as db:
        try:
            return int(db.execute("SELECT COUNT(*) FROM trials").fetchone()[0])
        except sqlite3.OperationalError:  # the runner has not created its table yet
            return 0


@pytest.mark.slow
@pytest.mark.ray
def test_a_driver_killed_mid_run_cannot_be_advanced_and_a_resume_completes_it(
    ray_runtime: None, tmp_path: Path
) -> None:
    cycle = closed_cycle(tmp_path / "h", bundles=2)
    home = str(cycle.home)
    driver = subprocess.Popen(
        [sys.executable, "-m", "vwt", "run", "frozen", "--home", home, "--sandbox", "local"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while _stored_rows(cycle.home) == 0 and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        os.killpg(driver.pid, signal.SIGKILL)
        driver.wait()
    planned = phase_accounting(cycle, "frozen").expected
    stored = _stored_rows(cycle.home)
    assert 0 < stored < planned, "the driver must die mid-run"

    code, out = vwt("cycle", "advance", "adaptation", "--home", home)
    assert code == 2 and "run frozen" in out
    code, out = vwt("cycle", "advance", "adaptation", "--home", home, "--accept-invalid")
    assert code == 2, "missing trials can never be accepted"
    assert Cycle.open(cycle.home).state is CycleState.frozen_run

    code, out = vwt("run", "frozen", "--home", home, "--sandbox", "local", "--json")
    assert code == 0, out
    result = json.loads(out)
    assert result["execution"]["already_stored"] == stored
    assert result["accounting"]["valid"] == planned and result["accounting"]["clean"]
    assert _stored_rows(cycle.home) == planned  # nothing ran twice
    code, out = vwt("cycle", "advance", "adaptation", "--home", home)
    assert code == 0, out


def _to_adapted_run(cycle: Cycle) -> None:
    """On to state adapted_run, with a stand-in (empty) record of the frozen run and every
    submission recorded as adapted to itself."""
    counts = dict.fromkeys(("expected", "valid", "invalid", "missing", "unexpected"), 0)
    cycle.ledger.append("run.frozen", counts)
    cycle.transition(CycleState.adaptation)
    record_unchanged_adaptations(cycle)
    cycle.transition(CycleState.adapted_run)


def test_run_refuses_to_start_while_a_verifier_fails_the_red_team_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cycle = closed_cycle(tmp_path / "h")
    monkeypatch.setattr(
        SupportOps, "verify", lambda self, task, end_state: VerifierResult(passed=True)
    )
    files = sorted(p.name for p in cycle.home.iterdir())
    ledger = len(cycle.ledger.entries())
    code, out = vwt("run", "frozen", "--home", str(cycle.home), "--sandbox", "local")
    assert code == 2, out
    assert "the frozen evaluation is refused: the verifier red-team gate fails: support_ops " in out
    assert "planted answer 'wrong amount' passes the verifier" in out
    assert "vwt families redteam" in out
    # no trial ran, nothing was written
    assert sorted(p.name for p in cycle.home.iterdir()) == files
    assert len(cycle.ledger.entries()) == ledger
    assert store_for(cycle.home).attempts() == []
    # the adapted phase is refused the same way
    _to_adapted_run(cycle)
    code, out = vwt("run", "adapted", "--home", str(cycle.home))
    assert code == 2 and "the adapted evaluation is refused: the verifier red-team gate" in out
    assert cycle.ledger.last("run.adapted") is None


def test_a_run_records_the_gate_it_passed(tmp_path: Path) -> None:
    cycle = closed_cycle(tmp_path / "h", bundles=0)
    _to_adapted_run(cycle)
    code, out = vwt("run", "adapted", "--home", str(cycle.home))
    assert code == 0, out
    entry = cycle.ledger.last("run.adapted")
    assert entry is not None
    gate = entry.payload["redteam"]
    assert gate["passed"] and gate["tasks_per_split"] == 20
    assert sorted(f["family"] for f in gate["families"]) == [
        "reconciliation",
        "research_evidence",
        "support_ops",
    ]
