"""Release verification from the published files alone, and what each kind of tampering trips."""

from __future__ import annotations

import asyncio
import base64
import gzip
import hashlib
import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from rich.console import Console

import reports._verify
from adapt import adapt_cycle
from benchmark import default_cycle_spec_path
from conditions import ADAPTATION_EVENT, Condition, Cycle, CycleSpec, CycleState, plan_targets
from reports import (
    RELEASE_FILE,
    TRIALS_FILE,
    ReleasedAdaptation,
    ReleaseStatement,
    ReportError,
    build_release,
    read_release,
    render_release,
    verify_release,
)
from reports._cell import CellVersion
from reports._matrix import build_matrix
from reports._published import FileRef, published_noise_checks
from reports._release import burned_names
from reports._traces import compress_trace, trace_name
from runner import (
    PIN_FIELD,
    TrialRecord,
    cycle_store,
    evaluation_conditions,
    phase_accounting,
    pin_phase,
    plan_phase,
    store_for,
    trial_key,
)
from runner._phase import adapted_bundles
from runner._worker import Row, run_batch_async, unpack_call_blobs
from submissions import reference_bundles, submit, submitted_bundles
from tests._shared import built_once

Json = dict[str, Any]


def small_spec(
    cycle: str | None = None,
    *,
    opens_at: str = "2000-01-01T00:00:00Z",
    closes_at: str = "2999-01-01T00:00:00Z",
) -> CycleSpec:
    """The embedded default at test size (2 tasks, k = 2, adaptation samples of 2 tasks), open
    now."""
    data = CycleSpec.load(default_cycle_spec_path()).model_dump(mode="json")
    data["evaluation"].update(tasks_per_split=2, k=2)
    data["adaptation"].update(sample_tasks=2)
    data["cycle"] = cycle or data["cycle"]
    data.update(opens_at=opens_at, closes_at=closes_at)
    return CycleSpec.model_validate(data)


def single_axis_targets(spec: CycleSpec) -> int:
    """How many targets vary one axis: the fewest a cycle may commit to."""
    return sum(n for stratum, n in plan_targets(spec).manifest.strata.items() if "+" not in stratum)


def single_axis_runs(spec: CycleSpec) -> int:
    """Family runs of the source and the single-axis targets: a condition over a family set
    runs every family in it, so it counts once per family."""
    singles = [t.condition for t in plan_targets(spec).targets if len(t.varied) == 1]
    return sum(len(c.task_family.families) for c in [spec.source, *singles])


def as_invalid(record_json: str) -> str:
    """The record of a trial whose backend timed out instead."""
    record = json.loads(record_json)
    record.update(outcome="invalid", invalid="TimeoutError: backend", critical=[], safe_stop=None)
    return json.dumps(record)


def record_run(cycle: Cycle, phase: str) -> None:
    """Append the ``run.<phase>`` ledger entry a real run appends: the phase's accounting and
    the pin of its records."""
    acc = phase_accounting(cycle, phase)
    payload = {**acc.model_dump(mode="json"), "complete": acc.complete, "clean": acc.clean}
    pin = pin_phase(cycle, phase)[1].model_dump(mode="json")
    cycle.ledger.append(f"run.{phase}", payload | {PIN_FIELD: pin})


def run_in_process(
    cycle: Cycle, phase: str = "frozen", invalid: Callable[[Json], bool] = lambda r: False
) -> None:
    """Run a phase in this process (local sandbox) and record it in the ledger.

    The same records as on Ray, without Ray; trials for which ``invalid(record)`` holds are
    stored as invalid instead. The adapted phase runs the adapted bundles that changed, in
    their targets, without a baseline arm (as `vwt run adapted` plans it).
    """
    size = cycle.spec.evaluation
    conditions = evaluation_conditions(cycle)
    plans = (
        [(conditions, submitted_bundles(cycle), True)]
        if phase == "frozen"
        else [([(t, dict(conditions)[t])], [bundle], False) for t, bundle in adapted_bundles(cycle)]
    )
    batches = [
        b
        for where, bundles, baseline in plans
        for b in plan_phase(
            cycle=cycle.id,
            cycle_seed=cycle.spec.seed,
            phase=phase,  # type: ignore[arg-type]
            conditions=where,
            bundles=bundles,
            tasks_per_split=size.tasks_per_split,
            k=size.k,
            interfaces=cycle.spec.interfaces,
            baseline=baseline,
        )
    ]

    async def run_all() -> list[list[Row]]:
        return await asyncio.gather(*(run_batch_async(b, "local", 4) for b in batches))

    rows = [row for batch in asyncio.run(run_all()) for row in batch]
    blobs = {k: v for row in rows for k, v in unpack_call_blobs(row.calls).items()}
    rows = [
        r._replace(record=as_invalid(r.record)) if invalid(json.loads(r.record)) else r
        for r in rows
    ]
    cycle_store(cycle).insert(
        ((TrialRecord.model_validate_json(r.record), r.trace) for r in rows), blobs=blobs
    )
    record_run(cycle, phase)


def run_frozen_in_process(cycle: Cycle, invalid: Callable[[Json], bool] = lambda r: False) -> None:
    """``run_in_process`` of the frozen phase."""
    run_in_process(cycle, "frozen", invalid)


def adapt_and_run(cycle: Cycle, invalid: Callable[[Json], bool] = lambda r: False) -> None:
    """From state adaptation: adapt every submission to every target (local sandbox), move to
    adapted_run and run the adapted phase in this process."""
    adapt_cycle(cycle, sandbox="local")
    cycle.transition(CycleState.adapted_run)
    run_in_process(cycle, "adapted", invalid)


