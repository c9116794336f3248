"""The results store: every attempt of every trial, and traces, in the cycle's SQLite database.

A trial key may have several attempts (an invalid attempt is retried); ``(key, attempt)`` is
the primary key and at most one attempt per key is valid, both enforced by the schema. The
store is checked (``PRAGMA quick_check``) when opened, and a store of the first format (one row
per key) is migrated in place, its rows becoming attempt 1.

Each row also has its place in the order rows were stored (``seq``: what a ledger pin covers,
``runner._pin``) and, when the store is opened with a ``mac``, the MAC of its record. Records
are stored as their RFC 8785 canonical JSON, the bytes a record's leaf hash covers. A store
from before (no ``seq`` column) gets one, numbered in its rows' order, and no MACs.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import sqlite3
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import rfc8785
from pydantic import ValidationError

from benchmark import CachedReply, CacheEntry, CallDocument, ReplayCall, expand
from drift import create_private_file
from runner._records import TrialRecord
from runner.errors import RunnerError

_COLUMNS = (
    "key, attempt, cycle, phase, condition_id, arm, bundle_hash, task_id, trial, outcome, record"
)
_LEAF = b"vwt/trial-record\x00"

Mac = Callable[[bytes], str]
"""What authenticates a record: its leaf hash → a MAC (hex)."""


def canonical_record(record: TrialRecord) -> bytes:
    """The RFC 8785 canonical JSON of ``record`` (as stored, and as a release publishes it)."""
    return rfc8785.dumps(record.model_dump(mode="json"))


def record_leaf(canonical: bytes) -> bytes:
    """The leaf hash of a record's canonical JSON (what MACs and ledger pins cover)."""
    return hashlib.sha256(_LEAF + canonical).digest()


class StoredRow(NamedTuple):
    """One stored attempt as it is in the store: its indexed columns, place, MAC and record,
    the record's leaf hash, and whether the MAC is the record's under the store's ``mac``."""

    columns: dict[str, Any]
    seq: int | None
    mac: str | None
    record: TrialRecord
    leaf: bytes
    signed: bool


_TRIALS = """
CREATE TABLE IF NOT EXISTS trials (
    key TEXT NOT NULL,
    attempt INTEGER NOT NULL CHECK (attempt >= 1),
    cycle TEXT NOT NULL,
    phase TEXT NOT NULL,
    condition_id TEXT NOT NULL,
    arm TEXT NOT NULL,
    bundle_hash TEXT NOT NULL,
    task_id TEXT NOT NULL,
    trial INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    record TEXT NOT NULL,
    seq INTEGER,
    mac TEXT,
    PRIMARY KEY (key, attempt)
)"""
_INDEXES = (
    "CREATE UNIQUE INDEX IF NOT EXISTS trials_one_valid ON trials (key) WHERE outcome != 'invalid'",
    "CREATE INDEX IF NOT EXISTS trials_cell ON trials (phase, condition_id, bundle_hash)",
    "CREATE TABLE IF NOT EXISTS traces (sha256 TEXT PRIMARY KEY, body BLOB NOT NULL)",
    # Model call records: content-addressed blobs (messages, tool lists, call documents)...
    "CREATE TABLE IF NOT EXISTS blobs (sha256 TEXT PRIMARY KEY, body BLOB NOT NULL)",
    # ...and every reply the model made, by request hash: what `--cache` serves from.
    "CREATE TABLE IF NOT EXISTS replies (request_sha TEXT PRIMARY KEY, model TEXT NOT NULL, "
    "seed INTEGER NOT NULL, reply TEXT NOT NULL)",
    "CREATE INDEX IF NOT EXISTS replies_model_seed ON replies (model, seed)",
)
_RECOVER_HINT = (
    "restore the file from a backup, or save what is readable with "
    "`sqlite3 {path} .recover | sqlite3 recovered.sqlite` and move recovered.sqlite in its "
    "place; trials with a valid record are then not run again"
)
_DUPLICATES_SQL = (
    "SELECT key FROM trials WHERE outcome != 'invalid' GROUP BY key HAVING COUNT(*) > 1"
)
_LATEST = """
SELECT {columns} FROM (
    SELECT {columns}, ROW_NUMBER() OVER (
        PARTITION BY key ORDER BY outcome != 'invalid' DESC, attempt DESC
    ) AS pick
    FROM trials {where}
) WHERE pick = 1 ORDER BY key
"""
_ALTERED_HINT = (
    "restore the file from a backup (a changed record cannot be trusted), or run again on a "
    "fresh home"
)


