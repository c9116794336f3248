"""The content-addressed bundle store and the submission receipts of a cycle."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import rfc8785
from pydantic import BaseModel, ConfigDict, Field

from conditions import Cycle, CycleState, verify_signature
from submissions._bundle import Bundle, read_bundle_file, write_bundle
from submissions.errors import SubmissionError

SUBMISSION_EVENT = "submission.received"


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


class ReceiptStatement(BaseModel):
    """What the operator signs when a bundle is accepted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=1, description="Format version.")
    cycle: str = Field(description="Cycle id.")
    bundle_hash: str = Field(description="SHA-256 of the bundle's canonical JSON.")
    name: str = Field(description="Submission name.")
    version: str = Field(description="Submission version label.")
    received_at: str = Field(description="When it was accepted (RFC 3339, UTC).")


class Receipt(BaseModel):
    """A signed receipt: proof that this exact bundle was submitted before the close."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    receipt: ReceiptStatement = Field(description="The signed statement.")
    public_key: str = Field(description="Operator public key (base64).")
    signature: str = Field(description="Ed25519 signature of the statement's canonical JSON.")

    def verify(self) -> bool:
        """Whether the signature holds for the statement and key."""
        data = rfc8785.dumps(self.receipt.model_dump(mode="json"))
        return verify_signature(self.public_key, data, self.signature)


def submit(cycle: Cycle, bundle: Bundle) -> Receipt:
    """Accept ``bundle`` into ``cycle`` while submissions are open; returns a signed receipt."""
    cycle.require_state(CycleState.open, action="submit a bundle")
    for entry in cycle.ledger.entries(SUBMISSION_EVENT):
        if entry.payload["bundle_hash"] == bundle.hash:
            raise SubmissionError(
                f"bundle {bundle.hash[:12]}… was already submitted to cycle {cycle.id}",
                "change the bundle (e.g. its version) to submit a new one",
            )
    BundleStore(cycle.home).put(bundle)
    statement = ReceiptStatement(
        cycle=cycle.id,
        bundle_hash=bundle.hash,
        name=bundle.manifest.name,
        version=bundle.manifest.version,
        received_at=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
    )
    signature = cycle.sign(rfc8785.dumps(statement.model_dump(mode="json")))
    receipt = Receipt(
        receipt=statement,
        public_key=cycle.public_key_b64,
        signature=base64.b64encode(signature).decode(),
    )
    cycle.ledger.append(
        SUBMISSION_EVENT,
        {"bundle_hash": bundle.hash, "receipt": json.loads(receipt.model_dump_json())},
    )
    return receipt


def submitted_bundles(cycle: Cycle) -> list[Bundle]:
    """Every bundle submitted to ``cycle``, in submission order."""
    store = BundleStore(cycle.home)
    return [store.get(e.payload["bundle_hash"]) for e in cycle.ledger.entries(SUBMISSION_EVENT)]