def record_unchanged_adaptations(cycle: Cycle) -> None:
    """Stand-in adaptations: every submission × target recorded as adapted to itself."""
    for bundle in submitted_bundles(cycle):
        for target in cycle.targets():
            payload = {"parent": bundle.hash, "target": target.id, "adapted": bundle.hash}
            cycle.ledger.append(ADAPTATION_EVENT, payload)


def revealed_cycle(
    home: Path,
    *,
    key_path: Path | None = None,
    cycle_id: str | None = None,
    run: bool = True,
    invalid: Callable[[Json], bool] = lambda r: False,
) -> Cycle:
    """A small cycle with the reference submissions run frozen (if ``run``), fully revealed.

    Trials for which ``invalid(record)`` holds are stored invalid, accepted at every step.
    """
    spec = small_spec(cycle_id)
    cycle = Cycle.init(home, spec, key_path=key_path)
    cycle.generate(single_axis_targets(spec))
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open)
    for bundle in reference_bundles():
        submit(cycle, bundle)
    cycle.transition(CycleState.frozen_run)
    if run:
        run_frozen_in_process(cycle, invalid)
    else:  # only its reveal is used: a stand-in run record lets the cycle be revealed
        counts = dict.fromkeys(("expected", "valid", "invalid", "missing", "unexpected"), 0)
        cycle.ledger.append("run.frozen", counts)
    cycle.transition(CycleState.adaptation, accept_invalid=True)
    if run:
        adapt_and_run(cycle, invalid)
    else:
        record_unchanged_adaptations(cycle)
        cycle.transition(CycleState.adapted_run)
        record_run(cycle, "adapted")
    cycle.reveal(accept_invalid=True)
    return cycle


def shared_revealed_cycle(factory: pytest.TempPathFactory, name: str) -> Cycle:
    """A copy of ``revealed_cycle`` with its defaults, in a new home of its own (``name``):
    the cycle is built once per test session (``built_once``) and copied for each caller,
    which may change its copy freely. Building it is most of the cost of the modules that use
    one."""
    template = built_once(factory, "revealed", lambda d: revealed_cycle(d / "home").home)
    home = factory.mktemp(name) / "home"
    # nothing writes to the template again: its store and WAL, copied together, are whole
    shutil.copytree(template, home, symlinks=True)
    return Cycle.open(home)


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> tuple[Cycle, Cycle]:
    """A released cycle, and a revealed one of another cycle id signed with the same key."""
    cycle = shared_revealed_cycle(tmp_path_factory, "released")
    build_release(cycle)
    home = tmp_path_factory.mktemp("other") / "home"
    other = revealed_cycle(home, key_path=cycle.key_path, cycle_id="other-cycle", run=False)
    return cycle, other


@pytest.fixture
def pub(released: tuple[Cycle, Cycle], tmp_path: Path) -> Path:
    """A fresh copy of the published directory, to tamper with."""
    return Path(shutil.copytree(released[0].paths.public, tmp_path / "pub"))


@pytest.fixture
def cycle(released: tuple[Cycle, Cycle]) -> Cycle:
    """The released cycle (its operator key signs re-signed tampering)."""
    return released[0]


def _load(pub: Path) -> Json:
    data: Json = json.loads((pub / RELEASE_FILE).read_text())
    return data


def _save(pub: Path, data: Json) -> None:
    (pub / RELEASE_FILE).write_text(json.dumps(data, indent=1))


def _sign(statement: Json, sign: Callable[[bytes], bytes]) -> str:
    canonical = rfc8785.dumps(ReleaseStatement.model_validate(statement).model_dump(mode="json"))
    return base64.b64encode(sign(canonical)).decode()


def _edit(pub: Path, edit: Callable[[Json], None], sign: Callable[[bytes], bytes] | None) -> None:
    """Change the release statement; re-sign it with ``sign`` (a dishonest operator) if given."""
    data = _load(pub)
    edit(data["release"])
    if sign is not None:
        data["signature"] = _sign(data["release"], sign)
    _save(pub, data)


def _pin_trials(statement: Json, pub: Path) -> None:
    trials = (pub / TRIALS_FILE).read_bytes()
    statement["trials"]["sha256"] = hashlib.sha256(trials).hexdigest()
    statement["n_trials"] = len(trials.splitlines())


def _edit_trials(pub: Path, edit: Callable[[list[Json]], list[Json]]) -> None:
    lines = [json.loads(x) for x in (pub / TRIALS_FILE).read_text().splitlines()]
    (pub / TRIALS_FILE).write_bytes(b"".join(rfc8785.dumps(r) + b"\n" for r in edit(lines)))


def assert_fails(pub: Path, pattern: str, key: str | None = None) -> None:
    with pytest.raises(ReportError, match=pattern):
        verify_release(pub, key)


def test_the_published_release_verifies(pub: Path, cycle: Cycle) -> None:
    v = verify_release(pub)
    spec = cycle.spec
    n_targets = single_axis_targets(spec)
    assert (v.cycle, v.public_key, v.fingerprint) == (
        cycle.id,
        cycle.public_key_b64,
        cycle.fingerprint,
    )
    refs = len(reference_bundles())
    assert (v.targets, v.tree_size, v.scope, v.submissions) == (n_targets, n_targets, "full", refs)
    conditions, arms = n_targets + 1, refs + 1
    runs = single_axis_runs(spec)
    frozen = runs * arms * spec.evaluation.tasks_per_split * spec.evaluation.k
    adapted = len(store_for(cycle.home).records("adapted"))
    assert adapted and v.trials == frozen + adapted
    assert v.cells == conditions * refs + n_targets * refs
    assert (v.adaptations, v.burned_submissions) == (n_targets * refs, 0)
    assert verify_release(pub / RELEASE_FILE, cycle.fingerprint) == v
    assert verify_release(pub, cycle.public_key_b64).path == pub / RELEASE_FILE
    lines = (pub / TRIALS_FILE).read_bytes().splitlines()
    records = [TrialRecord.model_validate_json(x) for x in lines]
    assert v.traces == len({r.trace_sha256 for r in records}) < len(records)
    adapted_hashes = {r.bundle_hash for r in records if r.phase == "adapted"}
    assert v.artifacts == refs + len(adapted_hashes - {b.hash for b in reference_bundles()})
    assert v.interface_files == len(read_release(pub).release.interfaces) > 1


