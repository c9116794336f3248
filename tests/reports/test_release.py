"""Building a release: refused while trials are missing or invalid, and what it records."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

import submissions._store
from benchmark import BenchmarkError, VerifierResult
from benchmark.support_ops import SupportOps
from conditions import Cycle, CycleSpec, CycleState, verify_commitment_and_reveal
from reports import (
    ARTIFACTS_DIR,
    INTERFACES_DIR,
    RELEASE_FILE,
    TRACES_DIR,
    TRIALS_FILE,
    ReportError,
    build_release,
    read_release,
    render_release,
    verify_release,
)
from runner import PIN_FIELD, latest, phase_accounting, store_for
from runner._pin import pin_records
from submissions import read_bundle_file, reference_bundles, submit
from tests._shared import built_once
from tests.reports.test_verify import (
    Json,
    adapt_and_run,
    revealed_cycle,
    run_frozen_in_process,
    shared_revealed_cycle,
    single_axis_runs,
    single_axis_targets,
    small_spec,
)
from vwt.cli import app


def _copy(home: Path, to: Path) -> Cycle:
    return Cycle.open(Path(shutil.copytree(home, to)))


def _rendered(path: Path, detail: bool = False) -> str:
    console = Console(width=250, record=True)
    render_release(read_release(path).release, console, detail=detail)
    return console.export_text()


@pytest.fixture(scope="module")
def clean_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A revealed cycle whose every planned trial is valid (not yet released)."""
    return shared_revealed_cycle(tmp_path_factory, "clean").home


FIRST = reference_bundles()[0].manifest


def _invalid(source_id: str) -> Callable[[Json], bool]:
    """Which trials time out: one baseline trial in the source (every source cell loses one
    trial, no task) and both trials of task 1 of the first submission in every target (its
    target cells drop that task)."""

    def pick(r: Json) -> bool:
        if r["condition_id"] == source_id:
            return r["arm"] == "without" and (r["task_index"], r["trial"]) == (0, 0)
        return r["submission"] == f"{FIRST.name}@{FIRST.version}" and r["task_index"] == 1

    return pick


def invalid_trials(spec: CycleSpec) -> int:
    """How many frozen trials ``_invalid`` makes invalid in a cycle of ``spec``: one source
    baseline trial, and two trials in each target family run."""
    return 1 + 2 * (single_axis_runs(spec) - 1)


def shared_invalid_cycle(factory: pytest.TempPathFactory, name: str) -> Cycle:
    """A copy, in a home of its own (``name``), of a revealed cycle with some trials invalid
    after their attempts (``_invalid``, accepted so far): built once per test session."""
    template = built_once(
        factory,
        "revealed-invalid",
        lambda d: revealed_cycle(d / "home", invalid=_invalid(small_spec().source.id)).home,
    )
    return _copy(template, factory.mktemp(name) / "home")


@pytest.fixture(scope="module")
def invalid_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """See shared_invalid_cycle."""
    return shared_invalid_cycle(tmp_path_factory, "invalid").home


