"""Memory per 10^4 trials: in the store (SQLite bytes on disk) and in the driver (RSS growth).

Run: .venv/bin/python bench/store_memory.py [--trials 2000] [--sample-tasks 4]; full size:
--full (10^4 trials). First runs a sample of real trials in process (the source condition,
frozen phase, every reference bundle and the baseline, --sample-tasks sealed tasks, k=2, sim
model, local sandbox), then stores --trials trials made from them the way the runner does
(``TrialStore.insert`` in groups of ``FLUSH_ROWS``): each a sample record under a new key
with its own trace (the sample trace with its tool-call ids made unique, so no two traces are
deduplicated into one). Prints per 10^4 trials: the store's bytes on disk (and the records'
and compressed traces' own bytes), the driver's RSS growth while storing, and while loading
every record back (``TrialStore.records``).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import sys
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from _common import Stopwatch, bench_run, rss_mib, source_batches, trial_count

from runner import TrialRecord, TrialStore, run_batch
from runner._execute import FLUSH_ROWS

PER = 10_000


def sample_rows(tasks: int) -> list[tuple[TrialRecord, bytes]]:
    """Real (record, compressed trace) pairs: ``tasks`` sealed tasks, k=2, every arm."""
    batches = source_batches(tasks, 2)
    rows = [r for b in batches for r in run_batch(b.model_dump_json(), "local")]
    if len(rows) != trial_count(batches):
        raise RuntimeError(f"the sample returned {len(rows)} of {trial_count(batches)} trials")
    return [(TrialRecord.model_validate_json(r), t) for r, t, _ in rows]


def unique_trace(trace: bytes, n: int) -> bytes:
    """``trace`` (messages JSON) with every tool-call id suffixed by ``n``."""
    messages = json.loads(trace)
    for m in messages:
        for call in m.get("tool_calls") or ():
            call["id"] = f"{call['id']}-{n}"
        if "tool_call_id" in m:
            m["tool_call_id"] = f"{m['tool_call_id']}-{n}"
    return json.dumps(messages, sort_keys=True).encode()


def made_rows(
    sample: list[tuple[TrialRecord, bytes]], count: int
) -> Iterator[tuple[TrialRecord, bytes]]:
    """``count`` trials from ``sample``, in turn, each with a new key and its own trace."""
    for n in range(count):
        record, compressed = sample[n % len(sample)]
        trace = unique_trace(zlib.decompress(compressed), n)
        update = {"key": f"{record.key}#{n}", "trace_sha256": hashlib.sha256(trace).hexdigest()}
        yield record.model_copy(update=update), zlib.compress(trace)


def groups(rows: Iterator[tuple[TrialRecord, bytes]]) -> Iterator[list[tuple[TrialRecord, bytes]]]:
    """``rows`` in lists of ``FLUSH_ROWS``, as the runner's driver writes them."""
    group = []
    for row in rows:
        group.append(row)
        if len(group) == FLUSH_ROWS:
            yield group
            group = []
    if group:
        yield group


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000, help="trials stored (default 2000)")
    parser.add_argument("--sample-tasks", type=int, default=4, help="real tasks (default 4)")
    parser.add_argument("--full", action="store_true", help="full size: 10^4 trials")
    args = parser.parse_args()
    count = PER if args.full else args.trials
    with bench_run(f"store and driver memory: {count} trials"):
        sample = sample_rows(args.sample_tasks)
        print(f"sample: {len(sample)} real trials run in process")
        scale = PER / count
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "vwt.sqlite"
            store = TrialStore(path)
            record_bytes = trace_bytes = 0
            gc.collect()
            before = rss_mib()
            with Stopwatch() as storing:
                for group in groups(made_rows(sample, count)):
                    record_bytes += sum(len(r.model_dump_json()) for r, _ in group)
                    trace_bytes += sum(len(t) for _, t in group)
                    store.insert(group)
            gc.collect()
            stored_growth = rss_mib() - before
            disk = sum(p.stat().st_size for p in Path(tmp).iterdir())
            before = rss_mib()
            with Stopwatch() as loading:
                records = store.records()
            loaded_growth = rss_mib() - before
            if len(records) != count:
                print(f"error: the store gave back {len(records)} of {count} records")
                return 1
        mib = 2**20
        print(
            f"store on disk: {disk * scale / mib:.1f} MiB per 10^4 trials "
            f"(records {record_bytes * scale / mib:.1f} MiB JSON, "
            f"traces {trace_bytes * scale / mib:.1f} MiB compressed; "
            f"{disk / count / 1024:.2f} KiB per trial)"
        )
        print(
            f"driver RSS growth while storing: {stored_growth * scale:.1f} MiB per 10^4 trials "
            f"({count / storing.seconds:.0f} trials/s stored)"
        )
        print(
            f"driver RSS growth while loading every record: {loaded_growth * scale:.1f} MiB "
            f"per 10^4 trials ({count / loading.seconds:.0f} records/s loaded)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
