"""Trial throughput: one worker in-process, and the whole Ray path, on sim models.

Prints measured numbers; run with `python bench/trial_throughput.py [--tasks N] [--k K]
[--sandbox local|docker] [--family F]` (the source condition, on family F's sealed split).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmark import default_cycle_spec_path
from conditions import CycleSpec, TaskFamilyAxis
from runner import TrialStore, execute, plan_phase, start_ray
from runner._worker import run_batch_async
from submissions import reference_bundles


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=24)
    parser.add_argument("--k", type=int, default=3)
    parser.add_argument("--sandbox", default="local")
    parser.add_argument("--family", default=None, help="task family (default: the source's)")
    args = parser.parse_args()
    spec = CycleSpec.load(default_cycle_spec_path())
    source = spec.source
    if args.family:
        axis = TaskFamilyAxis(family=args.family, split=source.task_family.split)
        source = source.model_copy(update={"task_family": axis})
    batches = plan_phase(
        cycle="bench",
        cycle_seed=spec.seed,
        phase="frozen",
        conditions=[(source.id, source)],
        bundles=reference_bundles(),
        tasks_per_split=args.tasks,
        k=args.k,
    )
    trials = sum(len(b.trials) for b in batches)

    loop = asyncio.new_event_loop()
    loop.run_until_complete(run_batch_async(batches[0], args.sandbox))  # warm imports
    start = time.perf_counter()
    for b in batches:
        loop.run_until_complete(run_batch_async(b, args.sandbox))
    one = time.perf_counter() - start
    print(
        f"in-process, one core, {args.sandbox} sandbox: {trials} trials in {one:.2f} s "
        f"= {trials / one:.0f} trials/s ({1000 * one / trials:.1f} ms/trial, "
        f"{len(batches)} batches)"
    )

    start = time.perf_counter()
    start_ray()
    ray_start = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        store = TrialStore(Path(tmp) / "vwt.sqlite")
        start = time.perf_counter()
        done = execute(store, batches, sandbox=args.sandbox)
        wall = time.perf_counter() - start
    print(
        f"Ray ({os.cpu_count()} CPUs, start {ray_start:.1f} s): {done.ran} trials in "
        f"{wall:.2f} s = {done.ran / wall:.0f} trials/s, stored in SQLite"
    )


if __name__ == "__main__":
    main()
