"""The trial store: attempts as history, the latest valid record, duplicates refused, traces,
phase filters, the first format migrated, corruption and a full disk as one-line errors."""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path
from typing import Any

import pytest

from benchmark import Usage
from runner import RunnerError, TrialRecord, TrialStore, trial_key


def make_record(**overrides: Any) -> TrialRecord:
    """A plausible trial record; ``overrides`` replace fields (the key follows its parts)."""
    fields: dict[str, Any] = {
        "cycle": "c1",
        "phase": "frozen",
        "condition_id": "c-000000000001",
        "arm": "without",
        "bundle_hash": None,
        "submission": None,
        "task_id": "support_ops/sealed/0-abc",
        "family": "support_ops",
        "split": "sealed",
        "task_index": 0,
        "task_seed": 7,
        "generator_version": "g1",
        "trial": 0,
        "seed": 11,
        "model": "sim/acme-2",
        "provider": "acme",
        "harness": "harness-v1",
        "tool_interfaces": {"support-ops": "support-ops@1"},
        "schema_digests": {"support-ops": "d" * 64},
        "verifier_version": "v1",
        "sandbox": "local",
        "started_at": "2026-12-01T00:00:00.000Z",
        "ended_at": "2026-12-01T00:00:01.000Z",
        "usage": Usage(calls=2, prompt_tokens=100, completion_tokens=20, latency_s=0.5),
        "turns": 2,
        "tool_calls": 3,
        "tool_errors": 0,
        "outcome": "success",
        "critical": (),
        "safe_stop": None,
        "invalid": None,
        "verifier_reasons": (),
        "trace_sha256": "",
        **overrides,
    }
    parts = ("bundle_hash", "condition_id", "phase", "arm", "task_id", "trial")
    fields.setdefault("key", trial_key(*(fields[p] for p in parts)))
    fields["trace_sha256"] = fields["trace_sha256"] or f"trace-{fields['key']}"
    return TrialRecord.model_validate(fields)


def row(record: TrialRecord, trace: bytes = b"[]") -> tuple[TrialRecord, bytes]:
    """What the driver stores for ``record``: the record and its compressed trace."""
    return record, zlib.compress(trace)


