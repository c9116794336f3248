"""Ctrl-C delivered as a ledger's COMMIT returns, for tests of what an append leaves."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from conditions import Ledger


class _InterruptedAtCommit:
    """A connection whose COMMIT goes through, then KeyboardInterrupt is raised before it
    returns to the caller (a signal is handled at the next bytecode after the C call)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    def execute(self, sql: str, *args: Any) -> Any:
        cursor = self._db.execute(sql, *args)
        if sql == "COMMIT":
            raise KeyboardInterrupt
        return cursor


def interrupt_ledger_commits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ledger append commits, then raises KeyboardInterrupt (until monkeypatch.undo)."""
    connect = Ledger._connect

    @contextmanager
    def interrupted(self: Ledger) -> Iterator[Any]:
        with connect(self) as db:
            yield _InterruptedAtCommit(db)

    monkeypatch.setattr(Ledger, "_connect", interrupted)
