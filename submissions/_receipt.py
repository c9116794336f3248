"""Receipts: what the operator signs when a bundle is accepted, and how anyone checks one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal

import rfc8785
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from conditions import SignedCommitment, fingerprint, verify_signature
from submissions._files import read_capped
from submissions._manifest import Name, Version
from submissions._text import shown
from submissions.errors import SubmissionError

MAX_RECEIPT_BYTES = 16 << 10
"""Size cap of a receipt file."""
_HEX64 = re.compile(r"[0-9a-f]{64}")
_UTC_SECONDS = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def _match(pattern: re.Pattern[str], what: str) -> AfterValidator:
    def check(v: str) -> str:
        if not pattern.fullmatch(v):
            raise ValueError(f"must be {what}")
        return v

    return AfterValidator(check)


Hex64 = Annotated[str, _match(_HEX64, "64 lower-case hex digits")]
"""A SHA-256 digest or Merkle root, hex."""
UtcSeconds = Annotated[str, _match(_UTC_SECONDS, "an RFC 3339 UTC time, e.g. 2026-12-01T00:00:00Z")]
"""An RFC 3339 time in UTC, to the second."""


class ReceiptStatement(BaseModel):
    """What the operator signs when a bundle is accepted."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[2] = Field(default=2, description="Format version (2).")
    cycle: Name = Field(description="Cycle id.")
    commitment_root: Hex64 = Field(
        description="Merkle root of the cycle's published commitment the bundle was accepted under."
    )
    commitment_digest: Hex64 = Field(
        description="SHA-256 of that commitment statement's canonical JSON."
    )
    bundle_hash: Hex64 = Field(description="SHA-256 of the bundle's canonical JSON.")
    name: Name = Field(description="Submission name.")
    version: Version = Field(description="Submission version label.")
    received_at: UtcSeconds = Field(description="When it was accepted (RFC 3339, UTC).")
    late: bool = Field(
        description="Accepted after the commitment's closes_at, by the operator's override."
    )


class Receipt(BaseModel):
    """A signed receipt: proof that this exact bundle was accepted into the cycle."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    receipt: ReceiptStatement = Field(description="The signed statement.")
    public_key: str = Field(description="Operator public key (base64).")
    signature: str = Field(description="Ed25519 signature of the statement's canonical JSON.")

    def verify(self) -> bool:
        """Whether the signature holds for the statement and key."""
        data = rfc8785.dumps(self.receipt.model_dump(mode="json"))
        return verify_signature(self.public_key, data, self.signature)

    def check_commitment(self, signed: SignedCommitment) -> None:
        """Raise SubmissionError unless issued under ``signed`` (a verified commitment).

        The key, the cycle id, the root and the statement digest must all match.
        """
        c, s = signed.commitment, self.receipt
        if self.public_key != c.public_key:
            raise SubmissionError(
                f"the receipt is signed by key {fingerprint(self.public_key)}, the commitment by "
                f"key {fingerprint(c.public_key)}",
                "the receipt was not issued by this cycle's operator",
            )
        if s.cycle != c.cycle:
            raise SubmissionError(
                f"the receipt is for cycle {s.cycle}, the commitment for cycle {shown(c.cycle)}",
                "pass the public commitment of the receipt's cycle",
            )
        if s.commitment_root != c.root or s.commitment_digest != c.digest():
            raise SubmissionError(
                f"the receipt was issued under commitment root {s.commitment_root[:12]}…, not "
                f"under this commitment (root {c.root[:12]}…)",
                "pass the commitment published when the bundle was submitted; if it is that "
                "one, the operator changed the commitment after accepting the bundle",
            )


def read_receipt(path: Path) -> Receipt:
    """Parse a receipt file (untrusted input); its signature is not checked here."""
    data = read_capped(path, MAX_RECEIPT_BYTES, "receipt", "pass the receipt as issued")
    try:
        return Receipt.model_validate_json(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise SubmissionError(
            f"{shown(str(path))} is not a receipt ({shown(where)}: {shown(err['msg'])})",
            "pass the receipt JSON written by `vwt submissions submit`",
        ) from None