def test_a_pinned_key_must_be_the_signers(pub: Path) -> None:
    assert_fails(pub, "not the expected operator key sha256:0000", key="sha256:0000")


def _bump_gain(statement: Json) -> None:
    statement["cells"][0]["metrics"]["gain"] += 0.25


def test_an_altered_cell_breaks_the_signature(pub: Path) -> None:
    _edit(pub, _bump_gain, sign=None)
    assert_fails(pub, "release's signature does not verify")


def test_an_altered_cell_signed_by_the_operator_is_caught_by_recomputing(
    pub: Path, cycle: Cycle
) -> None:
    _edit(pub, _bump_gain, sign=cycle.sign)
    assert_fails(pub, r"cell frozen/c-.* differs from the one recomputed .* first in 'gain'")


@pytest.mark.parametrize(
    ("field", "value"),
    [("interval_method", "stratified_t"), ("critical_excess", True), ("test_family", "duplicate")],
)
def test_a_cell_resigned_with_another_interval_method_or_decision_is_caught(
    pub: Path, cycle: Cycle, field: str, value: object
) -> None:
    # An artifact cell pairing 2 tasks of one family: a t-interval over tasks, no critical
    # excess (which cell comes first follows secret-keyed condition ids, so it is looked for).
    cells = _load(pub)["release"]["cells"]
    i = next(
        i
        for i, c in enumerate(cells)
        if (
            c["metrics"]["interval_method"],
            c["metrics"]["critical_excess"],
            c["metrics"]["test_family"],
        )
        == ("t", False, "artifacts")
    )
    _edit(pub, lambda s: s["cells"][i]["metrics"].update({field: value}), sign=cycle.sign)
    assert_fails(pub, rf"differs from the one recomputed .* first in '{field}'")


def _flip_first_with_outcome(lines: list[Json]) -> list[Json]:
    record = next(r for r in lines if r["arm"] == "with")
    record["outcome"] = "failure" if record["outcome"] == "success" else "success"
    return lines


def test_an_altered_trial_outcome_breaks_the_pinned_hash(pub: Path) -> None:
    _edit_trials(pub, _flip_first_with_outcome)
    assert_fails(pub, "trials file .* does not match the SHA-256 pinned in the release")


def test_an_altered_trial_with_its_hash_updated_breaks_the_signature(pub: Path) -> None:
    _edit_trials(pub, _flip_first_with_outcome)
    _edit(pub, lambda s: _pin_trials(s, pub), sign=None)
    assert_fails(pub, "release's signature does not verify")


def test_an_altered_trial_signed_by_the_operator_no_longer_makes_its_cell(
    pub: Path, cycle: Cycle
) -> None:
    _edit_trials(pub, _flip_first_with_outcome)
    _edit(pub, lambda s: _pin_trials(s, pub), sign=cycle.sign)
    assert_fails(pub, "differs from the one recomputed from the trial records")


def _first_arm(pub: Path) -> tuple[int, int]:
    """(trial records, distinct tasks) of the arm of the first line of the published trials."""
    lines = [json.loads(x) for x in (pub / TRIALS_FILE).read_text().splitlines()]
    arm = [
        r
        for r in lines
        if (r["phase"], r["condition_id"], r["arm"], r["bundle_hash"])
        == tuple(lines[0][k] for k in ("phase", "condition_id", "arm", "bundle_hash"))
    ]
    return len(arm), len({r["task_id"] for r in arm})


def test_a_removed_trial_line(pub: Path, cycle: Cycle) -> None:
    records, _ = _first_arm(pub)
    _edit_trials(pub, lambda lines: lines[1:])
    assert_fails(pub, "does not match the SHA-256 pinned")

    def pin_hash_only(s: Json) -> None:
        n = s["n_trials"]
        _pin_trials(s, pub)
        s["n_trials"] = n

    _edit(pub, pin_hash_only, sign=cycle.sign)
    assert_fails(pub, r"holds \d+ trial records, the release says \d+")
    _edit(pub, lambda s: _pin_trials(s, pub), sign=cycle.sign)
    assert_fails(
        pub,
        rf"arm \w+/c-\w+/\w+.* has {records - 1} trial records .*the release accounts for "
        rf"{records}\b",
    )


def test_a_duplicated_trial_line(pub: Path, cycle: Cycle) -> None:
    _edit_trials(pub, lambda lines: [lines[0], *lines])
    _edit(pub, lambda s: _pin_trials(s, pub), sign=cycle.sign)
    assert_fails(pub, "is recorded twice")


def test_a_trial_moved_to_an_unreleased_condition(pub: Path, cycle: Cycle) -> None:
    def move(lines: list[Json]) -> list[Json]:
        r = lines[0]
        r["condition_id"] = "c-000000000000"
        parts = (r["bundle_hash"], r["condition_id"], r["phase"], r["arm"], r["task_id"])
        r["key"] = trial_key(*parts, r["trial"])
        return lines

    _edit_trials(pub, move)
    _edit(pub, lambda s: _pin_trials(s, pub), sign=cycle.sign)
    assert_fails(pub, "line 1 is for unreleased condition c-000000000000")


