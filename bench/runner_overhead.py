"""The full runner against a plain in-process loop over the same harness and batches.

Run: .venv/bin/python bench/runner_overhead.py [--tasks 4] [--k 2] [--ray-cpus 1]; full size:
--full (24 sealed tasks, k=3: 360 trials). The source condition, frozen phase, every reference
bundle and the baseline (one batch per arm), sim model in process, local sandbox.

Side by side in one run: (a) ``runner.run_batch`` on each batch in this process, one after the
other (no Ray, no store); (b) ``runner.execute``: Ray generator tasks with ``--ray-cpus``
workers, records streamed to the driver and written to a SQLite store. Prints trials/s for both
and their ratio, without and with Ray's start-up (both sides warm up first: one trial in
this process, one per Ray worker); with --ray-cpus 1 both sides get one worker
process, so the ratio is the runner's own overhead.
"""

from __future__ import annotations

import argparse
import sys

from _common import (
    Stopwatch,
    bench_run,
    execute_in_temp_store,
    first_trials,
    rate,
    source_batches,
    trial_count,
)

from runner import run_batch, start_ray


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=4, help="sealed tasks (default 4)")
    parser.add_argument("--k", type=int, default=2, help="trials per task and arm (default 2)")
    parser.add_argument("--full", action="store_true", help="full size: 24 tasks, k=3")
    parser.add_argument("--ray-cpus", type=int, default=1, help="Ray workers (default 1)")
    args = parser.parse_args()
    tasks, k = (24, 3) if args.full else (args.tasks, args.k)
    batches = source_batches(tasks, k)
    trials = trial_count(batches)
    with bench_run(f"runner overhead: {trials} trials, {len(batches)} batches"):
        # warm-up: litellm's import and the first sandbox, outside both timings
        run_batch(first_trials(batches, 1)[0].model_dump_json(), "local")
        with Stopwatch() as plain:
            rows = [r for b in batches for r in run_batch(b.model_dump_json(), "local")]
        if len(rows) != trials:
            print(f"error: the in-process loop returned {len(rows)} of {trials} trials")
            return 1
        print(f"in-process loop (run_batch, no Ray, no store): {rate(trials, plain.seconds)}")

        with Stopwatch() as ray_start:
            start_ray(num_cpus=args.ray_cpus)
        with Stopwatch() as warm:  # the same warm-up in each Ray worker
            execute_in_temp_store(first_trials(batches, args.ray_cpus))
        with Stopwatch() as full:
            done, stored = execute_in_temp_store(batches)
        if stored != trials:
            print(f"error: the runner stored {stored} of {trials} trials")
            return 1
        print(
            f"full runner (execute, Ray {args.ray_cpus} worker(s), SQLite store): "
            f"{rate(done.ran, full.seconds)}; Ray start {ray_start.seconds:.1f} s, "
            f"worker warm-up {warm.seconds:.1f} s"
        )
        print(f"ratio runner / in-process: {plain.seconds / full.seconds:.2f} (target >= 0.85)")
        with_start = plain.seconds / (full.seconds + ray_start.seconds + warm.seconds)
        print(f"ratio with Ray's start-up and warm-up counted: {with_start:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
