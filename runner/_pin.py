"""Tamper evidence for a cycle's trials: a MAC on every record, the ledger's pin on each phase.

The store lives in the cycle's SQLite file, which anyone with the file can edit. So:

- every record a cycle's run stores carries a MAC of its leaf hash under the ledger key
  (``Ledger.mac``, private to the operator): an edited, forged or moved record fails it;
- every ``run.<phase>`` ledger entry pins the phase's records as they are when it is written
  (``RecordsPin``: how many attempts, up to which ``seq``, and a digest of their leaf hashes in
  key and attempt order), so a record removed, or put back as it was before, is found too;
- every reader of trials (``checked_records``: `vwt trials`, `vwt report build`, the accounting,
  a run before it adds to the store) checks both, and refuses the first difference in one
  line. Records stored after the last pin (a run stopped before it wrote its ledger entry) are
  read when their MACs hold; a release takes only pinned ones.

A cycle started by an older vwt (no ``trial_macs`` in its ``cycle.init`` entry) has records
without MACs: those are checked against a pin once a run has pinned them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from conditions import TRIAL_MACS, Cycle, LedgerEntry
from runner._records import TrialRecord
from runner._store import StoredRow, TrialStore
from runner.errors import RunnerError

PIN_FIELD = "records"
"""Key of a ``run.<phase>`` ledger payload that pins the phase's records."""
_MAC_DOMAIN = b"vwt/trial-record-mac\x00"
_SET_DOMAIN = b"vwt/trial-records\x00"
_COMPROMISED = (
    "the trial store was edited outside vwt: restore the home's vwt.sqlite from a backup, or "
    "treat the cycle's results as compromised"
)


