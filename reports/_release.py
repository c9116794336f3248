"""The release: revealed conditions, the signed matrix and every trial record behind it."""

from __future__ import annotations

import base64
import contextlib
import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import rfc8785
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from benchmark import RedTeamReport, interface_version, require_gate
from conditions import (
    AXES,
    Condition,
    Cycle,
    CycleState,
    verify_commitment,
    verify_commitment_and_reveal,
)
from drift import InterfaceVersion
from reports._accounting import (
    RELEASED_PHASES,
    EvaluationSize,
    PhaseAccounting,
    release_accounting,
    require_complete,
)
from reports._adapted import ReleasedAdaptation, released_adaptations
from reports._matrix import Cell, build_matrix, noise_check_bundles
from reports._pins import ReleasedPin, released_pins
from reports._publish import publish_files
from reports._published import FileRef, published_files, released_bundles
from reports._summary import (
    PhaseCost,
    WindowOverride,
    phase_costs,
    sandbox_counts,
    window_overrides,
)
from reports.errors import ReportError
from runner import (
    TrialRecord,
    checked_rows,
    cycle_store,
    gate_sandboxes,
    latest,
    phase_accounting,
)
from submissions import SUBMISSION_EVENT, BundleStore

RELEASE_FILE = "release.json"
TRIALS_FILE = "trials.jsonl"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ReleasedCondition(_Frozen):
    """A condition of the release, with how it differs from the source."""

    id: str = Field(
        description="Condition id: the source's public id, a target's keyed id (its revealed "
        "leaf's)."
    )
    role: Literal["source", "target"] = Field(description="Source or committed target.")
    varied: tuple[str, ...] = Field(description="Axes that differ from the source.")
    condition: Condition = Field(description="The condition.")


class ReleasedSubmission(_Frozen):
    """A submission of the release."""

    name: str = Field(description="Submission name.")
    version: str = Field(description="Version label.")
    bundle_hash: str = Field(description="Bundle content hash: what identifies it.")
    late: bool = Field(description="Received after closes_at, by operator override.")
    burned: bool = Field(
        default=False,
        description="Its name's sealed split was scored under another bundle hash too (a "
        "re-score after an edit): its sealed results are no longer blind.",
    )


