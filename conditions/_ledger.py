"""The cycle's append-only, hash-chained ledger, in the cycle's SQLite database (WAL)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from conditions._wire import canonical, sha256_hex
from conditions.errors import ConditionsError

GENESIS = "0" * 64
"""The ``prev`` of the first entry."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS ledger (
    seq INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    prev TEXT NOT NULL,
    hash TEXT NOT NULL UNIQUE
);
CREATE INDEX IF NOT EXISTS ledger_kind ON ledger (kind, seq);
"""


class LedgerEntry(BaseModel):
    """One ledger record; its hash covers every other field, including the previous hash."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Format version.")
    seq: int = Field(description="Position in the ledger, from 0.")
    ts: str = Field(description="When it was appended (RFC 3339, UTC).")
    kind: str = Field(description="Event kind, e.g. 'cycle.state' or 'conditions.committed'.")
    payload: dict[str, Any] = Field(description="Event data (JSON).")
    prev: str = Field(description="Hash of the previous entry (64 zeros for the first).")
    hash: str = Field(description="SHA-256 of the canonical JSON of all the fields above.")

    @staticmethod
    def compute_hash(seq: int, ts: str, kind: str, payload: dict[str, Any], prev: str) -> str:
        """The hash an entry with these fields must carry."""
        body = {"v": 1, "seq": seq, "ts": ts, "kind": kind, "payload": payload, "prev": prev}
        return sha256_hex(canonical(body))


def _entry(row: sqlite3.Row) -> LedgerEntry:
    return LedgerEntry(
        seq=row["seq"],
        ts=row["ts"],
        kind=row["kind"],
        payload=json.loads(row["payload"]),
        prev=row["prev"],
        hash=row["hash"],
    )


class Ledger:
    """Append-only, hash-chained event log shared by the operator, runner and reporter.

    Lives in its own ``ledger`` table of the cycle's SQLite file; every call opens its own
    connection with a busy timeout, so several processes can append.
    """

    def __init__(self, db_path: Path) -> None:
        """Open (creating if needed) the ledger in ``db_path``."""
        self.db_path = db_path
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.db_path, timeout=30.0, isolation_level=None)
        db.row_factory = sqlite3.Row
        try:
            yield db
        finally:
            db.close()

    def append(
        self, kind: str, payload: dict[str, Any], *, expect_last: str | None = None
    ) -> LedgerEntry:
        """Append an event; with ``expect_last``, only if the last ``kind`` entry has that hash.

        ``payload`` must be RFC 8785-serialisable: JSON without NaN or infinities, integers
        within +-2**53.

        ``expect_last`` (GENESIS for "none yet") makes check-then-append atomic, so two
        processes cannot both make the same state transition.
        """
        ts = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                if expect_last is not None and self._last_hash(db, kind) != expect_last:
                    raise ConditionsError(
                        f"another process recorded a '{kind}' event meanwhile",
                        "check `vwt cycle status` and try again",
                    )
                last = db.execute(
                    "SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1"
                ).fetchone()
                seq, prev = (last["seq"] + 1, last["hash"]) if last else (0, GENESIS)
                text = canonical(payload).decode()
                entry = LedgerEntry(
                    seq=seq,
                    ts=ts,
                    kind=kind,
                    payload=json.loads(text),
                    prev=prev,
                    hash=LedgerEntry.compute_hash(seq, ts, kind, json.loads(text), prev),
                )
                db.execute(
                    "INSERT INTO ledger (seq, ts, kind, payload, prev, hash) VALUES (?,?,?,?,?,?)",
                    (seq, ts, kind, text, prev, entry.hash),
                )
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return entry

    @staticmethod
    def _last_hash(db: sqlite3.Connection, kind: str) -> str:
        row = db.execute(
            "SELECT hash FROM ledger WHERE kind = ? ORDER BY seq DESC LIMIT 1", (kind,)
        ).fetchone()
        return str(row["hash"]) if row else GENESIS

    def entries(self, kind: str | None = None) -> list[LedgerEntry]:
        """All entries in order, or only those of ``kind``."""
        with self._connect() as db:
            if kind is None:
                rows = db.execute("SELECT * FROM ledger ORDER BY seq").fetchall()
            else:
                rows = db.execute(
                    "SELECT * FROM ledger WHERE kind = ? ORDER BY seq", (kind,)
                ).fetchall()
        return [_entry(r) for r in rows]

    def last(self, kind: str) -> LedgerEntry | None:
        """The latest entry of ``kind``, if any."""
        with self._connect() as db:
            row = db.execute(
                "SELECT * FROM ledger WHERE kind = ? ORDER BY seq DESC LIMIT 1", (kind,)
            ).fetchone()
        return _entry(row) if row else None

    def head(self) -> str:
        """Hash of the latest entry (GENESIS for an empty ledger): commits to the whole history."""
        with self._connect() as db:
            row = db.execute("SELECT hash FROM ledger ORDER BY seq DESC LIMIT 1").fetchone()
        return str(row["hash"]) if row else GENESIS

    def verify(self) -> None:
        """Check every entry's hash and link; raise ConditionsError at the first break."""
        prev = GENESIS
        for expected_seq, e in enumerate(self.entries()):
            if e.seq != expected_seq:
                raise ConditionsError(f"ledger entry {expected_seq} is missing", _TAMPERED)
            if e.prev != prev:
                raise ConditionsError(
                    f"ledger entry {e.seq} does not link to entry {e.seq - 1}", _TAMPERED
                )
            if LedgerEntry.compute_hash(e.seq, e.ts, e.kind, e.payload, e.prev) != e.hash:
                raise ConditionsError(
                    f"ledger entry {e.seq} was altered after it was written", _TAMPERED
                )
            prev = e.hash


_TAMPERED = "the ledger was edited outside vwt; restore it from a backup"
