"""The results store: trial records and traces in the cycle's SQLite database (WAL)."""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from runner._records import TrialRecord

_SCHEMA = """
CREATE TABLE IF NOT EXISTS trials (
    key TEXT PRIMARY KEY,
    cycle TEXT NOT NULL,
    phase TEXT NOT NULL,
    condition_id TEXT NOT NULL,
    arm TEXT NOT NULL,
    bundle_hash TEXT NOT NULL,
    task_id TEXT NOT NULL,
    trial INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS trials_cell ON trials (phase, condition_id, bundle_hash);
CREATE TABLE IF NOT EXISTS traces (sha256 TEXT PRIMARY KEY, body BLOB NOT NULL);
"""


class TrialStore:
    """Append-only trial records. Only the driver writes; workers return records."""

    def __init__(self, db_path: Path) -> None:
        """Open (creating if needed) the store's tables in ``db_path``."""
        self.path = db_path
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            with db:
                yield db
        finally:
            db.close()

    def insert(self, rows: Iterable[tuple[str, bytes]]) -> int:
        """Store (record JSON, compressed trace) pairs; existing keys are left alone."""
        n = 0
        with self._connect() as db:
            for record_json, trace in rows:
                record = TrialRecord.model_validate_json(record_json)
                cur = db.execute(
                    "INSERT OR IGNORE INTO trials VALUES (:key, :cycle, :phase, :condition_id, "
                    ":arm, :bundle_hash, :task_id, :trial, :outcome, :record)",
                    {**record.row(), "record": record_json},
                )
                db.execute(
                    "INSERT OR IGNORE INTO traces VALUES (?, ?)", (record.trace_sha256, trace)
                )
                n += cur.rowcount
        return n

    def keys(self, phase: str | None = None) -> set[str]:
        """Keys of stored trials (of one phase, if given)."""
        sql = "SELECT key FROM trials"
        args: tuple[str, ...] = ()
        if phase is not None:
            sql, args = sql + " WHERE phase = ?", (phase,)
        with self._connect() as db:
            return {k for (k,) in db.execute(sql, args)}

    def records(self, phase: str | None = None) -> list[TrialRecord]:
        """Stored trial records (of one phase, if given), in key order."""
        sql = "SELECT record FROM trials"
        args: tuple[str, ...] = ()
        if phase is not None:
            sql, args = sql + " WHERE phase = ?", (phase,)
        with self._connect() as db:
            rows = db.execute(sql + " ORDER BY key", args).fetchall()
        return [TrialRecord.model_validate_json(r) for (r,) in rows]

    def trace(self, sha256: str) -> bytes | None:
        """The trace (messages JSON) with this hash, or None."""
        with self._connect() as db:
            row = db.execute("SELECT body FROM traces WHERE sha256 = ?", (sha256,)).fetchone()
        return zlib.decompress(row[0]) if row else None
