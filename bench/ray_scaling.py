"""1 → 2 Ray workers on CPU-bound trials: the same batches through the full runner twice.

Run: .venv/bin/python bench/ray_scaling.py [--tasks 4] [--k 2] [--pieces 2] [--repeats 1];
full size: --full (24 sealed tasks, k=3: 360 trials, 2 passes). The source condition, frozen
phase, every reference bundle and the baseline (one batch per arm, cut in --pieces), sim model
in process (no network: the trials are CPU-bound), local sandbox. Ray is started with one
CPU, warmed up (one untimed pass over every batch: the first pass after Ray starts is slower),
and runs every batch through ``runner.execute`` into a new store; then shut down and started
again with two; --repeats times, alternating. Prints trials/s for each pass, the best pass of
each and the speed-up; the load average says how idle the machine was (the target, >= 1.7x,
is for an idle 2-core machine), and the cores busy during each pass (machine-wide, from
/proc/stat) show how much of the machine one worker already uses: its batch's backend process
and the driver storing records work beside it.
"""

from __future__ import annotations

import argparse
import os
import sys

import ray
from _common import (
    CpuBusy,
    Stopwatch,
    bench_run,
    execute_in_temp_store,
    load_average,
    rate,
    source_batches,
    trial_count,
)

from runner import Batch, start_ray


def split(batches: list[Batch], pieces: int) -> list[Batch]:
    """Each batch cut into ``pieces`` batches of consecutive trials, so that two workers get
    equal shares (five whole batches cannot be shared evenly by two)."""
    out = []
    for b in batches:
        size = -(-len(b.trials) // pieces)
        out += [
            b.model_copy(update={"trials": b.trials[i : i + size]})
            for i in range(0, len(b.trials), size)
        ]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=4, help="sealed tasks (default 4)")
    parser.add_argument("--k", type=int, default=2, help="trials per task and arm (default 2)")
    parser.add_argument("--full", action="store_true", help="full size: 24 tasks, k=3, 2 passes")
    parser.add_argument(
        "--pieces", type=int, default=2, help="split each batch into this many (default 2)"
    )
    parser.add_argument("--repeats", type=int, default=1, help="passes of each (default 1)")
    args = parser.parse_args()
    tasks, k, repeats = (24, 3, 2) if args.full else (args.tasks, args.k, args.repeats)
    batches = split(source_batches(tasks, k), args.pieces)
    trials = trial_count(batches)
    seconds: dict[int, list[float]] = {1: [], 2: []}
    title = f"Ray scaling: {trials} trials, {len(batches)} batches, 1 then 2 workers"
    with bench_run(f"{title}, {repeats} pass(es) each"):
        if (os.cpu_count() or 1) < 2:
            print("note: this machine has one core; two workers share it")
        for n in range(repeats):  # alternating, so that both see the same load
            for workers in (1, 2):
                start_ray(num_cpus=workers)
                execute_in_temp_store(batches)
                busy = CpuBusy()
                with Stopwatch() as run:
                    done, stored = execute_in_temp_store(batches)
                cores = busy.cores()
                ray.shutdown()
                if stored != trials:
                    print(f"error: {workers} worker(s) stored {stored} of {trials} trials")
                    return 1
                seconds[workers].append(run.seconds)
                print(
                    f"pass {n + 1}, {workers} worker(s): {rate(done.ran, run.seconds)} "
                    f"({cores:.1f} cores busy, load {load_average()})"
                )
        one, two = min(seconds[1]), min(seconds[2])
        print(f"1 worker(s), best pass: {rate(trials, one)}")
        print(f"2 worker(s), best pass: {rate(trials, two)}")
        print(f"speed-up 1 → 2 workers: {one / two:.2f}x (target >= 1.7x idle)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
