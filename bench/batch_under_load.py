"""Invalid trials under CPU contention: one batch through the worker in a fresh process.

A fresh process has not imported litellm yet, as a new Ray worker has not. The batch runs
beside H busy-loop processes; the script prints its wall time, the longest stall of the
worker's event loop (while it stalls, no backend answer is read: a stall longer than a
backend deadline made trials invalid), how many trials ended invalid and why. Exits 1 if any
did.

Run with `python bench/batch_under_load.py [--tasks N] [--k K] [--hogs H] [--concurrency C]`.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import multiprocessing
import os
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _hog() -> None:
    while True:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=8)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--hogs", type=int, default=3, help="Busy-loop processes beside it.")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    hogs = [multiprocessing.Process(target=_hog, daemon=True) for _ in range(args.hogs)]
    for h in hogs:
        h.start()
    try:
        started = time.perf_counter()
        # imported here, under contention, as a Ray worker imports them
        from benchmark import default_cycle_spec_path
        from conditions import CycleSpec
        from runner import plan_phase
        from runner._worker import run_batch

        spec = CycleSpec.load(default_cycle_spec_path())
        batch = plan_phase(
            cycle="bench",
            cycle_seed=spec.seed,
            phase="frozen",
            conditions=[(spec.source.id, spec.source)],
            bundles=[],
            tasks_per_split=args.tasks,
            k=args.k,
            batch_size=args.tasks * args.k,
        )[0]
        imported = time.perf_counter() - started
        from runner import _worker

        _worker._LOOP = loop = asyncio.new_event_loop()
        stall = [0.0]

        async def heartbeat() -> None:
            while True:
                t = loop.time()
                await asyncio.sleep(0.05)
                stall[0] = max(stall[0], loop.time() - t - 0.05)

        beat = loop.create_task(heartbeat())
        rows = run_batch(batch.model_dump_json(), "local", args.concurrency)
        beat.cancel()
        wall = time.perf_counter() - started
    finally:
        for h in hogs:
            h.terminate()
    records = [json.loads(r) for r, *_ in rows]
    invalid = [r["invalid"] for r in records if r["outcome"] == "invalid"]
    print(
        f"{len(records)} trials beside {args.hogs} CPU hogs: {wall:.1f} s "
        f"(imports {imported:.1f} s), longest loop stall {stall[0]:.2f} s, {len(invalid)} invalid"
    )
    for reason, n in collections.Counter(str(r)[:120] for r in invalid).most_common(5):
        print(f"  {n} x {reason}")
    if invalid:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
