"""Verifying a release from its published files alone, down to recomputing every cell."""

from __future__ import annotations

from pathlib import Path

import rfc8785
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark import family, serve
from benchmark.errors import BenchmarkError
from conditions import (
    ConditionsError,
    VerifiedReveal,
    fingerprint,
    verify_commitment_and_reveal,
    verify_signature,
)
from conditions._wire import MAX_FILE_BYTES
from drift import capped_bytes
from reports._accounting import PhaseAccounting
from reports._adapted import check_access_log, sealed_of
from reports._calls import check_calls
from reports._complete import check_complete
from reports._matrix import Cell, build_matrix
from reports._pins import check_pins
from reports._published import (
    REPUBLISH,
    FileRef,
    check_artifacts,
    check_interfaces,
    check_traces,
    published_noise_checks,
    read_pinned,
    released_bundles,
)
from reports._release import (
    RELEASE_FILE,
    ReleaseStatement,
    SignedRelease,
    burned_names,
)
from reports._summary import PhaseCost, WindowOverride, phase_costs, sandbox_counts
from reports.errors import ReportError
from runner import TrialRecord, trial_key

MAX_RELEASE_BYTES = MAX_FILE_BYTES
"""Largest release.json read (larger is refused unread)."""
MAX_TRIALS_BYTES = 1024 * 1024 * 1024
"""Largest trials file read."""
FORMAT = ReleaseStatement.model_fields["v"].default
"""The release format this vwt builds."""
OLDEST_FORMAT = 6
"""The oldest release format this vwt reads (6: closed-form cell statistics; 7 adds pins; 8
adjusts retention's interval for its gate)."""
GATED_RETENTION_FORMAT = 8
"""The first format whose cells (CellMetrics v5) carry retention adjusted for its gate; older
ones' cells (v4) are recomputed with the plain Fieller interval they were built with."""