def _store_error(path: Path, e: Exception) -> RunnerError:
    """The user-facing error for a SQLite or OS failure of the store at ``path``."""
    text = " ".join(str(e).split())  # SQLite's integrity reports span lines; errors are one
    if "disk is full" in text or getattr(e, "errno", None) == errno.ENOSPC:
        return RunnerError(
            f"the disk is full: cannot write the trial store {path}",
            "free some space and run the same command again; stored trials are kept",
        )
    if isinstance(e, sqlite3.IntegrityError) and "UNIQUE" in text:
        # only a hand-edited file gets here: the schema never lets a duplicate in
        return RunnerError(
            f"the trial store {path} holds a trial twice (two attempts with one number, or two "
            "valid attempts of one trial)",
            f'restore the file from a backup; `sqlite3 {path} "{_DUPLICATES_SQL}"` lists the '
            "trials held twice",
        )
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return RunnerError(
            f"the trial store {path} is corrupt ({text})", _RECOVER_HINT.format(path=path)
        )
    if "locked" in text or "busy" in text:
        return RunnerError(
            f"the trial store {path} is locked by another process",
            "wait for the other vwt process to finish, then run the command again",
        )
    return RunnerError(
        f"cannot use the trial store {path}: {text}",
        "check the file and its directory (permissions, free space)",
    )


