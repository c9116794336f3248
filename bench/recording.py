"""Recording model calls: what it costs per trial, against not recording.

Runs the source condition's batches (the baseline and every reference bundle, sim models, local
sandbox) in this process, alternating rounds with the call log every run keeps and with the
gateway's recording switched off (this bench's patch: the gateway finds no log, so it neither
hashes nor keeps anything). Prints the CPU milliseconds per trial of this process each way
(the backends run in processes of their own) and the difference; then the bytes each trial
adds to a trial store with its call records and without (file size after VACUUM), the blobs
it stores, and how much the content addressing saves against storing each trial's calls whole.

Run: ``python bench/recording.py [--tasks N] [--k K] [--rounds R]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import tempfile
import time
import zlib
from pathlib import Path

from _common import bench_run, source_batches, trial_count

import benchmark._models as gateway
from benchmark import CallDocument, expand
from runner import Batch, Row, TrialRecord, TrialStore
from runner._worker import run_batch_async, unpack_call_blobs


def _pass(
    loop: asyncio.AbstractEventLoop, batches: list[Batch], record: bool
) -> tuple[float, list[Row]]:
    """CPU seconds of this process to run ``batches``, and the rows."""
    real = gateway.current_log
    if not record:
        gateway.current_log = lambda: None  # the gateway records nothing
    try:
        start = time.process_time()
        rows = [
            row for b in batches for row in loop.run_until_complete(run_batch_async(b, "local"))
        ]
        return time.process_time() - start, rows
    finally:
        gateway.current_log = real


def _store_bytes(rows: list[Row], calls: bool) -> tuple[int, int]:
    """(file bytes after VACUUM, blob rows) of a new store holding ``rows``."""
    with tempfile.TemporaryDirectory() as tmp:
        store = TrialStore(Path(tmp) / "vwt.sqlite")
        blobs = {k: v for r in rows for k, v in unpack_call_blobs(r.calls).items()} if calls else {}
        store.insert(
            ((TrialRecord.model_validate_json(r.record), r.trace) for r in rows), blobs=blobs
        )
        with sqlite3.connect(store.path) as db:
            db.execute("VACUUM")
            (n,) = db.execute("SELECT COUNT(*) FROM blobs").fetchone()
        return store.path.stat().st_size, int(n)


def _whole(row: Row) -> int:
    """Compressed bytes of a trial's calls written out whole, every request with its messages
    and tools (what storing them without content addressing would take)."""
    blobs = unpack_call_blobs(row.calls)
    record = TrialRecord.model_validate_json(row.record)
    doc = CallDocument.model_validate_json(blobs[record.calls_sha256 or ""])
    calls = expand(doc, {k: json.loads(v) for k, v in blobs.items()})
    return len(zlib.compress(json.dumps([c.model_dump(mode="json") for c in calls]).encode()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    batches = source_batches(args.tasks, args.k)
    n = trial_count(batches)
    loop = asyncio.new_event_loop()
    with bench_run("recording model calls"):
        _pass(loop, [b.model_copy(update={"trials": b.trials[:1]}) for b in batches], True)
        cpu: dict[bool, list[float]] = {True: [], False: []}
        rows: list[Row] = []
        for _ in range(args.rounds):
            for record in (False, True):
                seconds, got = _pass(loop, batches, record)
                cpu[record].append(seconds)
                rows = got if record else rows
        off, on = (1000 * min(cpu[x]) / n for x in (False, True))
        print(
            f"CPU per trial ({n} trials, best of {args.rounds}): {off:.2f} ms without "
            f"recording, {on:.2f} ms with; recording adds {on - off:+.2f} ms "
            f"({100 * (on - off) / off:+.1f} %)"
        )
        with_calls, blobs = _store_bytes(rows, calls=True)
        without, _ = _store_bytes(rows, calls=False)
        whole = sum(_whole(r) for r in rows)
        calls = sum(TrialRecord.model_validate_json(r.record).turns for r in rows)
        print(
            f"store bytes per trial: {without / n:,.0f} without call records, "
            f"{with_calls / n:,.0f} with (+{(with_calls - without) / n:,.0f}); {calls} model "
            f"calls, {blobs} distinct blobs ({blobs / n:.1f} per trial)"
        )
        print(
            f"content addressing: each trial's calls written out whole (every request with "
            f"its messages and tools) take {whole / n:,.0f} bytes per trial compressed; "
            f"stored by blob they add {(with_calls - without) / n:,.0f}"
        )


if __name__ == "__main__":
    main()