class ReleaseStatement(_Frozen):
    """What the operator signs."""

    v: Literal[6, 7, 8] = Field(
        default=8,
        description="Format version: 2 adds the evaluation size, accounting and summary; 3 the "
        "red-team gate; 4 the adaptations, adapted cells and burned splits; 5 the published "
        "traces, artifacts and interface files; 6 closed-form cell statistics (CellMetrics v4: "
        "stratified t intervals, the critical test, Fieller retention, test families; no "
        "bootstrap); 7 the ledger's pins on the trials; 8 retention's interval adjusted for "
        "its gate (CellMetrics v5).",
    )
    cycle: str = Field(description="Cycle id.")
    created_at: str = Field(description="When the release was built (RFC 3339, UTC).")
    commitment: FileRef = Field(description="The published commitment.")
    reveal: FileRef = Field(description="The published reveal.")
    trials: FileRef = Field(
        description="Every trial record, one JSON object per line. Each record's trace_sha256 "
        "pins its trace, published as traces/<sha256>.json.gz (gzip without a time stamp of "
        "the exact trace bytes), and its calls_sha256 (where set) its model calls, published "
        "as calls/<sha256>.json.gz (see reports._calls)."
    )
    n_trials: int = Field(description="Records in the trials file.")
    artifacts: tuple[FileRef, ...] = Field(
        description="Every bundle a released trial used (submitted or adapted), as "
        "artifacts/<bundle hash>.json: its canonical JSON, whose SHA-256 is the bundle hash."
    )
    interface_files: tuple[FileRef, ...] = Field(
        description="Every interface of 'interfaces' as a full version file "
        "interfaces/<id>.json (what `vwt drift show` and `vwt drift diff` read), by id."
    )
    ledger_head: str = Field(description="Hash of the cycle ledger's last entry.")
    seed: int = Field(description="The cycle's seed (it drew the sealed task instances).")
    fdr_q: float = Field(description="FDR level of the negative-transfer and critical decisions.")
    conditions: tuple[ReleasedCondition, ...] = Field(description="Source, then targets.")
    interfaces: tuple[InterfaceVersion, ...] = Field(
        description="Definition (base + drift operators) of every tool-interface version served."
    )
    submissions: tuple[ReleasedSubmission, ...] = Field(description="Submissions, in order.")
    evaluation: EvaluationSize = Field(description="Planned tasks per split and trials per task.")
    accepted_invalid: bool = Field(
        description="The operator published with invalid trials (vwt report build "
        "--accept-invalid); each cell says how many it has and the tasks it dropped."
    )
    accounting: tuple[PhaseAccounting, ...] = Field(
        description="Planned, valid and invalid trials per phase and per arm."
    )
    sandboxes: dict[str, int] = Field(description="Released trials per sandbox kind.")
    window_overrides: tuple[WindowOverride, ...] = Field(
        description="State transitions forced outside the committed window."
    )
    redteam: RedTeamReport = Field(
        description="The verifier red-team gate over the cycle's families, as it passed for "
        "this release: tasks checked, planted wrong answers, verifier versions."
    )
    adaptations: tuple[ReleasedAdaptation, ...] = Field(
        default=(),
        description="Every submission's adaptation to every released target: procedure, "
        "artifact changes, cost, leak verdict and access log.",
    )
    cells: tuple[Cell, ...] = Field(description="The transfer matrix.")
    records: tuple[ReleasedPin, ...] = Field(
        default=(),
        description="Per phase, the run.<phase> ledger entry's pin on every stored attempt "
        "and the pinned attempts the trials file does not hold (format 7; none in 6, or for a "
        "phase run before pins).",
    )
    costs: tuple[PhaseCost, ...] | None = Field(
        default=None,
        description="What each phase's released trials cost (their records' cost_usd). "
        "Optional, outside the format version: a release without it has no key (its signed "
        "bytes are unchanged) and a verifier checks it against the trials when present.",
    )

    @model_serializer(mode="wrap")
    def _without_absent_costs(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        # A release signed without costs must dump to the same bytes it was signed as.
        data: dict[str, object] = handler(self)
        if data.get("costs") is None:
            data.pop("costs", None)
        return data


class SignedRelease(_Frozen):
    """``release.json``: the statement with the operator's Ed25519 signature."""

    release: ReleaseStatement = Field(description="The signed statement.")
    public_key: str = Field(description="Operator public key (base64).")
    signature: str = Field(description="Signature of the statement's RFC 8785 JSON (base64).")


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def trials_bytes(records: list[TrialRecord]) -> bytes:
    """The trials file: canonical JSON lines, sorted by key."""
    lines = [rfc8785.dumps(r.model_dump(mode="json")) for r in sorted(records, key=lambda r: r.key)]
    return b"".join(line + b"\n" for line in lines)


def _interfaces(cycle: Cycle, conditions: list[ReleasedCondition]) -> tuple[InterfaceVersion, ...]:
    used = sorted({(e, v) for c in conditions for e, v in c.condition.tool_interface.items()})
    return tuple(interface_version(e, v, cycle.spec.interfaces) for e, v in used)


def _conditions(cycle: Cycle) -> list[ReleasedCondition]:
    """The source, then the revealed targets under their keyed ids (single-axis first)."""
    verified = verify_commitment_and_reveal(
        cycle.paths.commitment, cycle.paths.reveal, cycle.public_key_b64
    )
    source = cycle.source
    conditions = [ReleasedCondition(id=source.id, role="source", varied=(), condition=source)]
    targets = [
        ReleasedCondition(
            id=c.id,
            role="target",
            varied=tuple(c.condition.differs_on(source)),
            condition=c.condition,
        )
        for c in verified.conditions
    ]
    # single-axis targets first, then pairs, in axis order, then by what they are (not by
    # their keyed ids, which differ per cycle): the reveal's order is a shuffle
    return conditions + sorted(
        targets,
        key=lambda c: (
            len(c.varied),
            [AXES.index(a) for a in c.varied],
            c.condition.model_dump_json(),
            c.id,
        ),
    )


def burned_names(records: list[TrialRecord]) -> set[str]:
    """Submission names whose sealed (frozen) trials were scored under more than one bundle
    hash: the split was re-scored after an edit. Adapted trials do not count."""
    hashes: dict[str, set[str]] = {}
    for r in records:
        if r.phase == "frozen" and r.bundle_hash and r.submission:
            hashes.setdefault(r.submission.rsplit("@", 1)[0], set()).add(r.bundle_hash)
    return {name for name, h in hashes.items() if len(h) > 1}


def _submissions(cycle: Cycle, burned: set[str]) -> tuple[ReleasedSubmission, ...]:
    out = []
    for e in cycle.ledger.entries(SUBMISSION_EVENT):
        s = e.payload["receipt"]["receipt"]
        out.append(
            ReleasedSubmission(
                name=s["name"],
                version=s["version"],
                bundle_hash=s["bundle_hash"],
                late=e.payload.get("late") is True,
                burned=s["name"] in burned,
            )
        )
    return tuple(out)


def _require_committed_size(cycle: Cycle) -> None:
    """Refuse unless the spec's evaluation size is the one the published commitment fixed."""
    committed = verify_commitment(cycle.paths.commitment, cycle.public_key_b64).commitment
    c, spec = committed.evaluation, cycle.spec.evaluation
    if (spec.tasks_per_split, spec.k) != (c.tasks_per_split, c.k):
        raise ReportError(
            f"cycle {cycle.id}'s spec sets the evaluation size to tasks_per_split "
            f"{spec.tasks_per_split}, k {spec.k}, but the commitment fixed tasks_per_split "
            f"{c.tasks_per_split}, k {c.k}",
            f"restore the committed evaluation size in {cycle.paths.record} and run the cycle "
            "at that size; a release at another size fails `vwt report verify`",
        )


def build_release(cycle: Cycle, *, accept_invalid: bool = False) -> Path:
    """Build, sign and publish the release of a revealed cycle; moves it to 'released'.

    Refused (ReportError naming the counts and the command that fixes it) unless every planned
    trial of the frozen and adapted phases has a record, and none is invalid; with
    ``accept_invalid`` invalid trials are published, recorded as accepted in the release and
    counted on every cell they touch. Missing trials are never accepted, nor a spec whose
    evaluation size differs from the committed one, nor verifiers that fail the red-team gate
    (whose result the release records), nor a trial whose trace is not in the store, nor a
    store that fails its checks (``runner._pin``: a record altered, removed or added outside
    vwt, or stored after its phase's last ledger pin); the release publishes those pins
    (``reports._pins``). Beside
    the release and its trials file it publishes every released trial's trace, every bundle
    those trials used and every served interface as a version file (see
    ``reports._published``); all of them are written atomically: a failed write leaves the
    previous files.
    """
    cycle.require_state(CycleState.revealed, CycleState.released, action="build the release")
    _require_committed_size(cycle)
    gate = require_gate(cycle.spec, "the release", cycle.paths.redteam, gate_sandboxes())
    store = cycle_store(cycle)
    rows = {p: checked_rows(cycle, store, p, pinned_only=True)[0] for p in RELEASED_PHASES}
    by_phase = {p: latest(rows[p]) for p in RELEASED_PHASES}
    accounting = [phase_accounting(cycle, p, by_phase[p]) for p in RELEASED_PHASES]
    require_complete(accounting, cycle.home, accept_invalid=accept_invalid)
    public = cycle.paths.public
    conditions = _conditions(cycle)
    shown = {c.id for c in conditions}
    records = [r for p in RELEASED_PHASES for r in by_phase[p] if r.condition_id in shown]
    if not records:
        raise ReportError(f"cycle {cycle.id} has no trial records to release", "run the cycle")
    evaluation = cycle.spec.evaluation
    adaptations = released_adaptations(cycle, shown - {conditions[0].id})
    submissions = _submissions(cycle, burned_names(records))
    bundles = BundleStore(cycle.home)
    cells = build_matrix(
        records,
        conditions={c.id: c.condition for c in conditions},
        source_id=conditions[0].id,
        fdr_q=evaluation.fdr_q,
        adaptations=adaptations,
        noise_checks=noise_check_bundles(bundles.get(s.bundle_hash) for s in submissions),
    )
    trials = trials_bytes(records)
    interfaces = _interfaces(cycle, conditions)
    published = published_files(
        records,
        released_bundles(
            records, [s.bundle_hash for s in submissions] + [a.adapted for a in adaptations]
        ),
        interfaces,
        store.trace,
        bundles.get,
        store.blob,
    )
    statement = ReleaseStatement(
        cycle=cycle.id,
        created_at=_now(),
        commitment=FileRef(name=cycle.paths.commitment.name, sha256=_sha(cycle.paths.commitment)),
        reveal=FileRef(name=cycle.paths.reveal.name, sha256=_sha(cycle.paths.reveal)),
        trials=FileRef(name=TRIALS_FILE, sha256=hashlib.sha256(trials).hexdigest()),
        n_trials=len(records),
        artifacts=published.artifacts,
        interface_files=published.interfaces,
        ledger_head=cycle.ledger.head(),
        seed=cycle.spec.seed,
        fdr_q=evaluation.fdr_q,
        conditions=tuple(conditions),
        interfaces=interfaces,
        submissions=submissions,
        evaluation=EvaluationSize(tasks_per_split=evaluation.tasks_per_split, k=evaluation.k),
        accepted_invalid=any(r.outcome == "invalid" for r in records),
        accounting=tuple(release_accounting(a, records, shown) for a in accounting),
        sandboxes=sandbox_counts(records),
        window_overrides=window_overrides(cycle),
        redteam=gate,
        adaptations=adaptations,
        cells=tuple(cells),
        records=released_pins(cycle, rows, records),
        costs=phase_costs(records, RELEASED_PHASES),
    )
    data = rfc8785.dumps(statement.model_dump(mode="json"))
    signed = SignedRelease(
        release=statement,
        public_key=cycle.public_key_b64,
        signature=base64.b64encode(cycle.sign(data)).decode(),
    )
    path = public / RELEASE_FILE
    release = (signed.model_dump_json(indent=1) + "\n").encode()
    hint = (
        f"make room on the disk of {public} (or make it writable), then run "
        f"`vwt report build --home {cycle.home}` again"
    )
    created = []
    try:
        for folder in sorted({(public / name).parent for name, _ in published.files}):
            if not folder.is_dir():
                try:
                    folder.mkdir()
                except OSError as e:
                    raise ReportError(f"cannot create {folder}: {e.strerror or e}", hint) from None
                created.append(folder)
        publish_files(
            [(public / name, data) for name, data in published.files]
            + [(public / TRIALS_FILE, trials), (path, release)],
            hint,
        )
    except ReportError:
        for folder in created:  # a failed first build leaves no empty folder either
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    cycle.ledger.append(
        "report.released",
        {
            "release_sha256": hashlib.sha256(release).hexdigest(),
            "cells": len(cells),
            "accepted_invalid": statement.accepted_invalid,
        },
    )
    if cycle.state == CycleState.revealed:
        cycle.transition(CycleState.released, "release published")
    return path
