"""The full runner against a plain in-process loop over the same harness and batches.

Run: .venv/bin/python bench/runner_overhead.py [--tasks 4] [--k 2] [--repeats 1]
[--ray-cpus 1]; full size: --full (24 sealed tasks, k=3: 360 trials, 3 passes). The source
condition, frozen phase, every reference bundle and the baseline (one batch per arm), sim
model in process, local sandbox.

Side by side in one run: (a) ``runner.run_batch`` on each batch in this process, one after the
other (no Ray, no store); (b) ``runner.execute``: Ray generator tasks with ``--ray-cpus``
workers, records streamed to the driver and written to a SQLite store. Both sides warm up
first (the first trial of each batch, in this process and on Ray), then run --repeats passes
each, alternating so that both see the same load on a shared machine. Prints each pass, the
best pass's trials/s of both and their ratio, without and with Ray's start-up and warm-up.
With --ray-cpus 1 both sides run one batch at a time, so the ratio is the runner's own
overhead.
"""

from __future__ import annotations

import argparse
import sys

from _common import (
    Stopwatch,
    bench_run,
    execute_in_temp_store,
    first_trials,
    load_average,
    rate,
    source_batches,
    trial_count,
)

from runner import Batch, run_batch, start_ray


def in_process(batches: list[Batch]) -> float:
    """Seconds to run ``batches`` one after the other with ``run_batch`` in this process."""
    with Stopwatch() as plain:
        rows = [r for b in batches for r in run_batch(b.model_dump_json(), "local")]
    if len(rows) != trial_count(batches):
        raise RuntimeError(f"the in-process loop returned {len(rows)} trials")
    return plain.seconds


def full_runner(batches: list[Batch]) -> float:
    """Seconds for ``runner.execute`` to run and store ``batches`` (Ray already started)."""
    with Stopwatch() as full:
        done, stored = execute_in_temp_store(batches)
    if done.ran != trial_count(batches) or stored != done.ran:
        raise RuntimeError(f"the runner ran {done.ran} trials and stored {stored}")
    return full.seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=4, help="sealed tasks (default 4)")
    parser.add_argument("--k", type=int, default=2, help="trials per task and arm (default 2)")
    parser.add_argument("--repeats", type=int, default=1, help="passes of each (default 1)")
    parser.add_argument("--full", action="store_true", help="full size: 24 tasks, k=3, 3 passes")
    parser.add_argument("--ray-cpus", type=int, default=1, help="Ray workers (default 1)")
    args = parser.parse_args()
    tasks, k, repeats = (24, 3, 3) if args.full else (args.tasks, args.k, args.repeats)
    batches = source_batches(tasks, k)
    trials = trial_count(batches)
    title = f"runner overhead: {trials} trials, {len(batches)} batches, {repeats} pass(es) each"
    with bench_run(title):
        # warm-up: litellm's import and the first sandbox, on both sides, outside the timings
        for warm_up in first_trials(batches):
            run_batch(warm_up.model_dump_json(), "local")
        with Stopwatch() as ray_start:
            start_ray(num_cpus=args.ray_cpus)
        with Stopwatch() as warm:
            execute_in_temp_store(first_trials(batches))
        print(f"Ray start {ray_start.seconds:.1f} s, worker warm-up {warm.seconds:.1f} s")
        plain, full = [], []
        for n in range(repeats):  # alternating, so that both sides see the same load
            plain.append(in_process(batches))
            full.append(full_runner(batches))
            print(
                f"pass {n + 1}: in-process {trials / plain[-1]:.1f} trials/s, "
                f"runner {trials / full[-1]:.1f} trials/s (load {load_average()})"
            )
        print(f"in-process loop (run_batch, no Ray, no store): {rate(trials, min(plain))}")
        print(
            f"full runner (execute, Ray {args.ray_cpus} worker(s), SQLite store): "
            f"{rate(trials, min(full))}"
        )
        print(f"ratio runner / in-process: {min(plain) / min(full):.2f} (target >= 0.85)")
        with_start = min(plain) / (min(full) + ray_start.seconds + warm.seconds)
        print(f"ratio with Ray's start-up and warm-up counted: {with_start:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