def test_records_round_trip_in_key_order(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    records = [make_record(trial=j, outcome=o) for j, o in enumerate(["success", "critical"])]
    assert store.insert(row(r) for r in records) == 2
    assert store.records() == sorted(records, key=lambda r: r.key)
    assert TrialStore(tmp_path / "t.sqlite").records() == store.records()  # persists


def test_a_new_store_file_is_private(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    assert store.path.stat().st_mode & 0o777 == 0o600


def test_every_attempt_is_kept_and_records_picks_the_latest_valid(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    first = make_record(outcome="invalid", invalid="backend: TimeoutError")
    second = make_record(attempt=2, outcome="failure", trace_sha256="t2")
    assert store.insert([row(first)]) == 1
    assert store.records() == [first] and store.valid_keys() == set()
    assert store.insert([row(second)]) == 1
    assert store.records() == [second]
    assert store.attempts() == [first, second]
    assert store.valid_keys() == {first.key} and store.last_attempts() == {first.key: 2}


def test_without_a_valid_attempt_the_latest_invalid_one_is_the_record(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    tries = [make_record(attempt=n, outcome="invalid", invalid=f"try {n}") for n in (1, 2, 3)]
    store.insert(row(r) for r in tries)
    assert [r.invalid for r in store.records()] == ["try 3"]
    assert [r.attempt for r in store.attempts()] == [1, 2, 3]


def test_an_invalid_attempt_after_a_valid_one_does_not_replace_it(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    valid = make_record(outcome="success")
    store.insert([row(valid), row(make_record(attempt=2, outcome="invalid", invalid="late"))])
    assert store.records() == [valid]


def test_a_stored_attempt_is_never_duplicated(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    first = make_record(outcome="failure")
    store.insert([row(first)])
    again = make_record(outcome="success", trace_sha256="other")
    with pytest.raises(RunnerError, match=f"already holds attempt 1 .* of trial {first.key}") as e:
        store.insert([row(make_record(trial=1)), row(again)])
    assert e.value.hint and "one vwt process" in e.value.hint
    assert store.attempts() == [first]  # the whole batch was refused, not half stored


def test_a_key_never_gets_a_second_valid_attempt(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    store.insert([row(make_record(outcome="success"))])
    with pytest.raises(RunnerError, match="already holds"):
        store.insert([row(make_record(attempt=2, outcome="failure"))])
    assert len(store.attempts()) == 1


def test_phase_filters(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    frozen = make_record()
    adapted = make_record(phase="adapted")
    store.insert([row(frozen), row(adapted)])
    assert [r.key for r in store.records("frozen")] == [frozen.key]
    assert [r.key for r in store.attempts("adapted")] == [adapted.key]
    assert store.valid_keys() == {frozen.key, adapted.key}
    assert store.records("dev") == [] and store.attempts("dev") == []


def test_traces_are_stored_compressed_and_returned_whole(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    messages = [{"role": "user", "content": "refund order 7 " * 50}]
    trace = json.dumps(messages).encode()
    record = make_record(trace_sha256="abc")
    store.insert([row(record, trace)])
    assert store.trace("abc") == trace
    assert store.trace("missing") is None
    with sqlite3.connect(store.path) as db:
        (stored,) = db.execute("SELECT body FROM traces WHERE sha256 = 'abc'").fetchone()
    assert len(stored) < len(trace)


def test_indexed_columns_match_the_record(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    record = make_record(arm="with", bundle_hash="b" * 64, submission="s@1", outcome="safe_stop")
    store.insert([row(record)])
    with sqlite3.connect(store.path) as db:
        got = db.execute("SELECT bundle_hash, arm, outcome, trial, attempt FROM trials").fetchone()
    assert got == ("b" * 64, "with", "safe_stop", 0, 1)


_FIRST_FORMAT = """
CREATE TABLE trials (
    key TEXT PRIMARY KEY, cycle TEXT NOT NULL, phase TEXT NOT NULL,
    condition_id TEXT NOT NULL, arm TEXT NOT NULL, bundle_hash TEXT NOT NULL,
    task_id TEXT NOT NULL, trial INTEGER NOT NULL, outcome TEXT NOT NULL, record TEXT NOT NULL
);
CREATE INDEX trials_cell ON trials (phase, condition_id, bundle_hash);
CREATE TABLE traces (sha256 TEXT PRIMARY KEY, body BLOB NOT NULL);
CREATE TABLE ledger (seq INTEGER PRIMARY KEY, body TEXT);
INSERT INTO ledger VALUES (1, 'kept');
"""


def test_a_store_of_the_first_format_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "vwt.sqlite"
    old = [make_record(outcome="success"), make_record(trial=1, outcome="invalid", invalid="x")]
    with sqlite3.connect(path) as db:
        db.executescript(_FIRST_FORMAT)
        for r in old:
            data = json.loads(r.model_dump_json())
            del data["attempt"]  # the first format's records have no attempt
            cols = {**r.row(), "record": json.dumps(data)}
            del cols["attempt"]
            db.execute(
                "INSERT INTO trials VALUES (:key, :cycle, :phase, :condition_id, :arm, "
                ":bundle_hash, :task_id, :trial, :outcome, :record)",
                cols,
            )
    db.close()
    store = TrialStore(path)
    assert store.attempts() == sorted(old, key=lambda r: r.key)
    assert store.valid_keys() == {old[0].key}
    retry = make_record(trial=1, attempt=2, outcome="success", trace_sha256="t")
    store.insert([row(retry)])
    assert {r.key: r.attempt for r in TrialStore(path).records()} == {
        old[0].key: 1,
        retry.key: 2,
    }
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT body FROM ledger").fetchall() == [("kept",)]
        assert {r[1] for r in db.execute("PRAGMA table_info(trials)")} >= {"key", "attempt"}
    db.close()


def _filled(path: Path, n: int = 400) -> TrialStore:
    store = TrialStore(path)
    store.insert(row(make_record(trial=j, trace_sha256=f"t{j}"), b"x" * 300) for j in range(n))
    return store


def test_a_corrupt_store_is_an_error_with_a_recovery_hint(tmp_path: Path) -> None:
    path = tmp_path / "vwt.sqlite"
    _filled(path)
    size = path.stat().st_size
    assert size > 64 * 1024 and not Path(f"{path}-wal").exists()
    with path.open("r+b") as f:  # overwrite bytes in the middle of the file
        f.seek(size // 2)
        f.write(bytes(range(256)) * 16)
    with pytest.raises(RunnerError, match=r"trial store .*vwt.sqlite is corrupt") as e:
        TrialStore(path)
    assert "\n" not in str(e.value) and e.value.hint and ".recover" in e.value.hint


def test_a_file_that_is_not_a_database_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "vwt.sqlite"
    path.write_bytes(b"not sqlite at all " * 500)
    with pytest.raises(RunnerError, match="is corrupt") as e:
        TrialStore(path)
    assert e.value.hint and "backup" in e.value.hint


def test_a_full_disk_while_storing_is_a_one_line_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = TrialStore(tmp_path / "vwt.sqlite")
    store.insert([row(make_record(trial=0))])
    pages = sqlite3.connect(store.path).execute("PRAGMA page_count").fetchone()[0]
    connect = sqlite3.connect

    def small_disk(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        db.execute(f"PRAGMA max_page_count = {pages + 1}")  # SQLite's own 'disk is full'
        return db

    monkeypatch.setattr(sqlite3, "connect", small_disk)
    rows = [row(make_record(trial=j, trace_sha256=f"t{j}"), b"y" * 2000) for j in range(1, 60)]
    with pytest.raises(RunnerError, match="the disk is full: cannot write the trial store") as e:
        store.insert(rows)
    assert "\n" not in str(e.value) and e.value.hint and "free some space" in e.value.hint
    monkeypatch.undo()
    assert [r.trial for r in store.records()] == [0]  # nothing half-written