class TrialStore:
    """Every attempt of every trial. Only the driver writes; workers return records."""

    def __init__(self, db_path: Path, *, mac: Mac | None = None) -> None:
        """Open ``db_path`` (created 0600 if absent), check it, and create or migrate the tables.

        With ``mac``, every record inserted carries the MAC of its leaf hash. Raises
        RunnerError if the file is corrupt or cannot be used.
        """
        self.path = db_path
        self.mac = mac
        try:
            create_private_file(db_path)
        except OSError as e:
            raise _store_error(db_path, e) from e
        with self._connect() as db:
            problems = [" ".join(row[0].split()) for row in db.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise RunnerError(
                    f"the trial store {db_path} is corrupt: {'; '.join(problems)}",
                    _RECOVER_HINT.format(path=db_path),
                )
        self._create_or_migrate()

    @contextmanager
    def _connect(self, *, autocommit: bool = False) -> Iterator[sqlite3.Connection]:
        try:
            db = sqlite3.connect(
                self.path, timeout=30, isolation_level=None if autocommit else "DEFERRED"
            )
            try:
                db.execute("PRAGMA journal_mode=WAL")
                with db:
                    yield db
            finally:
                db.close()
        except (sqlite3.DatabaseError, OSError) as e:
            raise _store_error(self.path, e) from e

    def _create_or_migrate(self) -> None:
        with self._connect(autocommit=True) as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                columns = [row[1] for row in db.execute("PRAGMA table_info(trials)")]
                if columns and "attempt" not in columns:
                    # The first format: key PRIMARY KEY, one row per trial. Its rows are attempt 1.
                    db.execute("DROP INDEX IF EXISTS trials_cell")
                    db.execute("ALTER TABLE trials RENAME TO trials_v1")
                    db.execute(_TRIALS)
                    db.execute(
                        f"INSERT INTO trials ({_COLUMNS}) SELECT "
                        f"{_COLUMNS.replace('attempt', '1')} FROM trials_v1"
                    )
                    db.execute("DROP TABLE trials_v1")
                    db.execute("UPDATE trials SET seq = rowid")
                elif columns and "seq" not in columns:
                    # The second format: no place or MAC. Its rows keep their order, unsigned.
                    db.execute("ALTER TABLE trials ADD COLUMN seq INTEGER")
                    db.execute("ALTER TABLE trials ADD COLUMN mac TEXT")
                    db.execute("UPDATE trials SET seq = rowid")
                db.execute(_TRIALS)
                try:
                    for statement in _INDEXES:
                        db.execute(statement)
                except sqlite3.IntegrityError:  # the one-valid-attempt index, dropped and broken
                    raise RunnerError(
                        f"the trial store {self.path} holds two valid attempts of one trial",
                        "the trial store was edited outside vwt: restore the home's vwt.sqlite "
                        "from a backup, or treat the cycle's results as compromised",
                    ) from None
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:  # not if an interrupt arrived as COMMIT returned
                    db.execute("ROLLBACK")
                raise

    def insert(
        self,
        rows: Iterable[tuple[TrialRecord, bytes]],
        *,
        blobs: Mapping[str, bytes] | None = None,
        replies: Iterable[CacheEntry] = (),
    ) -> int:
        """Store (record, compressed trace) pairs, each as the attempt its record names, with
        the call ``blobs`` their records name (hash → canonical JSON, kept once however many
        trials name one) and the model's ``replies`` (the cache), in one transaction.

        Raises RunnerError, storing none of ``rows``, if an attempt is already stored or a key
        would get a second valid attempt: the store never holds duplicates.
        """
        n = 0
        with self._connect() as db:
            known: set[str] = set()
            if blobs:
                wanted = list(blobs)
                for i in range(0, len(wanted), 500):
                    chunk = wanted[i : i + 500]
                    marks = ",".join("?" * len(chunk))
                    sql = f"SELECT sha256 FROM blobs WHERE sha256 IN ({marks})"
                    known.update(k for (k,) in db.execute(sql, chunk))
            db.executemany(
                "INSERT OR IGNORE INTO blobs VALUES (?, ?)",
                ((k, zlib.compress(v)) for k, v in (blobs or {}).items() if k not in known),
            )
            db.executemany(
                "INSERT OR IGNORE INTO replies VALUES (?, ?, ?, ?)",
                ((e.request_sha, e.model, e.seed, e.reply.model_dump_json()) for e in replies),
            )
            (last,) = db.execute("SELECT COALESCE(MAX(seq), 0) FROM trials").fetchone()
            for record, trace in rows:
                canonical = canonical_record(record)
                mac = self.mac(record_leaf(canonical)) if self.mac is not None else None
                try:
                    db.execute(
                        f"INSERT INTO trials ({_COLUMNS}, seq, mac) VALUES (:key, :attempt, "
                        ":cycle, :phase, :condition_id, :arm, :bundle_hash, :task_id, :trial, "
                        ":outcome, :record, :seq, :mac)",
                        {
                            **record.row(),
                            "record": canonical.decode(),
                            "seq": last + n + 1,
                            "mac": mac,
                        },
                    )
                except sqlite3.IntegrityError as e:
                    raise RunnerError(
                        f"the trial store {self.path} already holds attempt {record.attempt} "
                        f"(or a valid attempt) of trial {record.key}; nothing of this batch "
                        "was stored",
                        "make sure one vwt process at a time runs on this home, then run the "
                        "same command again",
                    ) from e
                db.execute(
                    "INSERT OR IGNORE INTO traces VALUES (?, ?)", (record.trace_sha256, trace)
                )
                n += 1
        return n

    def valid_keys(self) -> set[str]:
        """Keys with a valid attempt (outcome other than 'invalid'): trials that are done."""
        with self._connect() as db:
            rows = db.execute("SELECT key FROM trials WHERE outcome != 'invalid'")
            return {k for (k,) in rows}

    def last_attempts(self) -> dict[str, int]:
        """The highest stored attempt number of every key."""
        with self._connect() as db:
            return dict(db.execute("SELECT key, MAX(attempt) FROM trials GROUP BY key"))

    def records(self, phase: str | None = None) -> list[TrialRecord]:
        """One record per key (of one phase, if given), in key order: the key's latest valid
        attempt if it has one, else its latest attempt.

        Raises RunnerError if a stored record is unreadable or disagrees with its row."""
        where, args = ("WHERE phase = ?", (phase,)) if phase is not None else ("", ())
        with self._connect() as db:
            sql = _LATEST.format(columns=_COLUMNS, where=where)
            return self._parsed(db.execute(sql, args).fetchall())

    def attempts(self, phase: str | None = None) -> list[TrialRecord]:
        """Every stored attempt (of one phase, if given), by key then attempt.

        Raises RunnerError if a stored record is unreadable or disagrees with its row."""
        where, args = ("WHERE phase = ?", (phase,)) if phase is not None else ("", ())
        with self._connect() as db:
            sql = f"SELECT {_COLUMNS} FROM trials {where} ORDER BY key, attempt"
            return self._parsed(db.execute(sql, args).fetchall())

    def _parsed(self, rows: list[tuple[object, ...]]) -> list[TrialRecord]:
        """The records of ``rows`` (the columns of ``_COLUMNS``), each checked against its
        indexed columns: a record copied onto another row, or edited without them, is caught
        here instead of counting twice or going unnoticed."""
        names = [c.strip() for c in _COLUMNS.split(",")]
        out = []
        for values in rows:
            columns = dict(zip(names, values, strict=True))
            where = f"trial {columns['key']} attempt {columns['attempt']}"
            try:
                record = TrialRecord.model_validate_json(str(columns.pop("record")))
            except ValidationError as e:
                problem = e.errors()[0]["msg"] if e.errors() else "not a trial record"
                raise RunnerError(
                    f"the trial store {self.path} holds an unreadable record ({where}: {problem})",
                    _ALTERED_HINT,
                ) from None
            if record.row() != columns:
                raise RunnerError(
                    f"the trial store {self.path} holds a record that is not its row's ({where}"
                    f" holds trial {record.key} attempt {record.attempt}): it was copied or "
                    "edited",
                    _ALTERED_HINT,
                )
            out.append(record)
        return out

    def blob(self, sha256: str) -> bytes | None:
        """The call blob (canonical JSON) with this hash, or None if absent or altered."""
        with self._connect() as db:
            row = db.execute("SELECT body FROM blobs WHERE sha256 = ?", (sha256,)).fetchone()
        if row is None:
            return None
        try:
            data = zlib.decompress(row[0])
        except (zlib.error, TypeError):
            return None  # altered: the callers say the record is missing or altered
        return data if hashlib.sha256(data).hexdigest() == sha256 else None

    def calls(self, sha256: str) -> tuple[ReplayCall, ...] | None:
        """The model calls of the call document with this hash, every blob resolved; None if
        the document or a blob it names is missing or altered."""
        data = self.blob(sha256)
        if data is None:
            return None
        document = CallDocument.model_validate_json(data)
        values = {}
        for h in document.blob_hashes():
            blob = self.blob(h)
            if blob is None:
                return None
            values[h] = json.loads(blob)
        return expand(document, values)

    def cached_replies(self, model: str, seeds: Iterable[int]) -> dict[str, CachedReply]:
        """The model's recorded replies to requests with one of these seeds, by request hash."""
        wanted = sorted(set(seeds))
        out: dict[str, CachedReply] = {}
        with self._connect() as db:
            for i in range(0, len(wanted), 500):
                chunk = wanted[i : i + 500]
                marks = ",".join("?" * len(chunk))
                sql = (
                    f"SELECT request_sha, reply FROM replies WHERE model = ? AND seed IN ({marks})"
                )
                for sha, reply in db.execute(sql, [model, *chunk]):
                    out[sha] = CachedReply.model_validate_json(reply)
        return out

    def phases(self) -> list[str]:
        """The phases the store holds records of, sorted."""
        with self._connect() as db:
            return [p for (p,) in db.execute("SELECT DISTINCT phase FROM trials ORDER BY phase")]

    def rows(self, phase: str | None = None) -> list[StoredRow]:
        """Every stored attempt (of one phase, if given) as it is stored, by key then attempt;
        RunnerError naming the first whose record does not parse."""
        where, args = ("WHERE phase = ?", (phase,)) if phase is not None else ("", ())
        names = ["key", "attempt", "cycle", "phase", "condition_id", "arm", "bundle_hash"]
        names += ["task_id", "trial", "outcome"]
        with self._connect() as db:
            sql = f"SELECT {', '.join(names)}, seq, mac, record FROM trials {where}"
            rows = db.execute(sql + " ORDER BY key, attempt", args).fetchall()
        out = []
        for *values, seq, mac, text in rows:
            columns = dict(zip(names, values, strict=True))
            try:
                record = TrialRecord.model_validate_json(text)
            except ValidationError:
                raise RunnerError(
                    f"the trial store {self.path} holds a malformed record (trial "
                    f"{str(columns['key'])[:16]}…, attempt {columns['attempt']})",
                    "it was edited outside vwt: restore the store from a backup, or treat the "
                    "cycle's results as compromised",
                ) from None
            out.append(StoredRow(columns, seq, mac, record, *self._leaf(text, record, mac)))
        return out

    def _leaf(self, text: str, record: TrialRecord, mac: str | None) -> tuple[bytes, bool]:
        """The leaf hash of a stored record and whether ``mac`` is its MAC. A record stored by
        this vwt is canonical JSON already: when the MAC of its text verifies, its text is the
        canonical form and is not computed again (the slow part of reading)."""
        if mac is None or self.mac is None:
            return record_leaf(canonical_record(record)), False
        raw = record_leaf(text.encode())
        if hmac.compare_digest(self.mac(raw), mac):
            return raw, True
        leaf = record_leaf(canonical_record(record))
        return leaf, hmac.compare_digest(self.mac(leaf), mac)

    def trace(self, sha256: str) -> bytes | None:
        """The trace (messages JSON) with this hash, or None.

        Raises RunnerError if the stored trace does not decompress."""
        with self._connect() as db:
            row = db.execute("SELECT body FROM traces WHERE sha256 = ?", (sha256,)).fetchone()
        if row is None:
            return None
        try:
            return zlib.decompress(row[0])
        except (zlib.error, TypeError) as e:
            raise RunnerError(
                f"the trial store {self.path} holds a corrupt trace {sha256[:16]}… ({e})",
                _ALTERED_HINT,
            ) from None