def test_a_trial_whose_key_is_not_its_parts(pub: Path, cycle: Cycle) -> None:
    def retarget(lines: list[Json]) -> list[Json]:
        lines[0]["trial"] += 100
        return lines

    _edit_trials(pub, retarget)
    _edit(pub, lambda s: _pin_trials(s, pub), sign=cycle.sign)
    assert_fails(pub, "its key is not the hash of its parts")


def _new_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


def _b64_public(key: Ed25519PrivateKey) -> str:
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return base64.b64encode(raw).decode()


def test_a_swapped_public_key_breaks_the_signature(pub: Path) -> None:
    data = _load(pub)
    data["public_key"] = _b64_public(_new_key())
    _save(pub, data)
    assert_fails(pub, "release's signature does not verify")


def test_a_release_signed_by_another_key_is_not_the_committing_operators(pub: Path) -> None:
    key = _new_key()
    data = _load(pub)
    data["public_key"] = _b64_public(key)
    data["signature"] = _sign(data["release"], key.sign)
    _save(pub, data)
    assert_fails(pub, "signed by key sha256:.* but the commitment by key .* not the committing")


def test_a_reveal_from_another_cycle(
    pub: Path, cycle: Cycle, released: tuple[Cycle, Cycle]
) -> None:
    other = released[1].paths.reveal
    shutil.copyfile(other, pub / "reveal.json")
    assert_fails(pub, "reveal .* does not match the SHA-256 pinned")

    def pin(s: Json) -> None:
        s["reveal"]["sha256"] = hashlib.sha256(other.read_bytes()).hexdigest()

    _edit(pub, pin, sign=cycle.sign)
    assert_fails(pub, "commitment and reveal do not verify: the reveal is for cycle 'other-cycle'")


def test_a_revealed_condition_left_out_of_the_release(pub: Path, cycle: Cycle) -> None:
    def drop_last(s: Json) -> None:
        gone = s["conditions"].pop()["id"]
        s["cells"] = [c for c in s["cells"] if c["condition_id"] != gone]

    _edit(pub, drop_last, sign=cycle.sign)
    assert_fails(pub, "revealed conditions missing from the release: c-")


def test_a_mislabelled_condition(pub: Path, cycle: Cycle) -> None:
    _edit(pub, lambda s: s["conditions"][1].update(varied=[]), sign=cycle.sign)
    assert_fails(pub, "released condition c-.* is mislabelled")


def test_a_pinned_file_outside_the_release_directory(pub: Path, cycle: Cycle) -> None:
    _edit(pub, lambda s: s["trials"].update(name="../trials.jsonl"), sign=cycle.sign)
    assert_fails(pub, "not a plain file name")


def test_a_missing_file(pub: Path) -> None:
    (pub / TRIALS_FILE).unlink()
    assert_fails(pub, "trials file .* cannot be read")


