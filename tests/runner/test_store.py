"""The trial store: insert-or-ignore, record round trip, traces, phase filters."""

from __future__ import annotations

import json
import sqlite3
import zlib
from pathlib import Path
from typing import Any

from benchmark import Usage
from runner import TrialRecord, TrialStore, trial_key


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


def row(record: TrialRecord, trace: bytes = b"[]") -> tuple[str, bytes]:
    """What a worker returns for ``record``."""
    return record.model_dump_json(), zlib.compress(trace)


def test_records_round_trip_in_key_order(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    records = [make_record(trial=j, outcome=o) for j, o in enumerate(["success", "critical"])]
    assert store.insert(row(r) for r in records) == 2
    assert store.records() == sorted(records, key=lambda r: r.key)
    assert TrialStore(tmp_path / "t.sqlite").records() == store.records()  # persists


def test_insert_or_ignore_keeps_the_first_record(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    first = make_record(outcome="failure")
    assert store.insert([row(first)]) == 1
    rerun = make_record(outcome="success", trace_sha256=first.trace_sha256)
    assert rerun.key == first.key
    assert store.insert([row(rerun), row(make_record(trial=1))]) == 1
    assert [r.outcome for r in store.records() if r.key == first.key] == ["failure"]
    assert len(store.keys()) == 2


def test_phase_filters(tmp_path: Path) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    frozen = make_record()
    adapted = make_record(phase="adapted")
    store.insert([row(frozen), row(adapted)])
    assert store.keys("frozen") == {frozen.key}
    assert [r.key for r in store.records("adapted")] == [adapted.key]
    assert store.keys() == {frozen.key, adapted.key}
    assert store.records("dev") == []


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
        got = db.execute("SELECT bundle_hash, arm, outcome, trial FROM trials").fetchone()
    assert got == ("b" * 64, "with", "safe_stop", 0)
