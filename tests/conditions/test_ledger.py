"""The ledger: a hash chain in SQLite that detects edits, shared with other tables and writers."""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from conditions import GENESIS, ConditionsError, Ledger, LedgerEntry, LedgerMark
from tests.conditions._interrupt import interrupt_ledger_commits


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


def test_a_check_since_a_mark_checks_what_came_after(ledger: Ledger) -> None:
    mark = ledger.verify()
    assert mark == LedgerMark(3, ledger.head())
    assert ledger.verify(mark) == mark  # nothing new
    ledger.append("event", {"i": 4})
    assert ledger.verify(mark) == LedgerMark(4, ledger.head())
    _sql(ledger, "UPDATE ledger SET payload = '{\"i\":9}' WHERE seq = 4")
    with pytest.raises(ConditionsError, match="entry 4 was altered"):
        ledger.verify(mark)


@pytest.mark.parametrize(
    ("statement", "says"),
    [
        (  # another first digit, whatever the hash's was (a hash starting with f: no change)
            "UPDATE ledger SET hash = (CASE substr(hash, 1, 1) WHEN 'f' THEN 'e' ELSE 'f' END)"
            " || substr(hash, 2) WHERE seq = 3",
            "entry 3 was altered",
        ),
        ("DELETE FROM ledger WHERE seq = 1", "entries before entry 4 were removed"),
        ("DELETE FROM ledger WHERE seq = 3", "entries before entry 4 were removed"),
    ],
    ids=["mark-altered", "earlier-removed", "mark-removed"],
)
def test_a_check_since_a_mark_finds_the_mark_changed(
    ledger: Ledger, statement: str, says: str
) -> None:
    mark = ledger.verify()
    _sql(ledger, statement)
    with pytest.raises(ConditionsError, match=says):
        ledger.verify(mark)


def test_an_earlier_edit_is_left_to_the_whole_check(ledger: Ledger) -> None:
    """The trade the mark makes: an edited payload before it is found by a whole check."""
    mark = ledger.verify()
    _sql(ledger, "UPDATE ledger SET payload = '{\"i\":9}' WHERE seq = 1")
    assert ledger.verify(mark) == mark
    with pytest.raises(ConditionsError, match="entry 1 was altered"):
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


# -- the checkpoint: the ledger's end, authenticated ------------------------------------------


@pytest.fixture
def kept(tmp_path: Path) -> Ledger:
    """A ledger of 5 entries keeping its checkpoint in a private operator/ directory."""
    (tmp_path / "operator").mkdir(mode=0o700)
    led = Ledger(tmp_path / "vwt.sqlite", tmp_path / "operator")
    for i in range(5):
        led.append("event", {"i": i})
    return led


def _rehash_last(ledger: Ledger, payload: str) -> None:
    """Edit the last entry and recompute its hash, so the chain alone still holds."""
    last = ledger.entries()[-1]
    new = LedgerEntry.compute_hash(last.seq, last.ts, last.kind, json.loads(payload), last.prev)
    _sql(ledger, f"UPDATE ledger SET payload = '{payload}', hash = '{new}' WHERE seq = {last.seq}")


def test_every_append_writes_an_authenticated_private_checkpoint(kept: Ledger) -> None:
    cp = kept.checkpoint()
    assert cp is not None and cp.seq == 4 and cp.head == kept.head()
    assert kept.checkpoint_path and kept.key_path
    for path in (kept.checkpoint_path, kept.key_path, kept.db_path):
        assert path.stat().st_mode & 0o777 == 0o600
    kept.append("event", {"i": 5})
    assert (kept.checkpoint() or cp).seq == 5
    kept.verify()


def test_a_deleted_last_entry_is_caught_and_never_resigned(kept: Ledger) -> None:
    _sql(kept, "DELETE FROM ledger WHERE seq = 4")
    with pytest.raises(ConditionsError, match=r"ledger entry 4 is missing.*ends at entry 3") as e:
        kept.verify()
    assert e.value.hint and "backup" in e.value.hint
    with pytest.raises(ConditionsError, match="ledger entry 4 is missing"):
        kept.append("event", {"i": "replacement"})
    assert len(kept.entries()) == 4