def test_a_clean_release_records_its_evaluation_and_summary(
    clean_home: Path, tmp_path: Path
) -> None:
    cycle = _copy(clean_home, tmp_path / "home")
    path = build_release(cycle)
    r = read_release(path).release
    spec = cycle.spec.evaluation
    assert (r.evaluation.tasks_per_split, r.evaluation.k) == (spec.tasks_per_split, spec.k)
    assert not r.accepted_invalid and r.window_overrides == ()
    frozen, adapted = r.accounting
    arms = (single_axis_targets(cycle.spec) + 1) * (len(reference_bundles()) + 1)
    n_adapted = len(store_for(cycle.home).records("adapted"))
    assert (frozen.phase, frozen.expected, frozen.valid, frozen.invalid) == (
        "frozen",
        r.n_trials - n_adapted,
        r.n_trials - n_adapted,
        0,
    )
    assert len(frozen.cells) == arms
    families = {c.id: len(c.condition.task_family.families) for c in r.conditions}
    assert all(c.planned == 4 * families[c.condition_id] for c in frozen.cells)
    assert set(families.values()) == {1, 3}  # the default catalogue has a set of 3 families
    # the adapted phase runs each adaptation that changed its bundle, without a baseline arm
    changed = {(a.target, a.adapted) for a in r.adaptations if not a.reused}
    assert (adapted.phase, adapted.expected, adapted.valid) == ("adapted", n_adapted, n_adapted)
    assert {(c.condition_id, c.bundle_hash) for c in adapted.cells} == changed
    assert {c.arm for c in adapted.cells} == {"with"}
    assert r.sandboxes == {"local": r.n_trials}
    assert {(c.invalid_trials, c.dropped_tasks) for c in r.cells} == {(0, 0)}
    assert not any(s.late for s in r.submissions)
    # released ids: the source's public id, the targets' keyed ids from the revealed leaves
    revealed = verify_commitment_and_reveal(cycle.paths.commitment, cycle.paths.reveal)
    assert r.conditions[0].id == cycle.source.id
    assert {c.id for c in r.conditions[1:]} == {c.id for c in revealed.conditions}
    out = _rendered(path)
    assert f"warning: {r.n_trials} trials ran in the 'local' sandbox" in out
    assert "ACCEPTED INVALID" not in out
    n_frozen = r.n_trials - n_adapted
    assert f"frozen {n_frozen} of {n_frozen} planned trials" in out
    assert f"adapted {n_adapted} of {n_adapted} planned trials" in out


def test_a_spec_changed_from_the_committed_size_is_not_released(
    clean_home: Path, tmp_path: Path
) -> None:
    cycle = _copy(clean_home, tmp_path / "home")
    record = json.loads(cycle.paths.record.read_text())
    record["spec"]["evaluation"].update(tasks_per_split=1, k=1)
    cycle.paths.record.write_text(json.dumps(record))
    cycle = Cycle.open(cycle.home)
    with pytest.raises(ReportError) as e:
        build_release(cycle)
    assert str(e.value) == (
        f"cycle {cycle.id}'s spec sets the evaluation size to tasks_per_split 1, k 1, but the "
        "commitment fixed tasks_per_split 2, k 2"
    )
    assert str(cycle.paths.record) in (e.value.hint or "")
    assert not (cycle.paths.public / RELEASE_FILE).exists()
    assert Cycle.open(cycle.home).state == CycleState.revealed


def _delete_trials(cycle: Cycle, keep: float) -> int:
    """Drop all but the first ``keep`` share of frozen trial keys from the store, as a driver
    killed mid-run leaves it, and record that run (its accounting and pin) as a run that
    stopped there does; returns how many keys remain."""
    db = sqlite3.connect(cycle.home / "vwt.sqlite")
    with db:
        query = "SELECT DISTINCT key FROM trials WHERE phase = 'frozen' ORDER BY key"
        keys = [k for (k,) in db.execute(query)]
        gone = keys[int(len(keys) * keep) :]
        db.executemany("DELETE FROM trials WHERE key = ?", [(k,) for k in gone])
    db.close()
    rows = store_for(cycle.home).rows("frozen")  # what is left, as a run stopped here pins it
    pin = pin_records(rows, max(r.seq or 0 for r in rows))
    accounting = phase_accounting(cycle, "frozen", latest(rows)).as_json()
    cycle.ledger.append("run.frozen", accounting | {PIN_FIELD: pin.model_dump(mode="json")})
    return len(keys) - len(gone)


@pytest.mark.parametrize("accept_invalid", [False, True])
def test_a_killed_run_is_never_released(
    clean_home: Path, tmp_path: Path, accept_invalid: bool
) -> None:
    cycle = _copy(clean_home, tmp_path / "home")
    planned = len(read_store_keys(cycle, "frozen"))
    kept = _delete_trials(cycle, 304 / 1120)
    with pytest.raises(ReportError) as e:
        build_release(cycle, accept_invalid=accept_invalid)
    assert str(e.value) == (
        f"cannot build the release: the frozen phase is incomplete: {planned - kept} of "
        f"{planned} planned trials missing ({kept} valid, 0 invalid)"
    )
    assert f"`vwt run frozen --home {cycle.home}`" in (e.value.hint or "")
    assert "missing trials cannot be accepted" in (e.value.hint or "")
    assert not (cycle.paths.public / RELEASE_FILE).exists()
    assert not (cycle.paths.public / TRIALS_FILE).exists()
    assert Cycle.open(cycle.home).state == CycleState.revealed