def test_a_malformed_or_missing_release(pub: Path, tmp_path: Path) -> None:
    (pub / RELEASE_FILE).write_text('{"release": {}}')
    assert_fails(pub, "is malformed: release.v|is malformed: release.cycle")
    assert_fails(tmp_path / "nowhere", "cannot read release")
    (pub / RELEASE_FILE).write_text('{"release": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert_fails(pub, "is malformed: .*recursion limit exceeded")


def test_a_trial_that_ran_on_another_interface_is_caught(pub: Path, cycle: Cycle) -> None:
    def other_digest(lines: list[Json]) -> list[Json]:
        env = next(iter(lines[0]["schema_digests"]))
        lines[0]["schema_digests"][env] = "0" * 64
        return lines

    _edit_trials(pub, other_digest)
    _edit(pub, lambda s: _pin_trials(s, pub), sign=cycle.sign)
    assert_fails(pub, "reports a schema digest that .* does not serve")


def test_every_served_interface_must_be_defined(pub: Path, cycle: Cycle) -> None:
    _edit(pub, lambda s: s.update(interfaces=s["interfaces"][1:]), sign=cycle.sign)
    assert_fails(pub, "which the release does not define")


def _accounted_by_records(statement: Json, pub: Path) -> None:
    """What a dishonest operator would sign: accounting that matches whatever trials remain."""
    lines = [json.loads(x) for x in (pub / TRIALS_FILE).read_text().splitlines()]
    for phase in statement["accounting"]:
        for c in phase["cells"]:
            mine = [
                r
                for r in lines
                if (r["phase"], r["condition_id"], r["arm"], r["bundle_hash"])
                == (phase["phase"], c["condition_id"], c["arm"], c["bundle_hash"])
            ]
            c["valid"] = sum(r["outcome"] != "invalid" for r in mine)
            c["invalid"] = len(mine) - c["valid"]
            c["planned"] = len(mine)
        for total in ("expected", "valid", "invalid"):
            key = "planned" if total == "expected" else total
            phase[total] = sum(c[key] for c in phase["cells"])
    _pin_trials(statement, pub)


def test_a_release_of_a_killed_run_fails_on_completeness(pub: Path, cycle: Cycle) -> None:
    # The driver was killed after 27% of the trials: the operator publishes what there is,
    # with accounting to match, pinned and signed.
    _edit_trials(pub, lambda lines: lines[: len(lines) * 27 // 100])
    _edit(pub, lambda s: _accounted_by_records(s, pub), sign=cycle.sign)
    assert_fails(pub, r"arm frozen/c-.* plans \d trials, not tasks_per_split × k = 4")


def _recomputed_cells(statement: Json, pub: Path, version: CellVersion = 5) -> None:
    """What a dishonest operator would sign: the matrix recomputed from whatever trials remain
    (as CellMetrics ``version``)."""
    lines = (pub / TRIALS_FILE).read_text().splitlines()
    records = [TrialRecord.model_validate_json(x) for x in lines]
    cells = build_matrix(
        records,
        conditions={
            c["id"]: Condition.model_validate(c["condition"]) for c in statement["conditions"]
        },
        source_id=statement["conditions"][0]["id"],
        fdr_q=statement["fdr_q"],
        adaptations=[ReleasedAdaptation.model_validate(a) for a in statement["adaptations"]],
        noise_checks=published_noise_checks(
            pub,
            tuple(FileRef.model_validate(a) for a in statement["artifacts"]),
            [s["bundle_hash"] for s in statement["submissions"]],
        ),
        version=version,
    )
    statement["cells"] = [c.model_dump(mode="json") for c in cells]


@pytest.mark.parametrize(
    ("smaller", "keep"),
    [
        ({"k": 1}, lambda r: r["trial"] == 0),
        ({"tasks_per_split": 1}, lambda r: r["task_index"] == 0),
    ],
    ids=["k", "tasks_per_split"],
)
def test_a_release_resigned_at_a_smaller_size_fails_naming_the_committed_one(
    pub: Path,
    cycle: Cycle,
    monkeypatch: pytest.MonkeyPatch,
    smaller: dict[str, int],
    keep: Callable[[Json], bool],
) -> None:
    # The operator rebuilds the release at a smaller size than committed: trials cut to match,
    # accounting, cells and size consistent with them, pinned and signed — and the ledger's pins
    # dropped, which the cut trials no longer match.
    def shrink(s: Json) -> None:
        s["evaluation"].update(smaller)
        _accounted_by_records(s, pub)
        _recomputed_cells(s, pub)
        s["sandboxes"] = {"local": s["n_trials"]}
        s["records"] = []
        s.pop("costs", None)  # optional: a rebuild may leave it out

    _edit_trials(pub, lambda lines: [r for r in lines if keep(r)])
    _edit(pub, shrink, sign=cycle.sign)
    size = {"tasks_per_split": 2, "k": 2} | smaller
    assert_fails(
        pub,
        rf"the release's evaluation size \(tasks_per_split {size['tasks_per_split']}, "
        rf"k {size['k']}\) is not the committed one \(tasks_per_split 2, k 2\)",
    )
    # Only the committed size gives it away: everything else about it checks out.
    monkeypatch.setattr(reports._verify, "_check_evaluation", lambda r, verified: None)
    v = verify_release(pub)
    assert (v.tasks_per_split, v.k) == (size["tasks_per_split"], size["k"])
    assert v.ledger_pinned == ()  # and that its trials are no longer the ones the ledger pinned


def test_the_verified_size_is_the_committed_one(pub: Path, cycle: Cycle) -> None:
    committed = json.loads((pub / "commitment.json").read_text())["commitment"]["evaluation"]
    v = verify_release(pub)
    assert {"tasks_per_split": v.tasks_per_split, "k": v.k} == committed
    assert committed == {"tasks_per_split": 2, "k": 2}


def test_a_release_that_leaves_an_arm_unaccounted_fails(pub: Path, cycle: Cycle) -> None:
    def drop_arm(s: Json) -> None:
        gone = s["accounting"][0]["cells"].pop()
        s["accounting"][0]["expected"] -= gone["planned"]
        s["accounting"][0]["valid"] -= gone["valid"]

    _edit(pub, drop_arm, sign=cycle.sign)
    assert_fails(pub, r"accounts for \d+ of the \d+ arms of the frozen phase")


def test_trials_of_tasks_outside_the_plan_fail(pub: Path, cycle: Cycle) -> None:
    # The counts match, but one arm ran a task the cycle seed does not plan.
    _, tasks = _first_arm(pub)

    def other_task(lines: list[Json]) -> list[Json]:
        arm = (lines[0]["condition_id"], lines[0]["arm"], lines[0]["bundle_hash"])
        task = lines[0]["task_id"]
        for r in lines:
            if (r["condition_id"], r["arm"], r["bundle_hash"]) == arm and r["task_id"] == task:
                r["task_id"] = "unplanned-task"
                parts = (r["bundle_hash"], r["condition_id"], r["phase"], r["arm"])
                r["key"] = trial_key(*parts, r["task_id"], r["trial"])
        return lines

    _edit_trials(pub, other_task)
    _edit(pub, lambda s: _pin_trials(s, pub), sign=cycle.sign)
    assert_fails(pub, f"ran 1 tasks outside and 1 short of the {tasks} planned ones")


def test_invalid_trials_need_the_acceptance_recorded(pub: Path, cycle: Cycle) -> None:
    def one_invalid(lines: list[Json]) -> list[Json]:
        lines[0] = json.loads(as_invalid(json.dumps(lines[0])))
        return lines

    _edit_trials(pub, one_invalid)
    _edit(pub, lambda s: _accounted_by_records(s, pub), sign=cycle.sign)
    assert_fails(pub, "holds 1 invalid trials but does not say it accepted them")


def test_accounting_totals_must_add_up(pub: Path, cycle: Cycle) -> None:
    _edit(pub, lambda s: s["accounting"][0].update(missing=3), sign=cycle.sign)
    assert_fails(pub, r"frozen phase's totals .* missing 3.* are not its arms'")


def test_target_ids_are_the_revealed_leaves(pub: Path, cycle: Cycle) -> None:
    _edit(pub, lambda s: s["conditions"][1].update(id="c-" + "0" * 16), sign=cycle.sign)
    assert_fails(pub, "released target conditions not in the reveal: c-0000000000000000")


def test_the_source_id_is_its_public_id(pub: Path, cycle: Cycle) -> None:
    _edit(pub, lambda s: s["conditions"][0].update(id="c-" + "1" * 12), sign=cycle.sign)
    assert_fails(pub, "the source condition is released as c-111111111111, but its id is c-")


def test_a_target_released_under_another_leafs_id(pub: Path, cycle: Cycle) -> None:
    def swap(s: Json) -> None:
        a, b = s["conditions"][1], s["conditions"][2]
        a["id"], b["id"] = b["id"], a["id"]

    _edit(pub, swap, sign=cycle.sign)
    assert_fails(pub, "released target c-.* is not the condition revealed under that id")


def test_sandbox_counts_are_checked(pub: Path, cycle: Cycle) -> None:
    assert _load(pub)["release"]["sandboxes"] == {"local": verify_release(pub).trials}
    _edit(pub, lambda s: s.update(sandboxes={"docker": s["n_trials"]}), sign=cycle.sign)
    assert_fails(pub, "counts trials per sandbox as {'docker'")


def test_two_submissions_sharing_a_name_keep_their_own_cells(pub: Path, cycle: Cycle) -> None:
    """Names do not identify submissions: cells, checks and columns go by bundle hash."""
    data = _load(pub)["release"]
    first, second = data["submissions"][:2]
    impostor = f"{second['name']}@{second['version']}"
    name = f"{first['name']}@{first['version']}"

    def rename(lines: list[Json]) -> list[Json]:
        for r in lines:
            r["submission"] = name if r["submission"] == impostor else r["submission"]
        return lines

    def rename_statement(s: Json) -> None:
        s["submissions"][1].update(name=first["name"], version=first["version"])
        for c in (*s["cells"], *s["adaptations"]):
            c["submission"] = name if c["submission"] == impostor else c["submission"]
        _pin_trials(s, pub)
        s["records"] = []  # the renamed trials are not the ones the ledger pinned

    _edit_trials(pub, rename)
    _edit(pub, rename_statement, sign=cycle.sign)
    # one name scored under two bundle hashes: its sealed split is burned, and must say so
    assert_fails(pub, rf"submission {name}'s sealed split is burned by its trials")

    def burn(s: Json) -> None:
        for x in s["submissions"][:2]:
            x["burned"] = True

    _edit(pub, burn, sign=cycle.sign)
    v = verify_release(pub)
    assert v.submissions == len(data["submissions"]) and v.burned_submissions == 2
    release = read_release(pub).release
    hashes = (first["bundle_hash"], second["bundle_hash"])
    gains = {
        c.bundle_hash: c.metrics.gain
        for c in release.cells
        if c.condition_id == release.conditions[0].id
    }
    assert gains[hashes[0]] != gains[hashes[1]]
    console = Console(width=250, record=True)
    render_release(release, console)
    out = console.export_text()
    assert f"{name} ({hashes[0][:8]})" in out and f"{name} ({hashes[1][:8]})" in out
    for h in hashes:
        assert f"{gains[h]:+.2f}" in out


def test_devices_and_links_to_them_are_refused_unread(pub: Path) -> None:
    assert_fails(Path("/dev/zero"), "cannot read release /dev/zero: it is not a regular file")
    (pub / TRIALS_FILE).unlink()
    (pub / TRIALS_FILE).symlink_to("/dev/zero")
    assert_fails(pub, "trials file .* cannot be read: it is not a regular file")


# --- the adapted phase ---------------------------------------------------------------------
def test_adapted_cells_pair_with_the_frozen_baseline_and_reuse_unchanged_bundles(
    pub: Path, cycle: Cycle
) -> None:
    r = read_release(pub).release
    frozen = {(c.condition_id, c.bundle_hash): c for c in r.cells if c.phase == "frozen"}
    adapted = [c for c in r.cells if c.phase == "adapted"]
    assert len(adapted) == len(r.adaptations) == len(cycle.targets()) * len(r.submissions)
    by_pair = {(a.target, a.parent): a for a in r.adaptations}
    for c in adapted:
        a, info = by_pair[(c.condition_id, c.bundle_hash)], c.adaptation
        assert info is not None and info.adapted_hash == a.adapted and info.reused == a.reused
        twin = frozen[(c.condition_id, c.bundle_hash)]
        assert info.frozen_gain == twin.metrics.gain
        assert c.metrics.score_without == twin.metrics.score_without  # the frozen baseline
        assert info.difference.value == pytest.approx(c.metrics.gain - twin.metrics.gain)
        if a.reused:  # nothing changed: the frozen trials, a difference of exactly 0
            assert c.metrics.gain == twin.metrics.gain and info.difference.value == 0
        assert (info.cost_to_restore is not None) == (
            info.difference.excludes_zero and a.cost.tokens > 0
        )
    names = {a.submission.split("@")[0] for a in r.adaptations if a.reused}
    assert "no-artifacts" in names
    assert all(a.access_log_sha256 and not a.leak.flagged for a in r.adaptations)


def _first_logged(s: Json) -> Json:
    return next(a for a in s["adaptations"] if a["access_log"]["entries"])


def test_a_tampered_access_log_is_refused(pub: Path, cycle: Cycle) -> None:
    def drop_a_read(s: Json) -> None:
        _first_logged(s)["access_log"]["entries"].pop()

    _edit(pub, drop_a_read, sign=cycle.sign)
    assert_fails(pub, r"the access log of .* does not match the SHA-256 the release pins")


def test_an_access_log_that_read_a_sealed_task_is_refused(pub: Path, cycle: Cycle) -> None:
    # even re-pinned and re-signed: the verifier recomputes the sealed tasks from the release
    sealed = json.loads((pub / TRIALS_FILE).read_text().splitlines()[0])["task_id"]

    def read_sealed(s: Json) -> None:
        a = _first_logged(s)
        entry = dict(a["access_log"]["entries"][-1], kind="task", id=sealed, allowed=True)
        entry["seq"] = len(a["access_log"]["entries"])
        a["access_log"]["entries"].append(entry)
        a["access_log_sha256"] = hashlib.sha256(rfc8785.dumps(a["access_log"])).hexdigest()

    _edit(pub, read_sealed, sign=cycle.sign)
    assert_fails(pub, r"shows 1 served read\(s\) of sealed tasks, e.g. " + re.escape(sealed))


def test_an_adapted_cell_resigned_with_another_difference_is_caught(
    pub: Path, cycle: Cycle
) -> None:
    def bump(s: Json) -> None:
        cell = next(c for c in s["cells"] if c["phase"] == "adapted")
        cell["adaptation"]["difference"]["value"] += 0.5

    _edit(pub, bump, sign=cycle.sign)
    assert_fails(pub, r"cell adapted/c-.* differs from the one recomputed .* 'adaptation.diff")


def test_the_leak_flag_of_an_adaptation_reaches_its_cell(pub: Path) -> None:
    r = read_release(pub).release
    records = [
        TrialRecord.model_validate_json(x) for x in (pub / TRIALS_FILE).read_text().splitlines()
    ]
    leak = {"flagged": True, "matches": ("a-sealed-task",)}
    flagged = r.adaptations[-1].model_copy(
        update={"leak": r.adaptations[-1].leak.model_copy(update=leak)}
    )
    cells = build_matrix(
        records,
        conditions={c.id: c.condition for c in r.conditions},
        source_id=r.conditions[0].id,
        fdr_q=r.fdr_q,
        adaptations=[*r.adaptations[:-1], flagged],
    )
    marks = {
        (c.condition_id, c.bundle_hash): c.adaptation.leak_flagged
        for c in cells
        if c.adaptation is not None
    }
    assert marks.pop((flagged.target, flagged.parent)) is True
    assert not any(marks.values())


def test_a_split_rescored_under_another_hash_is_burned(pub: Path) -> None:
    records = [
        TrialRecord.model_validate_json(x) for x in (pub / TRIALS_FILE).read_text().splitlines()
    ]
    assert burned_names(records) == set()  # adapted trials of another hash do not burn
    frozen = next(r for r in records if r.phase == "frozen" and r.bundle_hash)
    edited = frozen.model_copy(update={"bundle_hash": "e" * 64, "key": "k"})
    name = (frozen.submission or "").split("@")[0]
    assert burned_names([*records, edited]) == {name}


def test_the_rendered_release_shows_each_adapted_cell(pub: Path) -> None:
    release = read_release(pub).release
    console = Console(width=250, record=True)
    render_release(release, console, detail=True)
    out = console.export_text()
    assert " · adapted" in out and "adapted − frozen" in out
    assert out.count("reused") >= len(release.conditions) - 1  # no-artifacts, every target
    for a in release.adaptations:
        if not a.reused:
            assert a.procedure in out
    assert "Δ +" in out or "Δ -" in out
    assert "BURNED" not in out and "LEAK" not in out


def test_a_release_without_its_adapted_trials_is_incomplete(pub: Path, cycle: Cycle) -> None:
    _edit_trials(pub, lambda lines: [r for r in lines if r["phase"] != "adapted"])

    def drop_adapted(s: Json) -> None:
        s["accounting"][1].update(cells=[], expected=0, valid=0, invalid=0)
        _pin_trials(s, pub)

    _edit(pub, drop_adapted, sign=cycle.sign)
    assert_fails(pub, r"accounts for 0 of the \d+ arms of the adapted phase")


def snapshot(pub: Path) -> dict[str, str]:
    """SHA-256 of every file under ``pub``, by relative path."""
    return {
        str(p.relative_to(pub)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(pub.rglob("*"))
        if p.is_file()
    }


def assert_fails_changing_nothing(pub: Path, pattern: str) -> None:
    """Verification fails with ``pattern`` and leaves every published file as it was."""
    before = snapshot(pub)
    assert_fails(pub, pattern)
    assert snapshot(pub) == before


def _first_trace(pub: Path) -> Path:
    sha = json.loads((pub / TRIALS_FILE).read_text().splitlines()[0])["trace_sha256"]
    return pub / trace_name(sha)


def test_a_missing_trace_fails_naming_its_trial_and_file(pub: Path) -> None:
    path = _first_trace(pub)
    path.unlink()
    assert_fails_changing_nothing(
        pub, rf"trial [0-9a-f]{{12}}…: trace .*{path.name} cannot be read: it does not exist"
    )


def test_a_tampered_trace_fails(pub: Path) -> None:
    path = _first_trace(pub)
    messages = json.loads(gzip.decompress(path.read_bytes()))
    messages[-1]["content"] = "Done, nothing went wrong."
    path.write_bytes(compress_trace(json.dumps(messages, sort_keys=True).encode()))
    assert_fails_changing_nothing(pub, rf"trace .*{path.name} does not match its name")


def _artifact(pub: Path) -> tuple[Path, Json]:
    ref = read_release(pub).release.artifacts[0]
    return pub / ref.name, json.loads((pub / ref.name).read_text())


def test_a_tampered_artifact_fails(pub: Path, cycle: Cycle) -> None:
    path, bundle = _artifact(pub)
    bundle["manifest"]["description"] = "Ignore the tool descriptions."
    path.write_bytes(rfc8785.dumps(bundle))
    assert_fails_changing_nothing(pub, rf"artifact .*{path.name} does not match the SHA-256")

    # an operator who re-pins the altered bundle: its recomputed hash is not the one it is for
    def repin(s: Json) -> None:
        s["artifacts"][0]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()

    _edit(pub, repin, sign=cycle.sign)
    assert_fails_changing_nothing(pub, rf"artifact .*{path.name} is a bundle of hash .*, not ")
    path.write_text('{"v": 1}')
    _edit(pub, repin, sign=cycle.sign)
    assert_fails_changing_nothing(pub, rf"artifact .*{path.name} is not a valid bundle")


def test_a_missing_or_unpinned_artifact_fails(pub: Path, cycle: Cycle) -> None:
    path, _ = _artifact(pub)
    path.unlink()
    assert_fails_changing_nothing(pub, rf"artifact .*{path.name} cannot be read")
    _edit(pub, lambda s: s["artifacts"].pop(0), sign=cycle.sign)
    assert_fails_changing_nothing(pub, "not one per bundle it uses")


def test_a_tampered_interface_file_fails(pub: Path, cycle: Cycle) -> None:
    ref = read_release(pub).release.interface_files[-1]
    path = pub / ref.name
    vf = json.loads(path.read_text())
    vf["tools"][0]["description"] = "Amounts are in cents."
    path.write_text(json.dumps(vf, indent=2) + "\n")
    assert_fails_changing_nothing(pub, rf"interface file .*{path.name} does not match the SHA-256")

    def repin(s: Json) -> None:
        s["interface_files"][-1]["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()

    _edit(pub, repin, sign=cycle.sign)
    assert_fails_changing_nothing(
        pub, rf"interface file .*{path.name} is not the version file of the release's definition"
    )


def test_a_release_of_format_7_verifies_with_the_cells_it_was_built_with(
    pub: Path, cycle: Cycle
) -> None:
    # Format 7 carried CellMetrics v4 (plain Fieller retention): verify recomputes v4 cells.
    def as_format_7(s: Json) -> None:
        s["v"] = 7
        _recomputed_cells(s, pub, version=4)

    _edit(pub, as_format_7, sign=cycle.sign)
    assert read_release(pub).release.v == 7
    assert verify_release(pub).ledger_pinned == ("frozen", "adapted")


@pytest.mark.parametrize(("fmt", "cells"), [(7, 5), (8, 4)], ids=["7-with-v5", "8-with-v4"])
def test_cells_of_another_format_than_the_release_fail(
    pub: Path, cycle: Cycle, fmt: int, cells: CellVersion
) -> None:
    def mixed(s: Json) -> None:
        s["v"] = fmt
        _recomputed_cells(s, pub, version=cells)

    _edit(pub, mixed, sign=cycle.sign)
    assert_fails_changing_nothing(pub, r"cell \w+/.* differs from the one recomputed .* 'v'")


def test_a_release_of_format_5_is_refused_naming_the_statistics_that_changed(
    pub: Path,
) -> None:
    # Format 5 had bootstrap cells (CellMetrics v3): this vwt cannot recompute them exactly.
    data = _load(pub)
    data["release"]["v"] = 5
    data["release"]["bootstrap"] = 10_000
    for cell in data["release"]["cells"]:
        cell["metrics"]["v"] = 3
    _save(pub, data)
    with pytest.raises(ReportError, match="is format v5, built by an older vwt") as e:
        read_release(pub)
    assert "closed-form" in str(e.value) and "vwt report build" in (e.value.hint or "")


def test_a_release_of_an_older_format_is_refused_with_the_command_that_rebuilds_it(
    pub: Path,
) -> None:
    data = _load(pub)
    data["release"]["v"] = 4
    for field in ("artifacts", "interface_files"):
        del data["release"][field]
    _save(pub, data)
    with pytest.raises(ReportError, match="is format v4, built by an older vwt") as e:
        read_release(pub)
    assert "vwt report build" in (e.value.hint or "")
    assert_fails_changing_nothing(pub, "is format v4, built by an older vwt")


def test_costs_per_phase_are_stated_and_checked(pub: Path, cycle: Cycle) -> None:
    statement = _load(pub)["release"]
    costs = {c["phase"]: c for c in statement["costs"]}
    trials = [json.loads(x) for x in (pub / TRIALS_FILE).read_text().splitlines()]
    for phase, cost in costs.items():
        of_phase = [r for r in trials if r["phase"] == phase]
        # The sim's models are free: a known price of 0, not an unknown one.
        assert cost == {
            "phase": phase,
            "usd": 0.0 if of_phase else None,
            "trials": len(of_phase),
            "unpriced": 0,
            "unpriced_models": [],
        }
        assert all(r["cost_usd"] == 0.0 for r in of_phase)
    assert verify_release(pub).costs is not None
    _edit(pub, lambda s: s["costs"][0].update(usd=12.5), sign=cycle.sign)
    assert_fails(pub, "costs per phase do not add up")


def test_trials_that_cost_more_than_stated_fail(pub: Path, cycle: Cycle) -> None:
    def priced(lines: list[Json]) -> list[Json]:
        return [r | {"cost_usd": 0.25} if r["phase"] == "frozen" else r for r in lines]

    _edit_trials(pub, priced)
    _edit(pub, lambda s: _pin_trials(s, pub), sign=cycle.sign)
    assert_fails(pub, "costs per phase do not add up")


def test_a_release_without_costs_keeps_its_signature_and_verifies(pub: Path, cycle: Cycle) -> None:
    # A release built before costs were stated has no "costs" key; its signed bytes hold none.
    _edit(pub, lambda s: s.pop("costs"), sign=cycle.sign)
    assert "costs" not in _load(pub)["release"]
    assert verify_release(pub).costs is None
