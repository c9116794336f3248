"""Submitter and operator accounts of the service, their tokens, and who owns which name.

Accounts live in two tables of the cycle's SQLite file (beside the ledger, WAL, mode 0600):
``service_accounts`` (name, role, SHA-256 of the token, created and revoked times) and
``service_owners`` (submission name -> the account that first used it). A token is shown once,
when the account is added, and only its SHA-256 is stored. Adding and revoking an account is
recorded in the ledger as ``service.account`` (name, role, action; never the token or its hash).

Operator accounts read the operator routes; they never own a submission name nor submit
(``bind`` refuses them, and the server checks the role of every route). A revoked account keeps
its names, so no one else can take them, and its name cannot be added again.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import re
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from conditions import CycleHome, Ledger
from service.errors import ServiceError
from submissions import Name

ACCOUNT_EVENT = "service.account"
"""Ledger kind of an account added or revoked; payload ``{"name", "role", "action"}``."""

TOKEN_PREFIX = "vwt_"
"""Every token starts with this, then 43 base64url characters (32 random bytes)."""
_TOKEN = re.compile(r"vwt_[A-Za-z0-9_-]{43}")

Role = Literal["submitter", "operator"]
"""What an account may do: submit and read its own things, or read the operator routes."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS service_accounts (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('submitter', 'operator')),
    token_sha256 TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    revoked_at TEXT
);
CREATE TABLE IF NOT EXISTS service_owners (
    submission TEXT PRIMARY KEY,
    account TEXT NOT NULL REFERENCES service_accounts (name),
    bound_at TEXT NOT NULL
);
"""

_NAME = TypeAdapter(Name)


class Account(BaseModel):
    """One account of the service (never its token)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: Name = Field(description="Account name: 1-64 of [a-z0-9._-], like a submission name.")
    role: Role = Field(description="'submitter' (uploads, sees its own) or 'operator'.")
    created_at: str = Field(description="When it was added (RFC 3339, UTC).")
    revoked_at: str | None = Field(description="When it was revoked (RFC 3339, UTC), or None.")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _account(row: sqlite3.Row) -> Account:
    return Account(
        name=row["name"],
        role=row["role"],
        created_at=row["created_at"],
        revoked_at=row["revoked_at"],
    )