def test_a_rehashed_last_entry_is_caught(kept: Ledger) -> None:
    _rehash_last(kept, '{"i":99}')
    with pytest.raises(ConditionsError, match=r"ledger entry 4 was altered.*checkpoint"):
        kept.verify()


def test_an_entry_added_outside_vwt_is_caught(kept: Ledger) -> None:
    Ledger(kept.db_path).append("event", {"forged": True})  # no checkpoint kept
    with pytest.raises(ConditionsError, match="ledger entry 5 was added outside vwt"):
        kept.verify()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p: p.write_text(p.read_text().replace('"seq":4', '"seq":3')), "was altered"),
        (lambda p: p.write_text("{"), "is malformed"),
        (lambda p: p.unlink(), "checkpoint .* is missing"),
    ],
)
def test_an_edited_or_removed_checkpoint_is_caught(
    kept: Ledger, edit: Callable[[Path], object], message: str
) -> None:
    assert kept.checkpoint_path is not None
    edit(kept.checkpoint_path)
    with pytest.raises(ConditionsError, match=message):
        kept.verify()


def test_a_lost_ledger_key_is_caught(kept: Ledger) -> None:
    assert kept.key_path is not None
    kept.key_path.unlink()
    with pytest.raises(ConditionsError, match=r"ledger key .* is missing"):
        kept.verify()


def test_concurrent_writers_keep_ledger_and_checkpoint_in_step(kept: Ledger) -> None:
    errors: list[Exception] = []

    def guarded(work: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                work()
            except Exception as e:  # collected: an exception in a thread would pass silently
                errors.append(e)

        return run

    def writer(n: int) -> Callable[[], None]:
        def write() -> None:
            own = Ledger(kept.db_path, kept.checkpoint_dir)
            for i in range(10):
                own.append("event", {"writer": n, "i": i})

        return write

    def check() -> None:
        for _ in range(20):
            Ledger(kept.db_path, kept.checkpoint_dir).verify()

    work = [writer(n) for n in range(3)] + [check]
    threads = [threading.Thread(target=guarded(w)) for w in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(kept.entries()) == 35
    kept.verify()


def test_the_database_is_created_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    reader = None
    try:
        led = Ledger(tmp_path / "vwt.sqlite")
        reader = sqlite3.connect(led.db_path)  # keeps the -wal and -shm files in place
        reader.execute("SELECT count(*) FROM ledger").fetchone()
        led.append("event", {"i": 1})
        modes = {
            s: (tmp_path / f"vwt.sqlite{s}").stat().st_mode & 0o777 for s in ("", "-wal", "-shm")
        }
    finally:
        os.umask(old)
        if reader is not None:
            reader.close()
    assert modes == {"": 0o600, "-wal": 0o600, "-shm": 0o600}


def test_a_crash_between_checkpoint_and_commit_leaves_a_working_ledger(kept: Ledger) -> None:
    # What a kill -9 after the pending checkpoint but before COMMIT leaves behind.
    head = kept.head()
    kept._write_checkpoint(5, "ab" * 32, head, pending=True)
    kept.verify()
    kept.append("event", {"i": 5})
    cp = kept.checkpoint()
    assert cp is not None and cp.seq == 5 and not cp.pending and cp.head == kept.head()
    kept.verify()
    # Once final, the same shortening is tampering again.
    _sql(kept, "DELETE FROM ledger WHERE seq = 5")
    with pytest.raises(ConditionsError, match="ledger entry 5 is missing"):
        kept.verify()


def test_an_interrupt_as_the_commit_returns_keeps_the_entry_and_a_checkpoint_for_it(
    kept: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    interrupt_ledger_commits(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        kept.append("event", {"i": 5})
    monkeypatch.undo()
    assert [e.payload for e in kept.entries()][-1] == {"i": 5}
    kept.verify()  # not "entry 5 was added outside vwt"
    kept.append("event", {"i": 6})
    cp = kept.checkpoint()
    assert cp is not None and cp.seq == 6 and not cp.pending
    kept.verify()