class RecordsPin(BaseModel):
    """What a ``run.<phase>`` entry pins: the phase's attempts stored up to ``through``."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    v: Literal[1] = Field(default=1, description="Format version.")
    attempts: int = Field(ge=0, description="Attempts of the phase with seq ≤ through.")
    through: int = Field(ge=0, description="The store's last seq when pinned.")
    digest: str = Field(
        pattern=r"^[0-9a-f]{64}$", description="records_digest of those attempts (hex)."
    )


def records_digest(leaves: Iterable[tuple[str, int, bytes]]) -> str:
    """SHA-256 (hex) over the leaf hashes of ``(key, attempt, leaf)`` attempts in key, then
    attempt order (an order anyone can redo from the records alone)."""
    ordered = sorted(leaves, key=lambda x: (x[0], x[1]))
    h = hashlib.sha256(_SET_DOMAIN + len(ordered).to_bytes(8, "big"))
    for _, _, leaf in ordered:
        h.update(leaf)
    return h.hexdigest()


def record_mac(cycle: Cycle, leaf: bytes) -> str:
    """The MAC of a record's leaf hash under ``cycle``'s ledger key."""
    return cycle.ledger.mac(_MAC_DOMAIN + leaf)


def cycle_store(cycle: Cycle) -> TrialStore:
    """The trial store of ``cycle``, MACing every record it stores."""
    return TrialStore(cycle.paths.db, mac=lambda leaf: record_mac(cycle, leaf))


def last_pin(cycle: Cycle, phase: str) -> tuple[LedgerEntry, RecordsPin] | None:
    """The latest ``run.<phase>`` entry that pins records, and its pin (None: none yet)."""
    for entry in reversed(cycle.ledger.entries(f"run.{phase}")):
        if PIN_FIELD in entry.payload:
            try:
                return entry, RecordsPin.model_validate(entry.payload[PIN_FIELD])
            except ValueError:
                raise RunnerError(
                    f"ledger entry {entry.seq} (run.{phase}) carries a malformed records pin",
                    _COMPROMISED,
                ) from None
    return None


def _macs_required(cycle: Cycle) -> bool:
    first = cycle.ledger.entries("cycle.init")
    return bool(first and first[0].payload.get(TRIAL_MACS))


def _altered(row: StoredRow, why: str) -> RunnerError:
    c = row.columns
    return RunnerError(
        f"the {c['phase']} trial record {str(c['key'])[:16]}… (attempt {c['attempt']}) was "
        f"altered after it was stored ({why})",
        _COMPROMISED,
    )


def _check_row(row: StoredRow, *, macs: bool) -> None:
    if row.record.row() != row.columns:
        raise _altered(row, "its indexed columns differ from its record")
    if row.seq is None:
        raise _altered(row, "it has no place in the store's order")
    if row.mac is None:
        if macs:
            raise _altered(row, "it has no MAC")
        return
    if not row.signed:
        raise _altered(row, "its MAC does not verify")


def _one_valid(rows: list[StoredRow]) -> None:
    valid: set[str] = set()
    for row in rows:
        if row.record.outcome != "invalid":
            if row.record.key in valid:
                raise _altered(row, "its trial has a second valid attempt")
            valid.add(row.record.key)


def checked_rows(
    cycle: Cycle, store: TrialStore, phase: str, *, pinned_only: bool = False
) -> tuple[list[StoredRow], RecordsPin | None]:
    """The stored attempts of ``phase``, checked (see the module doc), and the pin they were
    checked against. ``pinned_only`` also refuses attempts stored after the last pin (what a
    release publishes must be pinned). Raises RunnerError at the first difference."""
    rows = store.rows(phase)
    macs = _macs_required(cycle)
    pinned = last_pin(cycle, phase)
    pin = pinned[1] if pinned else None
    through = pin.through if pin else -1
    for row in rows:
        _check_row(row, macs=macs)
    _one_valid(rows)
    if pinned is not None and pin is not None:
        entry = pinned[0]
        covered = [r for r in rows if r.seq is not None and r.seq <= pin.through]
        digest = records_digest((r.record.key, r.record.attempt, r.leaf) for r in covered)
        if len(covered) != pin.attempts or digest != pin.digest:
            raise RunnerError(
                f"the {phase} trial records differ from those ledger entry {entry.seq} "
                f"(run.{phase}) pinned: {len(covered)} attempts where it pinned "
                f"{pin.attempts}{', and another digest' if len(covered) == pin.attempts else ''}"
                " (a record was removed, added or altered)",
                _COMPROMISED,
            )
    late = [r for r in rows if r.seq is None or r.seq > through]
    if pinned_only and late:
        raise RunnerError(
            f"{len(late)} {phase} trial attempt(s) were stored after the last run.{phase} "
            "ledger entry (a run was stopped before it recorded them)",
            f"run `vwt run {phase} --home {cycle.home}` again: it records them",
        )
    return rows, pin


def pin_records(rows: list[StoredRow], through: int) -> RecordsPin:
    """The pin of checked ``rows`` (one phase's), as of the store's last seq ``through``."""
    covered = [r for r in rows if r.seq is not None and r.seq <= through]
    digest = records_digest((r.record.key, r.record.attempt, r.leaf) for r in covered)
    return RecordsPin(attempts=len(covered), through=through, digest=digest)


def pin_phase(
    cycle: Cycle, phase: str, store: TrialStore | None = None
) -> tuple[list[TrialRecord], RecordsPin]:
    """The checked records of ``phase`` (one per key, ``latest``) and the pin of every stored
    attempt of it: what a ``run.<phase>`` ledger entry carries under :data:`PIN_FIELD`."""
    rows, _ = checked_rows(cycle, store or cycle_store(cycle), phase)
    return latest(rows), pin_records(rows, max((r.seq or 0 for r in rows), default=0))


def latest(rows: Iterable[StoredRow]) -> list[TrialRecord]:
    """One record per key, in key order: its valid attempt if it has one, else its latest
    attempt (what ``TrialStore.records`` selects)."""
    best: dict[str, TrialRecord] = {}
    for row in rows:
        r, kept = row.record, best.get(row.record.key)
        if kept is None or (r.outcome != "invalid", r.attempt) > (
            kept.outcome != "invalid",
            kept.attempt,
        ):
            best[r.key] = r
    return [best[k] for k in sorted(best)]


def checked_records(
    cycle: Cycle, phase: str | None = None, *, pinned_only: bool = False
) -> list[TrialRecord]:
    """The records of ``phase`` (every phase when None), one per key as
    ``TrialStore.records`` selects them, after ``checked_rows`` found the store intact."""
    store = cycle_store(cycle)
    # a phase whose every record was deleted is no longer in the store: check it all the same
    phases = [phase] if phase is not None else sorted({"frozen", "adapted", *store.phases()})
    out: list[TrialRecord] = []
    for p in phases:
        if p not in ("frozen", "adapted"):
            raise RunnerError(
                f"the trial store of cycle {cycle.id} holds records of phase {p!r}, which no "
                "cycle run writes",
                _COMPROMISED,
            )
        rows, _ = checked_rows(cycle, store, p, pinned_only=pinned_only)
        out += latest(rows)
    return sorted(out, key=lambda r: r.key) if phase is None else out