class Accounts:
    """The accounts and name owners of the cycle in ``home``; tables made on first use.

    Every call opens its own connection with a busy timeout, and every write is one
    ``BEGIN IMMEDIATE`` transaction, so threads and processes may call it at once.
    """

    def __init__(self, home: Path) -> None:
        """Use the cycle in ``home``; refuses a home with no cycle (404 not_found).

        Its privacy and its ledger are not checked here: open the home with ``Cycle.open`` first.
        """
        paths = CycleHome(home)
        if not paths.record.exists():
            raise ServiceError(
                f"no release cycle in {home}",
                "pass the --home of the operator's cycle (or VWT_HOME)",
                status=404,
                code="not_found",
            )
        self.db_path = paths.db
        self.ledger = Ledger(paths.db, paths.operator)  # creates the file 0600, WAL
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.db_path, timeout=30.0, isolation_level=None)
        db.row_factory = sqlite3.Row
        try:
            yield db
        finally:
            db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken before anything is read."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                if db.in_transaction:  # not if an interrupt arrived as COMMIT returned
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def add(self, name: str, *, role: Role = "submitter") -> str:
        """Add account ``name``; returns its token, which is stored only as a SHA-256.

        Refuses a malformed name (400 bad_request) and a name already added, even if revoked
        (409 conflict). The addition is recorded in the ledger.
        """
        try:
            _NAME.validate_python(name)
        except ValidationError:
            raise ServiceError(
                f"{name!r} is not a valid account name",
                "use 1-64 lower-case letters, digits, '.', '_' or '-', starting with a letter "
                "or digit",
            ) from None
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self._write() as db:
            if db.execute("SELECT 1 FROM service_accounts WHERE name = ?", (name,)).fetchone():
                raise ServiceError(
                    f"account {name} already exists",
                    "pick another name; a revoked account's name is not reused, so the names "
                    "it owns stay its own",
                    status=409,
                    code="conflict",
                )
            db.execute(
                "INSERT INTO service_accounts (name, role, token_sha256, created_at) "
                "VALUES (?, ?, ?, ?)",
                (name, role, _digest(token), _now()),
            )
        self._record(name, role, "add", undo="DELETE FROM service_accounts WHERE name = ?")
        return token

    def revoke(self, name: str) -> None:
        """Revoke account ``name``: its token stops working at once; recorded in the ledger.

        Unknown names are refused (404 not_found); revoking a revoked account does nothing.
        """
        with self._write() as db:
            row = db.execute(
                "SELECT role, revoked_at FROM service_accounts WHERE name = ?", (name,)
            ).fetchone()
            if row is None:
                raise ServiceError(
                    f"no account {name!r}",
                    "see `vwt submitters list` for the accounts",
                    status=404,
                    code="not_found",
                )
            if row["revoked_at"] is not None:
                return
            db.execute("UPDATE service_accounts SET revoked_at = ? WHERE name = ?", (_now(), name))
        self._record(
            name,
            row["role"],
            "revoke",
            undo="UPDATE service_accounts SET revoked_at = NULL WHERE name = ?",
        )

    def _record(self, name: str, role: str, action: str, *, undo: str) -> None:
        """Append the ledger entry of a committed change; undo the change if that fails
        (not if the entry was committed and an interrupt arrived after)."""
        payload = {"name": name, "role": role, "action": action}
        before = self.ledger.last(ACCOUNT_EVENT)
        try:
            self.ledger.append(ACCOUNT_EVENT, payload)
        except BaseException:
            last = self.ledger.last(ACCOUNT_EVENT)
            if last is not None and last.payload == payload and last != before:
                raise
            with self._write() as db:
                db.execute(undo, (name,))
            raise

    def list(self) -> builtins.list[Account]:
        """Every account, revoked ones included, in the order they were added."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT name, role, created_at, revoked_at FROM service_accounts ORDER BY rowid"
            ).fetchall()
        return [_account(r) for r in rows]

    def authenticate(self, token: str | None) -> Account | None:
        """The live account whose token this is; None if missing, malformed, unknown or revoked."""
        if token is None or not _TOKEN.fullmatch(token):
            return None
        digest = _digest(token)
        with self._connect() as db:
            row = db.execute(
                "SELECT * FROM service_accounts WHERE token_sha256 = ?", (digest,)
            ).fetchone()
        if row is None or not hmac.compare_digest(row["token_sha256"], digest):
            return None
        return None if row["revoked_at"] is not None else _account(row)

    def owner(self, submission_name: str) -> str | None:
        """The account that owns ``submission_name`` (the first to use it), or None."""
        with self._connect() as db:
            row = db.execute(
                "SELECT account FROM service_owners WHERE submission = ?", (submission_name,)
            ).fetchone()
        return None if row is None else str(row["account"])

    def bind(self, submission_name: str, account_name: str) -> None:
        """Make ``account_name`` the owner of ``submission_name`` unless someone owns it.

        Does nothing if that account owns it already; raises ServiceError 403 forbidden if
        another account does, or if ``account_name`` is not a live submitter account. Check and
        write are one transaction, so of concurrent first uses exactly one wins.
        """
        with self._write() as db:
            account = db.execute(
                "SELECT role, revoked_at FROM service_accounts WHERE name = ?", (account_name,)
            ).fetchone()
            if account is None or account["role"] != "submitter" or account["revoked_at"]:
                raise ServiceError(
                    f"account {account_name!r} cannot own submissions",
                    "only live submitter accounts submit; see `vwt submitters list`",
                    status=403,
                    code="forbidden",
                )
            row = db.execute(
                "SELECT account FROM service_owners WHERE submission = ?", (submission_name,)
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO service_owners (submission, account, bound_at) VALUES (?, ?, ?)",
                    (submission_name, account_name, _now()),
                )
            elif row["account"] != account_name:
                raise ServiceError(
                    f"submission name {submission_name} belongs to another submitter",
                    "pick another name in vwt-bundle.json",
                    status=403,
                    code="forbidden",
                )
