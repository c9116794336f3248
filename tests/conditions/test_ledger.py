"""The ledger: a hash chain in SQLite that detects edits, shared with other tables and writers."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from conditions import GENESIS, ConditionsError, Ledger, LedgerEntry


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    led = Ledger(tmp_path / "vwt.sqlite")
    for i in range(4):
        led.append("event", {"i": i, "x": 0.5, "nested": {"b": [1, 2], "a": None}})
    return led


def _sql(ledger: Ledger, statement: str) -> None:
    db = sqlite3.connect(ledger.db_path)
    db.execute(statement)
    db.commit()
    db.close()


def test_entries_link_to_their_predecessor(ledger: Ledger) -> None:
    entries = ledger.entries()
    assert [e.seq for e in entries] == [0, 1, 2, 3]
    assert entries[0].prev == GENESIS
    for before, after in itertools.pairwise(entries):
        assert after.prev == before.hash
    for e in entries:
        assert e.hash == LedgerEntry.compute_hash(e.seq, e.ts, e.kind, e.payload, e.prev)
        assert e.ts.endswith("Z")
    assert ledger.head() == entries[-1].hash
    ledger.verify()


def test_empty_ledger_head_is_genesis(tmp_path: Path) -> None:
    led = Ledger(tmp_path / "x.sqlite")
    assert led.head() == GENESIS and led.entries() == [] and led.last("any") is None
    led.verify()


def test_altered_payload_is_detected(ledger: Ledger) -> None:
    _sql(ledger, "UPDATE ledger SET payload = '{\"i\":9}' WHERE seq = 1")
    with pytest.raises(ConditionsError, match="entry 1 was altered"):
        ledger.verify()


def test_removed_entry_is_detected(ledger: Ledger) -> None:
    _sql(ledger, "DELETE FROM ledger WHERE seq = 2")
    with pytest.raises(ConditionsError, match="entry 2 is missing"):
        ledger.verify()


def test_rechained_entry_is_detected(ledger: Ledger) -> None:
    _sql(ledger, f"UPDATE ledger SET prev = '{GENESIS}' WHERE seq = 3")
    with pytest.raises(ConditionsError, match="entry 3 does not link"):
        ledger.verify()


def test_conditional_append_refuses_when_another_writer_moved_on(ledger: Ledger) -> None:
    last = ledger.last("state")
    assert last is None
    ledger.append("state", {"to": "a"}, expect_last=GENESIS)
    with pytest.raises(ConditionsError, match="another process"):
        ledger.append("state", {"to": "b"}, expect_last=GENESIS)
    assert [e.payload["to"] for e in ledger.entries("state")] == ["a"]
    # Events of other kinds in between do not conflict.
    current = ledger.last("state")
    assert current is not None
    ledger.append("trial", {"n": 1})
    ledger.append("state", {"to": "b"}, expect_last=current.hash)
    ledger.verify()


def test_two_writers_share_one_chain_next_to_other_tables(tmp_path: Path) -> None:
    db = tmp_path / "vwt.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE trials (key TEXT PRIMARY KEY)")
    conn.execute("INSERT INTO trials VALUES ('t1')")
    conn.commit()
    conn.close()
    a, b = Ledger(db), Ledger(db)
    for i in range(5):
        (a if i % 2 else b).append("event", {"i": i})
    assert [e.payload["i"] for e in a.entries()] == list(range(5))
    a.verify()
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT key FROM trials").fetchall() == [("t1",)]
    assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    conn.close()