def read_store_keys(cycle: Cycle, phase: str) -> set[str]:
    """Distinct trial keys of ``phase`` in the store."""
    db = sqlite3.connect(cycle.home / "vwt.sqlite")
    try:
        return {k for (k,) in db.execute("SELECT key FROM trials WHERE phase = ?", (phase,))}
    finally:
        db.close()


def test_invalid_trials_are_refused_unless_accepted_then_shown_per_cell(
    invalid_home: Path, tmp_path: Path
) -> None:
    cycle = _copy(invalid_home, tmp_path / "home")
    targets = single_axis_runs(cycle.spec) - 1  # target family runs
    n_invalid = invalid_trials(cycle.spec)
    with pytest.raises(ReportError) as e:
        build_release(cycle)
    assert f"{n_invalid} of " in str(e.value) and "frozen trials are invalid" in str(e.value)
    hint = e.value.hint or ""
    assert f"vwt run frozen --home {cycle.home}" in hint and "retries invalid" in hint
    assert "vwt report build --accept-invalid" in hint
    assert not (cycle.paths.public / RELEASE_FILE).exists()

    path = build_release(cycle, accept_invalid=True)
    r = read_release(path).release
    assert r.accepted_invalid and r.accounting[0].invalid == n_invalid
    source = r.conditions[0].id
    first = next(s.bundle_hash for s in r.submissions if s.name == FIRST.name)
    families = {c.id: len(c.condition.task_family.families) for c in r.conditions}
    for c in r.cells:
        n = families[c.condition_id]
        if c.condition_id == source:
            assert (c.invalid_trials, c.dropped_tasks) == (1, 0)
        elif c.bundle_hash == first:
            assert (c.invalid_trials, c.dropped_tasks) == (2 * n, n)
            assert c.metrics.n_tasks == (cycle.spec.evaluation.tasks_per_split - 1) * n
        else:
            assert (c.invalid_trials, c.dropped_tasks) == (0, 0)
    # the first submission (no artifacts) is not changed by adapting: its adapted cells reuse
    # the frozen trials, invalid ones and dropped tasks included
    v = verify_release(path)
    assert (v.accepted_invalid, v.invalid_trials) == (True, n_invalid)
    assert v.dropped_tasks == 2 * targets
    out = _rendered(path, detail=True)
    assert f"ACCEPTED INVALID: {n_invalid} invalid trials" in out
    assert "invalid 2" in out and "dropped 1" in out and "invalid 1" in out
    assert "i = infrastructure-invalid trials accepted" in " ".join(_rendered(path).split())


class _Later(datetime):
    """A clock past every window of the test cycles."""

    @classmethod
    def now(cls, tz: object = None) -> _Later:
        return cls(3000, 1, 1, tzinfo=UTC)


def test_window_overrides_and_late_submissions_are_released(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = small_spec(opens_at="2998-01-01T00:00:00Z", closes_at="2999-01-01T00:00:00Z")
    cycle = Cycle.init(tmp_path / "home", spec)
    cycle.generate(single_axis_targets(spec))
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open, "early, for the test", override_window=True)
    *on_time, late = reference_bundles()
    for bundle in on_time:
        submit(cycle, bundle)
    with monkeypatch.context() as m:
        m.setattr(submissions._store, "datetime", _Later)
        submit(cycle, late, late=True)
    cycle.transition(CycleState.frozen_run)
    run_frozen_in_process(cycle)
    cycle.transition(CycleState.adaptation)
    adapt_and_run(cycle)
    cycle.reveal()
    path = build_release(cycle)
    r = read_release(path).release
    (override,) = r.window_overrides
    assert (override.transition, override.override) == ("committed -> open", "opens_at")
    assert override.note == "early, for the test"
    assert [s.late for s in r.submissions] == [False] * len(on_time) + [True]
    out = _rendered(path)
    assert "window override: committed -> open" in out and "despite opens_at" in out
    name = f"{late.manifest.name}@{late.manifest.version}"
    assert f"late submissions (after closes_at): {name}" in out
    v = verify_release(path)
    assert (v.window_overrides, v.late_submissions) == ((override,), 1)