class VerifiedRelease(BaseModel):
    """What a successful verification established."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path = Field(description="The verified release.json.")
    cycle: str = Field(description="Cycle id.")
    created_at: str = Field(description="When the release was built (RFC 3339).")
    public_key: str = Field(description="Operator public key (base64) of release and commitment.")
    fingerprint: str = Field(description="Fingerprint of the operator key.")
    root: str = Field(description="Committed Merkle root of the target conditions.")
    tree_size: int = Field(description="Committed number of target conditions.")
    scope: str = Field(description="'full' or 'selective' reveal.")
    targets: int = Field(description="Released (and revealed) target conditions.")
    submissions: int = Field(description="Released submissions.")
    trials: int = Field(description="Trial records checked.")
    cells: int = Field(description="Cells recomputed from the trial records.")
    tasks_per_split: int = Field(
        description="Planned tasks per arm of each condition (as committed)."
    )
    k: int = Field(description="Planned trials per task (as committed).")
    complete: bool = Field(description="Every planned trial is released (always true if OK).")
    accepted_invalid: bool = Field(description="The operator published invalid trials.")
    invalid_trials: int = Field(description="Invalid trials released (0 unless accepted).")
    dropped_tasks: int = Field(description="Task drops over all cells due to invalid trials.")
    accounting: tuple[PhaseAccounting, ...] = Field(description="Per-phase accounting, checked.")
    sandboxes: dict[str, int] = Field(description="Trials per sandbox kind, checked.")
    late_submissions: int = Field(description="Submissions received late by override.")
    adaptations: int = Field(default=0, description="Adaptations checked (access logs).")
    burned_submissions: int = Field(default=0, description="Submissions whose split is burned.")
    traces: int = Field(description="Distinct traces read, each hashing to its records' pin.")
    calls: int = Field(
        default=0, description="Distinct call files read, each hashing to its records' pin."
    )
    artifacts: int = Field(description="Published bundles read, each's hash recomputed.")
    interface_files: int = Field(
        description="Interface version files, each equal to the release's definition."
    )
    window_overrides: tuple[WindowOverride, ...] = Field(description="As the release states.")
    ledger_pinned: tuple[str, ...] = Field(
        default=(),
        description="Phases whose released trials recompute the digest the cycle's ledger "
        "pinned (format 7).",
    )
    costs: tuple[PhaseCost, ...] | None = Field(
        default=None, description="Cost per phase, checked against the trials (None: not stated)."
    )


def _first_errors(e: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or '(top level)'}: {err['msg']}"
        for err in e.errors()[:3]
    )


def read_release(path: Path) -> SignedRelease:
    """Parse ``release.json`` (or the one in directory ``path``); checks nothing else."""
    file = path / RELEASE_FILE if path.is_dir() else path
    data, problem = capped_bytes(file, MAX_RELEASE_BYTES)
    if problem is not None:
        raise ReportError(f"cannot read release {file}: it {problem}", "check the path")
    try:
        return SignedRelease.model_validate_json(data)
    except ValidationError as e:
        version = _format_version(data)
        if version is not None and version < OLDEST_FORMAT:
            raise ReportError(
                f"release {file} is format v{version}, built by an older vwt; this vwt reads "
                f"v{OLDEST_FORMAT} and later (whose cell statistics are closed-form: stratified "
                "t intervals, "
                "the critical test, Fieller retention)",
                "rebuild it with `vwt report build` (the operator), or read it with the vwt "
                "that built it",
            ) from None
        raise ReportError(f"release {file} is malformed: {_first_errors(e)}", REPUBLISH) from None


class _Versioned(BaseModel):
    """Just the format version of a release statement, the rest ignored."""

    v: int = Field(description="Format version.")


class _VersionedRelease(BaseModel):
    """Just the statement of a signed release, to read its format version."""

    release: _Versioned = Field(description="The statement.")


def _format_version(data: bytes) -> int | None:
    try:
        return _VersionedRelease.model_validate_json(data).release.v
    except ValidationError:
        return None


def _check_signature(signed: SignedRelease, expected_key: str | None) -> None:
    # What was read, no more: a format-6 statement signed without the fields 7 added.
    data = rfc8785.dumps(signed.release.model_dump(mode="json", exclude_unset=True))
    if not verify_signature(signed.public_key, data, signed.signature):
        raise ReportError(
            "the release's signature does not verify under its public key "
            "(altered release or forged signature)",
            REPUBLISH,
        )
    if expected_key is not None and expected_key not in (
        signed.public_key,
        fingerprint(signed.public_key),
    ):
        raise ReportError(
            f"the release is signed by key {fingerprint(signed.public_key)}, not the expected "
            f"operator key {expected_key}",
            "get the release from the cycle's operator",
        )


def _published(folder: Path, ref: FileRef, what: str, max_bytes: int) -> tuple[Path, bytes]:
    if ref.name in ("", ".", "..") or Path(ref.name).name != ref.name:
        raise ReportError(f"the release names its {what} {ref.name!r}, not a plain file name")
    data = read_pinned(
        folder, ref, what, max_bytes, f"put {ref.name} next to {RELEASE_FILE}, as published"
    )
    return folder / ref.name, data


def _check_reveal(signed: SignedRelease, commitment: Path, reveal: Path) -> VerifiedReveal:
    try:
        verified = verify_commitment_and_reveal(commitment, reveal)
    except ConditionsError as e:
        raise ReportError(f"the published commitment and reveal do not verify: {e}", e.hint) from e
    if verified.public_key != signed.public_key:
        raise ReportError(
            f"the release is signed by key {fingerprint(signed.public_key)} but the commitment "
            f"by key {verified.fingerprint}: the release is not the committing operator's",
            REPUBLISH,
        )
    if verified.cycle != signed.release.cycle:
        raise ReportError(
            f"the release is for cycle {signed.release.cycle!r} but the commitment for "
            f"{verified.cycle!r}",
            REPUBLISH,
        )
    return verified


def _size(tasks_per_split: int, k: int) -> str:
    return f"tasks_per_split {tasks_per_split}, k {k}"


def _check_evaluation(r: ReleaseStatement, verified: VerifiedReveal) -> None:
    """The release reports the evaluation size fixed in the signed commitment, no other."""
    got, committed = r.evaluation, verified.evaluation
    if (got.tasks_per_split, got.k) != (committed.tasks_per_split, committed.k):
        raise ReportError(
            f"the release's evaluation size ({_size(got.tasks_per_split, got.k)}) is not the "
            f"committed one ({_size(committed.tasks_per_split, committed.k)})",
            "a release must report the evaluation at the size committed before submissions "
            "opened; " + REPUBLISH,
        )


def _check_conditions(r: ReleaseStatement, verified: VerifiedReveal) -> None:
    roles = [c.role for c in r.conditions]
    if roles.count("source") != 1 or roles[0] != "source":
        raise ReportError("the release must list exactly one source condition, first", REPUBLISH)
    source = r.conditions[0].condition
    revealed = {c.id: c.condition for c in verified.conditions}
    if r.conditions[0].id != source.id:
        raise ReportError(
            f"the source condition is released as {r.conditions[0].id}, but its id is {source.id}",
            REPUBLISH,
        )
    development = set(verified.families.development)
    if set(source.task_family.families) != development:
        raise ReportError(
            f"the source condition's task families ({', '.join(source.task_family.families)}) "
            f"are not the committed development families ({', '.join(sorted(development))})",
            REPUBLISH,
        )
    for c in r.conditions:
        if tuple(c.condition.differs_on(source)) != c.varied:
            raise ReportError(f"released condition {c.id} is mislabelled", REPUBLISH)
    released = [c.id for c in r.conditions[1:]]
    if len(set(released)) != len(released) or source.id in released:
        raise ReportError("the release lists a condition twice", REPUBLISH)
    if extra := ", ".join(sorted(set(released) - revealed.keys())):
        raise ReportError(f"released target conditions not in the reveal: {extra}", REPUBLISH)
    if missing := ", ".join(sorted(revealed.keys() - set(released))):
        raise ReportError(
            f"revealed conditions missing from the release: {missing}",
            "a release must report every condition it reveals; " + REPUBLISH,
        )
    for c in r.conditions[1:]:
        if c.condition != revealed[c.id]:
            raise ReportError(
                f"released target {c.id} is not the condition revealed under that id", REPUBLISH
            )


def _check_record(r: ReleaseStatement, rec: TrialRecord, names: dict[str, str], line: int) -> None:
    where = f"trial record on line {line}"
    if rec.cycle != r.cycle:
        raise ReportError(f"{where} is from cycle {rec.cycle!r}, not {r.cycle!r}", REPUBLISH)
    if rec.condition_id not in {c.id for c in r.conditions}:
        raise ReportError(f"{where} is for unreleased condition {rec.condition_id}", REPUBLISH)
    if (rec.arm == "without") != (rec.bundle_hash is None):
        raise ReportError(f"{where}: arm {rec.arm!r} contradicts its bundle hash", REPUBLISH)
    if rec.bundle_hash is not None and names.get(rec.bundle_hash) != rec.submission:
        raise ReportError(
            f"{where} is for submission {rec.submission} ({rec.bundle_hash[:12]}…), which the "
            "release does not list",
            REPUBLISH,
        )
    parts = (rec.bundle_hash, rec.condition_id, rec.phase, rec.arm, rec.task_id, rec.trial)
    if trial_key(*parts) != rec.key:
        raise ReportError(f"{where}: its key is not the hash of its parts", REPUBLISH)


def _read_trials(r: ReleaseStatement, path: Path, data: bytes) -> list[TrialRecord]:
    names = {s.bundle_hash: f"{s.name}@{s.version}" for s in r.submissions}
    names |= {a.adapted: a.submission for a in r.adaptations}
    records, keys = [], set()
    for i, line in enumerate(data.splitlines(), start=1):
        try:
            rec = TrialRecord.model_validate_json(line)
        except ValidationError as e:
            raise ReportError(
                f"trial record on line {i} of {path} is malformed: {_first_errors(e)}", REPUBLISH
            ) from None
        _check_record(r, rec, names, i)
        if rec.key in keys:
            raise ReportError(f"trial {rec.key[:12]}… is recorded twice", REPUBLISH)
        keys.add(rec.key)
        records.append(rec)
    if len(records) != r.n_trials:
        raise ReportError(
            f"{path} holds {len(records)} trial records, the release says {r.n_trials}", REPUBLISH
        )
    return records


def _check_interfaces(r: ReleaseStatement, records: list[TrialRecord]) -> None:
    """Every served interface is defined in the release, and every trial ran on it."""
    defined = {(v.env, v.id): v for v in r.interfaces}
    digests: dict[tuple[str, str], str] = {}
    for c in r.conditions:
        for env, vid in c.condition.tool_interface.items():
            if (env, vid) not in defined:
                raise ReportError(
                    f"condition {c.id} serves {vid!r}, which the release does not define",
                    REPUBLISH,
                )
            try:
                digests[(env, vid)] = serve(env, defined[(env, vid)]).digest
            except BenchmarkError as e:
                raise ReportError(f"released interface {vid!r}: {e}", REPUBLISH) from None
    for rec in records:
        # a trial serves its family's environment; a condition may name others (other families)
        try:
            env = family(rec.family).env_id
        except BenchmarkError as e:
            raise ReportError(f"trial {rec.key[:12]}…: {e}", REPUBLISH) from None
        vid = rec.tool_interfaces.get(env, "")
        if rec.schema_digests.get(env) != digests.get((env, vid)):
            raise ReportError(
                f"trial {rec.key[:12]}… reports a schema digest that {vid!r} does not serve",
                REPUBLISH,
            )


def _differing_field(a: Cell, b: Cell) -> str:
    da, db = a.metrics.model_dump(), b.metrics.model_dump()
    if da == db and a.adaptation != b.adaptation:
        da, db = (c.adaptation.model_dump() if c.adaptation else {} for c in (a, b))
        return "adaptation." + next((k for k in da | db if da.get(k) != db.get(k)), "")
    return next((k for k in da if da[k] != db.get(k)), "metrics")


def _check_cells(
    r: ReleaseStatement, records: list[TrialRecord], noise_checks: frozenset[str]
) -> list[Cell]:
    cells = build_matrix(
        records,
        conditions={c.id: c.condition for c in r.conditions},
        source_id=r.conditions[0].id,
        fdr_q=r.fdr_q,
        adaptations=r.adaptations,
        noise_checks=noise_checks,
        version=5 if r.v >= GATED_RETENTION_FORMAT else 4,
    )
    got = {(c.phase, c.condition_id, c.bundle_hash): c for c in r.cells}
    if len(got) != len(r.cells):
        raise ReportError("the release lists a cell twice", REPUBLISH)
    want = {(c.phase, c.condition_id, c.bundle_hash): c for c in cells}
    for key in sorted(got.keys() | want.keys()):
        label = f"cell {key[0]}/{key[1]}/{key[2][:12]}…"
        if key not in want:
            raise ReportError(f"{label} is released but its trials do not make it", REPUBLISH)
        if key not in got:
            raise ReportError(f"{label} follows from the trials but is not released", REPUBLISH)
        if got[key] != want[key]:
            raise ReportError(
                f"{label} ({want[key].submission}) differs from the one recomputed from the trial "
                f"records, first in {_differing_field(got[key], want[key])!r}",
                REPUBLISH,
            )
    return cells


def _check_adaptations(r: ReleaseStatement) -> None:
    """One adaptation per released submission × target, each of a released submission and
    target, its access log the pinned one with no read of a sealed task."""
    submissions = {s.bundle_hash: f"{s.name}@{s.version}" for s in r.submissions}
    targets = [c.id for c in r.conditions[1:]]
    pairs = [(a.parent, a.target) for a in r.adaptations]
    if len(set(pairs)) != len(pairs):
        raise ReportError("the release lists an adaptation twice", REPUBLISH)
    for a in r.adaptations:
        if submissions.get(a.parent) != a.submission or a.target not in targets:
            raise ReportError(
                f"the release lists an adaptation of {a.submission} ({a.parent[:12]}…) to "
                f"{a.target}, not a released submission and target",
                REPUBLISH,
            )
    if len(pairs) != len(submissions) * len(targets):
        raise ReportError(
            f"the release lists {len(pairs)} adaptations, not one per submission × target "
            f"({len(submissions)} × {len(targets)})",
            REPUBLISH,
        )
    if r.adaptations:
        conditions = {c.id: c.condition for c in r.conditions}
        sealed = sealed_of(conditions, r.evaluation.tasks_per_split, r.seed)
        for a in r.adaptations:
            check_access_log(a, sealed, REPUBLISH)


def _check_burned(r: ReleaseStatement, records: list[TrialRecord]) -> None:
    burned = burned_names(records)
    for s in r.submissions:
        if s.burned != (s.name in burned):
            state = "burned" if s.name in burned else "not burned"
            raise ReportError(
                f"submission {s.name}@{s.version}'s sealed split is {state} by its trials, "
                "the release says otherwise",
                REPUBLISH,
            )


def verify_release(path: Path, expected_key: str | None = None) -> VerifiedRelease:
    """Check a release using only its published files (release, commitment, reveal, trials,
    traces, artifacts, interface files).

    In order: the release's signature (and key, if ``expected_key`` is given as a base64 key
    or fingerprint); the SHA-256 of each file it pins; the commitment and reveal, signed by
    the release's key, for its cycle; that the release's evaluation size (tasks_per_split, k)
    is the one the commitment fixed; that the source's id is its public id and the released
    targets are the revealed leaves under their (keyed) ids; that every trial record parses and
    belongs to a released condition and submission; that the release is complete (every arm of
    every condition holds exactly the planned tasks × k trials, invalid ones only if accepted,
    as the release accounts for them); the sandbox counts; that every trial ran on a tool
    interface the release defines; and that the matrix recomputed from the records equals the
    released cells exactly, adapted cells included; that there is one adaptation per released
    submission × target, each with the access log the release pins and no read of a sealed
    task; that the burned marks follow from the trials; that every record's trace is published
    and hashes to its pin (a missing trace fails); that every bundle a trial used is published
    and its recomputed hash is its own; that every interface file is the version file of
    the release's definition; and (format 7) that the trials of each pinned phase, with the
    attempts the release withholds, recompute the digest the cycle's ledger pinned. Raises
    ReportError saying what failed, naming the file.
    """
    signed = read_release(path)
    file = path / RELEASE_FILE if path.is_dir() else path
    _check_signature(signed, expected_key)
    r = signed.release
    folder = file.parent
    commitment, _ = _published(folder, r.commitment, "commitment", MAX_FILE_BYTES)
    reveal, _ = _published(folder, r.reveal, "reveal", MAX_FILE_BYTES)
    trials, data = _published(folder, r.trials, "trials file", MAX_TRIALS_BYTES)
    verified = _check_reveal(signed, commitment, reveal)
    _check_evaluation(r, verified)
    _check_conditions(r, verified)
    if len({s.bundle_hash for s in r.submissions}) != len(r.submissions):
        raise ReportError("the release lists a submission twice", REPUBLISH)
    _check_adaptations(r)
    records = _read_trials(r, trials, data)
    check_complete(r, records)
    _check_burned(r, records)
    if sandbox_counts(records) != r.sandboxes:
        raise ReportError(
            f"the release counts trials per sandbox as {r.sandboxes}, its trials as "
            f"{sandbox_counts(records)}",
            REPUBLISH,
        )
    if r.costs is not None and phase_costs(records, [c.phase for c in r.costs]) != r.costs:
        raise ReportError(
            "the release's costs per phase do not add up to its trials' cost_usd", REPUBLISH
        )
    _check_interfaces(r, records)
    traces = check_traces(folder, records)
    calls = check_calls(folder, records)
    bundles = [s.bundle_hash for s in r.submissions] + [a.adapted for a in r.adaptations]
    artifacts = check_artifacts(folder, r.artifacts, released_bundles(records, bundles))
    noise_checks = published_noise_checks(
        folder, r.artifacts, [s.bundle_hash for s in r.submissions]
    )
    cells = _check_cells(r, records, noise_checks)
    interface_files = check_interfaces(folder, r.interface_files, r.interfaces)
    if r.v < 7 and r.records:
        raise ReportError(f"a format-{r.v} release carries no ledger pins", REPUBLISH)
    pinned = check_pins(r.records, records)
    return VerifiedRelease(
        path=file,
        cycle=r.cycle,
        created_at=r.created_at,
        public_key=signed.public_key,
        fingerprint=fingerprint(signed.public_key),
        root=verified.root,
        tree_size=verified.tree_size,
        scope=verified.scope,
        targets=len(r.conditions) - 1,
        submissions=len(r.submissions),
        trials=len(records),
        cells=len(cells),
        tasks_per_split=r.evaluation.tasks_per_split,
        k=r.evaluation.k,
        complete=True,
        accepted_invalid=r.accepted_invalid,
        invalid_trials=sum(a.invalid for a in r.accounting),
        dropped_tasks=sum(c.dropped_tasks for c in cells),
        accounting=r.accounting,
        sandboxes=r.sandboxes,
        late_submissions=sum(s.late for s in r.submissions),
        adaptations=len(r.adaptations),
        burned_submissions=sum(s.burned for s in r.submissions),
        traces=traces,
        calls=calls,
        artifacts=artifacts,
        interface_files=interface_files,
        window_overrides=r.window_overrides,
        ledger_pinned=pinned,
        costs=r.costs,
    )
