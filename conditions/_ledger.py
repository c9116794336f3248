"""The cycle's append-only, hash-chained ledger, in the cycle's SQLite database (WAL).

Each append also writes a checkpoint (sequence number and head hash, authenticated with an
HMAC key private to the operator), so that dropping the last entries, or an entry re-hashed
after an edit, is detected: a hash chain alone cannot tell a shortened ledger from a young one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from conditions._wire import Hex32, canonical, sha256_hex
from conditions.errors import ConditionsError
from drift import create_private_file, write_atomic

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


def _checked_entry(row: sqlite3.Row) -> LedgerEntry:
    try:
        return _entry(row)
    except ValueError:  # malformed payload JSON or field: an edit outside vwt
        raise ConditionsError(
            f"ledger entry {row['seq']} was altered after it was written", _RESTORE
        ) from None


class LedgerMark(NamedTuple):
    """Where a verified ledger ended: its last entry's seq and hash."""

    seq: int
    hash: str


class LedgerCheckpoint(BaseModel):
    """operator/ledger.checkpoint: the ledger's last entry, authenticated with the ledger key.

    An append writes it ``pending`` before its transaction commits and final after, so a crash
    in between leaves a ledger that still verifies: a pending checkpoint also accepts a ledger
    that ends one entry earlier, at ``prev``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    v: Literal[1] = Field(default=1, description="Format version.")
    seq: int = Field(ge=0, description="Sequence number of the last entry.")
    head: Hex32 = Field(description="Hash of that entry.")
    prev: Hex32 = Field(description="Hash of the entry before it (GENESIS for the first).")
    pending: bool = Field(description="Written before the append committed.")
    mac: Hex32 = Field(description="HMAC-SHA256 (hex) of the fields above under the ledger key.")

    @staticmethod
    def body(seq: int, head: str, prev: str, pending: bool) -> bytes:
        """The bytes the MAC covers."""
        fields = {"seq": seq, "head": head, "prev": prev, "pending": pending}
        return canonical({"v": 1, "domain": "vwt/ledger-checkpoint", **fields})

    def allows(self, last_seq: int | None, last_hash: str | None) -> bool:
        """Whether a ledger ending at ``last_seq`` (None: empty) with ``last_hash`` matches."""
        if (last_seq, last_hash) == (self.seq, self.head):
            return True
        before = (self.seq - 1 if self.seq else None, self.prev if self.seq else None)
        return self.pending and (last_seq, last_hash) == before


class Ledger:
    """Append-only, hash-chained event log shared by the operator, runner and reporter.

    Lives in its own ``ledger`` table of the cycle's SQLite file (created 0600); every call
    opens its own connection with a busy timeout, so several processes can append. With a
    ``checkpoint_dir`` (the cycle's operator/), every append also rewrites the checkpoint there
    and ``verify`` checks the ledger against it.
    """

    def __init__(self, db_path: Path, checkpoint_dir: Path | None = None) -> None:
        """Open (creating if needed, mode 0600) the ledger in ``db_path``."""
        self.db_path = db_path
        self.checkpoint_dir = checkpoint_dir
        self._mac_key: bytes | None = None
        create_private_file(db_path)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)

    @property
    def checkpoint_path(self) -> Path | None:
        """Where the checkpoint is, if this ledger keeps one."""
        return self.checkpoint_dir / "ledger.checkpoint" if self.checkpoint_dir else None

    @property
    def key_path(self) -> Path | None:
        """Where the checkpoint's HMAC key is, if this ledger keeps a checkpoint."""
        return self.checkpoint_dir / "ledger.key" if self.checkpoint_dir else None

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        try:
            db = sqlite3.connect(self.db_path, timeout=30.0, isolation_level=None)
        except sqlite3.Error as e:
            raise ConditionsError(f"cannot open the ledger {self.db_path}: {e}") from None
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
        processes cannot both make the same state transition. The ledger's end is checked
        against the checkpoint first, so an append never re-signs a shortened ledger.
        """
        ts = datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            previous: bytes | None = None
            wrote = False
            try:
                if expect_last is not None and self._last_hash(db, kind) != expect_last:
                    raise ConditionsError(
                        f"another process recorded a '{kind}' event meanwhile",
                        "check `vwt cycle status` and try again",
                    )
                last = db.execute(
                    "SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1"
                ).fetchone()
                self._check_end(last["seq"] if last else None, last["hash"] if last else None)
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
                if self.checkpoint_path is not None:
                    cp = self.checkpoint_path
                    previous = cp.read_bytes() if cp.exists() else None
                    wrote = True
                    self._write_checkpoint(seq, entry.hash, prev, pending=True)
                db.execute("COMMIT")
            except BaseException:
                # An interrupt can arrive as COMMIT returns: the entry is then committed and
                # the pending checkpoint, which verifies it (and the ledger without it), stays.
                if db.in_transaction:
                    db.execute("ROLLBACK")
                    if wrote:
                        self._restore_checkpoint(previous)
                raise
            if self.checkpoint_path is not None:
                self._finalise(db, entry)
        return entry

    def _finalise(self, db: sqlite3.Connection, entry: LedgerEntry) -> None:
        """Mark the checkpoint of a committed ``entry`` final, unless another append followed.

        Under the write lock, so it never overwrites a later append's checkpoint. A failure
        leaves the pending checkpoint, which verifies the committed entry as well.
        """
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error:
            return
        try:
            last = db.execute("SELECT max(seq) FROM ledger").fetchone()[0]
            if last == entry.seq:
                self._write_checkpoint(entry.seq, entry.hash, entry.prev, pending=False)
        except OSError:
            pass
        finally:
            db.execute("ROLLBACK")

    def _restore_checkpoint(self, previous: bytes | None) -> None:
        assert self.checkpoint_path is not None
        if previous is None:
            self.checkpoint_path.unlink(missing_ok=True)
        else:
            write_atomic(self.checkpoint_path, previous, 0o600)

    def _key(self, *, create: bool) -> bytes:
        path = self.key_path
        assert path is not None
        if create and not path.exists():
            create_private_file(path)
            if path.stat().st_size == 0:
                write_atomic(path, secrets.token_hex(32).encode() + b"\n", 0o600)
        try:
            text = path.read_text(encoding="ascii").strip()
            key = bytes.fromhex(text)
        except FileNotFoundError:
            raise ConditionsError(
                f"the ledger key {path} is missing, so the ledger cannot be checked", _RESTORE
            ) from None
        except (OSError, UnicodeDecodeError, ValueError):
            raise ConditionsError(
                f"the ledger key {path} is unreadable or altered", _RESTORE
            ) from None
        if len(key) != 32:
            raise ConditionsError(f"the ledger key {path} is altered (not 32 bytes)", _RESTORE)
        return key

    def _mac(self, seq: int, head: str, prev: str, pending: bool, *, create: bool = False) -> str:
        body = LedgerCheckpoint.body(seq, head, prev, pending)
        return hmac.new(self._key(create=create), body, hashlib.sha256).hexdigest()

    def mac(self, data: bytes) -> str:
        """HMAC-SHA256 (hex) of ``data`` under the ledger key, for records kept beside the
        ledger (the trial store's); ``data`` starts with a domain of the caller's own, so it
        never reads as a checkpoint (canonical JSON). ConditionsError if the key is missing."""
        if self._mac_key is None:  # read once: a reader MACs every stored record
            self._mac_key = self._key(create=False)
        return hmac.new(self._mac_key, data, hashlib.sha256).hexdigest()

    def _write_checkpoint(self, seq: int, head: str, prev: str, *, pending: bool) -> None:
        assert self.checkpoint_path is not None
        mac = self._mac(seq, head, prev, pending, create=seq == 0)
        cp = LedgerCheckpoint(seq=seq, head=head, prev=prev, pending=pending, mac=mac)
        write_atomic(self.checkpoint_path, cp.model_dump_json().encode() + b"\n", 0o600)

    def checkpoint(self) -> LedgerCheckpoint | None:
        """The authenticated checkpoint (None if this ledger keeps none, or none yet)."""
        path = self.checkpoint_path
        if path is None or not path.exists():
            return None
        try:
            cp = LedgerCheckpoint.model_validate_json(path.read_bytes())
        except (OSError, ValueError):
            raise ConditionsError(f"the ledger checkpoint {path} is malformed", _RESTORE) from None
        if not hmac.compare_digest(self._mac(cp.seq, cp.head, cp.prev, cp.pending), cp.mac):
            raise ConditionsError(
                f"the ledger checkpoint {path} was altered (its MAC does not verify)", _RESTORE
            )
        return cp

    def _check_end(self, last_seq: int | None, last_hash: str | None) -> None:
        """Raise unless the ledger ends exactly where the checkpoint says (if one is kept)."""
        if self.checkpoint_path is None:
            return
        cp = self.checkpoint()
        if cp is None:
            if last_seq is not None:
                raise ConditionsError(
                    f"the ledger checkpoint {self.checkpoint_path} is missing although the "
                    f"ledger holds entries 0..{last_seq}",
                    _RESTORE,
                )
            return
        if cp.allows(last_seq, last_hash):
            return
        if last_seq is None or cp.seq > last_seq:
            first = 0 if last_seq is None else last_seq + 1
            raise ConditionsError(
                f"ledger entry {first} is missing: the ledger ends at entry "
                f"{'-' if last_seq is None else last_seq} but its last checkpoint is at entry "
                f"{cp.seq} (entries {first}..{cp.seq} were removed)",
                _RESTORE,
            )
        if cp.seq < last_seq:
            raise ConditionsError(
                f"ledger entry {cp.seq + 1} was added outside vwt: the last checkpoint is at "
                f"entry {cp.seq} but the ledger ends at entry {last_seq}",
                _RESTORE,
            )
        raise ConditionsError(
            f"ledger entry {cp.seq} was altered after it was written (it differs from the "
            "last checkpoint)",
            _RESTORE,
        )

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

    def verify(self, since: LedgerMark | None = None) -> LedgerMark | None:
        """Check every entry's hash and link, then the end against the checkpoint; returns
        where the ledger ends (None when empty), to pass as ``since`` next time.

        With ``since`` (a mark this process verified before), only the entries after it are
        checked, and that the entry at the mark is still there unchanged with as many entries
        before it: what a long-running process (the HTTP service) checks per request. An edit
        of an entry before the mark that leaves the mark's own hash alone is found by the next
        whole check (every command's, and the service's at start).

        Raises ConditionsError naming the first entry that is missing, altered or unlinked.
        Runs under the write lock, so an append in flight is never mistaken for tampering.
        """
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                prev, first = GENESIS, 0
                if since is not None:
                    self._check_mark(db, since)
                    prev, first = since.hash, since.seq + 1
                rows = db.execute(
                    "SELECT * FROM ledger WHERE seq >= ? ORDER BY seq", (first,)
                ).fetchall()
                entries = [_checked_entry(r) for r in rows]
                for expected_seq, e in enumerate(entries, start=first):
                    if e.seq != expected_seq:
                        raise ConditionsError(f"ledger entry {expected_seq} is missing", _RESTORE)
                    if e.prev != prev:
                        raise ConditionsError(
                            f"ledger entry {e.seq} does not link to entry {e.seq - 1}", _RESTORE
                        )
                    if LedgerEntry.compute_hash(e.seq, e.ts, e.kind, e.payload, e.prev) != e.hash:
                        raise ConditionsError(
                            f"ledger entry {e.seq} was altered after it was written", _RESTORE
                        )
                    prev = e.hash
                end = LedgerMark(entries[-1].seq, entries[-1].hash) if entries else since
                self._check_end(end.seq if end else None, end.hash if end else None)
                return end
            finally:
                db.execute("ROLLBACK")

    @staticmethod
    def _check_mark(db: sqlite3.Connection, mark: LedgerMark) -> None:
        """Raise unless entries 0..mark.seq are all there and the last is the mark's."""
        count, last = db.execute(
            "SELECT COUNT(*), MAX(CASE WHEN seq = ? THEN hash END) FROM ledger WHERE seq <= ?",
            (mark.seq, mark.seq),
        ).fetchone()
        if count != mark.seq + 1:
            raise ConditionsError(
                f"ledger entries before entry {mark.seq + 1} were removed", _RESTORE
            )
        if last != mark.hash:
            raise ConditionsError(
                f"ledger entry {mark.seq} was altered after it was written", _RESTORE
            )


_RESTORE = (
    "the ledger was edited outside vwt: restore the home's vwt.sqlite and "
    "operator/ledger.checkpoint from a backup, or treat the cycle as compromised"
)
