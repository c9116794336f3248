"""The release: revealed conditions, the signed matrix and every trial record behind it."""

from __future__ import annotations

import base64
import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import rfc8785
from pydantic import BaseModel, ConfigDict, Field

from benchmark import interface_version
from conditions import AXES, Condition, Cycle, CycleState, verify_commitment_and_reveal
from drift import InterfaceVersion
from reports._matrix import Cell, build_matrix
from reports.errors import ReportError
from runner import TrialRecord, store_for
from submissions import SUBMISSION_EVENT

RELEASE_FILE = "release.json"
TRIALS_FILE = "trials.jsonl"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ReleasedCondition(_Frozen):
    """A condition of the release, with how it differs from the source."""

    id: str = Field(description="Condition id.")
    role: Literal["source", "target"] = Field(description="Source or committed target.")
    varied: tuple[str, ...] = Field(description="Axes that differ from the source.")
    condition: Condition = Field(description="The condition.")


class ReleasedSubmission(_Frozen):
    """A submission of the release."""

    name: str = Field(description="Submission name.")
    version: str = Field(description="Version label.")
    bundle_hash: str = Field(description="Bundle content hash.")


class FileRef(_Frozen):
    """A file published next to the release, pinned by hash."""

    name: str = Field(description="File name, relative to the release.")
    sha256: str = Field(description="SHA-256 of the file's bytes.")


class ReleaseStatement(_Frozen):
    """What the operator signs."""

    v: int = Field(default=1, description="Format version.")
    cycle: str = Field(description="Cycle id.")
    created_at: str = Field(description="When the release was built (RFC 3339, UTC).")
    commitment: FileRef = Field(description="The published commitment.")
    reveal: FileRef = Field(description="The published reveal.")
    trials: FileRef = Field(description="Every trial record, one JSON object per line.")
    n_trials: int = Field(description="Records in the trials file.")
    ledger_head: str = Field(description="Hash of the cycle ledger's last entry.")
    seed: int = Field(description="Seed of the bootstrap and sign-flip draws.")
    bootstrap: int = Field(description="Bootstrap resamples per cell.")
    fdr_q: float = Field(description="FDR level of negative-transfer decisions.")
    conditions: tuple[ReleasedCondition, ...] = Field(description="Source, then targets.")
    interfaces: tuple[InterfaceVersion, ...] = Field(
        description="Definition (base + drift operators) of every tool-interface version served."
    )
    submissions: tuple[ReleasedSubmission, ...] = Field(description="Submissions, in order.")
    cells: tuple[Cell, ...] = Field(description="The transfer matrix.")


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


def build_release(cycle: Cycle) -> Path:
    """Build, sign and publish the release of a revealed cycle; moves it to 'released'."""
    cycle.require_state(CycleState.revealed, CycleState.released, action="build the release")
    public = cycle.paths.public
    verified = verify_commitment_and_reveal(
        cycle.paths.commitment, cycle.paths.reveal, cycle.public_key_b64
    )
    source = cycle.source
    conditions = [ReleasedCondition(id=source.id, role="source", varied=(), condition=source)]
    targets = [
        ReleasedCondition(
            id=c.condition.id,
            role="target",
            varied=tuple(c.condition.differs_on(source)),
            condition=c.condition,
        )
        for c in verified.conditions
    ]
    # single-axis targets first, then pairs, in axis order: the reveal's order is a shuffle
    conditions += sorted(
        targets, key=lambda c: (len(c.varied), [AXES.index(a) for a in c.varied], c.id)
    )
    shown = {c.id for c in conditions}
    records = [r for r in store_for(cycle.home).records() if r.condition_id in shown]
    if not records:
        raise ReportError(f"cycle {cycle.id} has no trial records to release", "run the cycle")
    evaluation = cycle.spec.evaluation
    cells = build_matrix(
        records,
        source_id=source.id,
        seed=cycle.spec.seed,
        bootstrap=evaluation.bootstrap,
        fdr_q=evaluation.fdr_q,
    )
    (public / TRIALS_FILE).write_bytes(trials_bytes(records))
    submissions = [e.payload["receipt"]["receipt"] for e in cycle.ledger.entries(SUBMISSION_EVENT)]
    statement = ReleaseStatement(
        cycle=cycle.id,
        created_at=_now(),
        commitment=FileRef(name=cycle.paths.commitment.name, sha256=_sha(cycle.paths.commitment)),
        reveal=FileRef(name=cycle.paths.reveal.name, sha256=_sha(cycle.paths.reveal)),
        trials=FileRef(name=TRIALS_FILE, sha256=_sha(public / TRIALS_FILE)),
        n_trials=len(records),
        ledger_head=cycle.ledger.head(),
        seed=cycle.spec.seed,
        bootstrap=evaluation.bootstrap,
        fdr_q=evaluation.fdr_q,
        conditions=tuple(conditions),
        interfaces=_interfaces(cycle, conditions),
        submissions=tuple(
            ReleasedSubmission(name=s["name"], version=s["version"], bundle_hash=s["bundle_hash"])
            for s in submissions
        ),
        cells=tuple(cells),
    )
    data = rfc8785.dumps(statement.model_dump(mode="json"))
    signed = SignedRelease(
        release=statement,
        public_key=cycle.public_key_b64,
        signature=base64.b64encode(cycle.sign(data)).decode(),
    )
    path = public / RELEASE_FILE
    path.write_text(signed.model_dump_json(indent=1) + "\n")
    cycle.ledger.append("report.released", {"release_sha256": _sha(path), "cells": len(cells)})
    if cycle.state == CycleState.revealed:
        cycle.transition(CycleState.released, "release published")
    return path
