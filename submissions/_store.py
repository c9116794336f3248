"""The content-addressed bundle store and submitting a bundle into a cycle."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import rfc8785

from conditions import GENESIS, Cycle, CycleState, LedgerEntry, verify_commitment
from submissions._bundle import Bundle, read_bundle_file, write_bundle
from submissions._receipt import Receipt, ReceiptStatement
from submissions.errors import SubmissionError

SUBMISSION_EVENT = "submission.received"
"""Ledger kind of an accepted submission; its payload holds the receipt."""


class BundleStore:
    """Immutable bundles under ``HOME/blobs/bundles/<sha256>.json``."""

    def __init__(self, home: Path) -> None:
        """Name the store's directory under ``home``; creates nothing."""
        self.root = home / "blobs" / "bundles"

    def path(self, bundle_hash: str) -> Path:
        """Where the bundle ``bundle_hash`` is (or would be) stored."""
        return self.root / f"{bundle_hash}.json"

    def put(self, bundle: Bundle) -> str:
        """Store ``bundle`` (a no-op if present); returns its hash."""
        path = self.path(bundle.hash)
        if not path.exists():
            write_bundle(bundle, path)
        return bundle.hash

    def get(self, bundle_hash: str) -> Bundle:
        """The stored bundle ``bundle_hash``, checked against its hash."""
        path = self.path(bundle_hash)
        if not path.exists():
            raise SubmissionError(f"no stored bundle {bundle_hash}", "submit the bundle first")
        bundle = read_bundle_file(path)
        if bundle.hash != bundle_hash:
            raise SubmissionError(
                f"stored bundle {bundle_hash} does not match its hash: the store was altered"
            )
        return bundle


def _utc(rfc3339: str) -> datetime:
    return datetime.fromisoformat(rfc3339.replace("Z", "+00:00")).astimezone(UTC)


def _check_window(cycle: Cycle, now: datetime, late: bool) -> bool:
    """Whether accepting now is late; refuses a late submission without ``late``."""
    closes_at = cycle.spec.closes_at
    is_late = now > _utc(closes_at)
    if is_late and not late:
        raise SubmissionError(
            f"submissions to cycle {cycle.id} closed at {closes_at}",
            "the operator may still accept it with `vwt submissions submit --late` "
            "(recorded in the ledger and the receipt)",
        )
    return is_late


def _check_unique(entries: list[LedgerEntry], cycle: Cycle, bundle: Bundle) -> None:
    """Refuse a bundle already submitted, or another bundle under a taken name@version."""
    m = bundle.manifest
    for entry in entries:
        held: dict[str, Any] = entry.payload["receipt"]["receipt"]
        if entry.payload["bundle_hash"] == bundle.hash:
            raise SubmissionError(
                f"bundle {bundle.hash[:12]}… was already submitted to cycle {cycle.id}",
                "change the bundle (e.g. its version) to submit a new one",
            )
        if (held["name"], held["version"]) == (m.name, m.version):
            raise SubmissionError(
                f"{m.name}@{m.version} is already taken in cycle {cycle.id} by bundle "
                f"{entry.payload['bundle_hash'][:12]}…; this bundle is {bundle.hash[:12]}…",
                "raise the version in vwt-bundle.json (or pick another name) and pack again",
            )


def submit(
    cycle: Cycle, bundle: Bundle, *, late: bool = False, submitter: str | None = None
) -> Receipt:
    """Accept ``bundle`` into ``cycle`` while submissions are open; returns a signed receipt.

    Refused after the spec's ``closes_at`` unless ``late`` (an operator override, recorded as
    ``"late": true`` in the ledger and the receipt); refused if ``name@version`` is taken.
    ``submitter``, the service account that uploaded it, is recorded in the ledger entry as
    ``"submitter"`` (not in the receipt); bundles the operator submits carry no such key.
    """
    cycle.require_state(CycleState.open, action="submit a bundle")
    now = datetime.now(UTC).replace(microsecond=0)
    is_late = _check_window(cycle, now, late)
    entries = cycle.ledger.entries(SUBMISSION_EVENT)
    _check_unique(entries, cycle, bundle)
    commitment = verify_commitment(cycle.paths.commitment, cycle.public_key_b64).commitment
    statement = ReceiptStatement(
        cycle=cycle.id,
        commitment_root=commitment.root,
        commitment_digest=commitment.digest(),
        bundle_hash=bundle.hash,
        name=bundle.manifest.name,
        version=bundle.manifest.version,
        received_at=now.isoformat().replace("+00:00", "Z"),
        late=is_late,
    )
    signature = cycle.sign(rfc8785.dumps(statement.model_dump(mode="json")))
    receipt = Receipt(
        receipt=statement,
        public_key=cycle.public_key_b64,
        signature=base64.b64encode(signature).decode(),
    )
    BundleStore(cycle.home).put(bundle)
    payload: dict[str, Any] = {
        "bundle_hash": bundle.hash,
        "name": bundle.manifest.name,
        "version": bundle.manifest.version,
        "late": is_late,
        "receipt": json.loads(receipt.model_dump_json()),
    }
    if submitter is not None:
        payload["submitter"] = submitter
    # expect_last: a submission recorded meanwhile by another process fails this one, so the
    # uniqueness checked above still holds when it is appended.
    cycle.ledger.append(
        SUBMISSION_EVENT, payload, expect_last=entries[-1].hash if entries else GENESIS
    )
    return receipt


def submitted_bundles(cycle: Cycle) -> list[Bundle]:
    """Every bundle submitted to ``cycle``, in submission order."""
    store = BundleStore(cycle.home)
    return [store.get(e.payload["bundle_hash"]) for e in cycle.ledger.entries(SUBMISSION_EVENT)]