def test_the_release_records_the_red_team_gate_and_is_refused_while_it_fails(
    clean_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cycle = _copy(clean_home, tmp_path / "home")
    with monkeypatch.context() as m:
        m.setattr(SupportOps, "verify", lambda self, task, end_state: VerifierResult(passed=True))
        with pytest.raises(BenchmarkError, match="the release is refused: the verifier red-team"):
            build_release(cycle)
    assert not (cycle.paths.public / RELEASE_FILE).exists()
    r = read_release(build_release(cycle)).release
    assert r.v == 8 and r.redteam.passed and r.redteam.tasks_per_split == 20
    assert {c.metrics.v for c in r.cells} == {5}
    families = {f.family: f for f in r.redteam.families}
    roles = cycle.spec.family_roles
    assert set(families) == {*roles.development, *roles.held_out}
    assert {"support_ops", "reconciliation", "research_evidence"} <= set(families)
    fam = families["support_ops"]
    assert (fam.family, fam.tasks, fam.failures) == ("support_ops", 60, ())
    assert fam.planted > 0 and len(fam.names) >= 8
    assert verify_release(cycle.paths.public).cells == len(r.cells)


def _vwt(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


def test_a_release_publishes_every_trace_bundle_and_interface(
    clean_home: Path, tmp_path: Path
) -> None:
    cycle = _copy(clean_home, tmp_path / "home")
    r = read_release(build_release(cycle)).release
    public = cycle.paths.public
    records = [json.loads(x) for x in (public / TRIALS_FILE).read_text().splitlines()]
    store = store_for(cycle.home)
    shas = {x["trace_sha256"] for x in records}
    assert len(shas) == len(list((public / TRACES_DIR).iterdir()))
    for sha in shas:
        packed = (public / TRACES_DIR / f"{sha}.json.gz").read_bytes()
        assert packed[4:8] == b"\0\0\0\0"  # no time stamp: the same trace, the same file
        assert gzip.decompress(packed) == store.trace(sha)
        assert hashlib.sha256(gzip.decompress(packed)).hexdigest() == sha
    # every bundle a trial used, submitted or adapted, as its canonical JSON
    used = {x["bundle_hash"] for x in records if x["bundle_hash"]}
    assert {b.hash for b in reference_bundles()} <= used
    assert [a.name for a in r.artifacts] == [f"{ARTIFACTS_DIR}/{h}.json" for h in sorted(used)]
    for a in r.artifacts:
        data = (public / a.name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == a.sha256 == Path(a.name).stem
        assert read_bundle_file(public / a.name).hash == a.sha256
    # every served interface as a version file that `vwt drift` reads as it is
    assert [f.name for f in r.interface_files] == [
        f"{INTERFACES_DIR}/{v.id}.json" for v in sorted(r.interfaces, key=lambda v: v.id)
    ]
    changed = next(v for v in r.interfaces if v.changing())
    base = next(v for v in r.interfaces if v.env == changed.env and not v.ops)
    code, out = _vwt("drift", "show", str(public / INTERFACES_DIR / f"{changed.id}.json"))
    assert code == 0 and changed.id in out and f"parent {base.id}" in out, out
    code, out = _vwt(
        "drift",
        "diff",
        str(public / INTERFACES_DIR / f"{base.id}.json"),
        str(public / INTERFACES_DIR / f"{changed.id}.json"),
    )
    assert code == 0 and "overall changing" in out, out
    assert verify_release(public).interface_files == len(r.interfaces)


def test_a_release_is_not_built_while_a_trace_is_missing_from_the_store(
    clean_home: Path, tmp_path: Path
) -> None:
    cycle = _copy(clean_home, tmp_path / "home")
    store = store_for(cycle.home)
    sha = store.records("frozen")[0].trace_sha256
    with sqlite3.connect(store.path) as db:
        db.execute("DELETE FROM traces WHERE sha256 = ?", (sha,))
    with pytest.raises(ReportError, match=f"the store has no trace {sha[:16]}… for trial"):
        build_release(cycle)
    assert sorted(p.name for p in cycle.paths.public.iterdir()) == [
        cycle.paths.commitment.name,
        cycle.paths.reveal.name,
    ]
