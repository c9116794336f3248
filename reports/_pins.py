"""The ledger's pins on the released trials: what a release publishes and `report verify` checks.

Each ``run.<phase>`` ledger entry pins every stored attempt of its phase (``runner._pin``): a
digest of their leaf hashes in key and attempt order. A release publishes, per phase, that
pin (the ledger entry's seq and hash, the count and the digest) and the leaf hashes of the
pinned attempts it does not publish (earlier invalid attempts of a trial, trials of conditions
not revealed), so anyone recomputes the digest from ``trials.jsonl`` alone: an edited,
dropped or added released record fails it, even one the operator's key re-signed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from conditions import Cycle
from reports.errors import ReportError
from runner import StoredRow, TrialRecord, canonical_record, last_pin, record_leaf, records_digest

REPUBLISH_HINT = "the release's trials are not the ones the cycle's ledger pinned; " + (
    "get the files again from the operator, or report the release as altered"
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class WithheldAttempt(_Frozen):
    """A pinned attempt the release does not publish, by its leaf hash."""

    key: str = Field(description="Trial key.")
    attempt: int = Field(ge=1, description="Attempt number.")
    leaf: str = Field(pattern=r"^[0-9a-f]{64}$", description="Leaf hash of its record (hex).")


class ReleasedPin(_Frozen):
    """A phase's ``run.<phase>`` ledger pin and the pinned attempts the release withholds."""

    phase: Literal["frozen", "adapted"] = Field(description="The phase.")
    ledger_seq: int = Field(ge=0, description="Seq of the ledger entry that pins it.")
    ledger_hash: str = Field(description="Hash of that ledger entry.")
    attempts: int = Field(ge=0, description="Attempts pinned.")
    digest: str = Field(pattern=r"^[0-9a-f]{64}$", description="Their records digest (hex).")
    withheld: tuple[WithheldAttempt, ...] = Field(
        description="Pinned attempts not in the trials file, by key and attempt."
    )


def released_pins(
    cycle: Cycle, rows: dict[str, list[StoredRow]], released: Iterable[TrialRecord]
) -> tuple[ReleasedPin, ...]:
    """The pins of the phases in ``rows`` (each phase's checked, all pinned, attempts) that
    have one, with the attempts not among the ``released`` records."""
    shown = {(r.key, r.attempt) for r in released}
    out = []
    for phase, stored in rows.items():
        pinned = last_pin(cycle, phase)
        if pinned is None:
            continue  # a cycle begun by an older vwt, run before pins: nothing to tie
        entry, pin = pinned
        withheld = tuple(
            WithheldAttempt(key=r.record.key, attempt=r.record.attempt, leaf=r.leaf.hex())
            for r in stored
            if (r.record.key, r.record.attempt) not in shown
        )
        out.append(
            ReleasedPin(
                phase=phase,
                ledger_seq=entry.seq,
                ledger_hash=entry.hash,
                attempts=pin.attempts,
                digest=pin.digest,
                withheld=withheld,
            )
        )
    return tuple(out)


def check_pins(pins: Iterable[ReleasedPin], records: list[TrialRecord]) -> tuple[str, ...]:
    """Recompute each pin's digest from the released ``records`` of its phase and its withheld
    attempts; the phases tied to the ledger. Raises ReportError at the first that differs."""
    tied = []
    for pin in pins:
        if pin.phase in tied:
            raise ReportError(f"the release pins the {pin.phase} phase twice", REPUBLISH_HINT)
        leaves = [
            (r.key, r.attempt, record_leaf(canonical_record(r)))
            for r in records
            if r.phase == pin.phase
        ]
        leaves += [(w.key, w.attempt, bytes.fromhex(w.leaf)) for w in pin.withheld]
        if len({(k, a) for k, a, _ in leaves}) != len(leaves):
            raise ReportError(
                f"the release withholds a {pin.phase} attempt it also publishes", REPUBLISH_HINT
            )
        if len(leaves) != pin.attempts or records_digest(leaves) != pin.digest:
            raise ReportError(
                f"the released {pin.phase} trials do not match the records the ledger pinned "
                f"(entry {pin.ledger_seq}): {len(leaves)} attempts where it pinned "
                f"{pin.attempts}{', and another digest' if len(leaves) == pin.attempts else ''}",
                REPUBLISH_HINT,
            )
        tied.append(pin.phase)
    return tuple(tied)
