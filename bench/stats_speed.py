"""Measure cell_metrics wall time at 24, 100 and 400 tasks with B = 10,000 bootstrap draws.

Run: .venv/bin/python bench/stats_speed.py [--repeats N]. Each cell has k = 5 trials per task
and arm; "1 family" resamples tasks (and, beyond 20 tasks, uses Monte Carlo sign flips), "4
families" resamples families (exact sign enumeration). "+ source" adds a retention source cell
with shared draws. Times exclude building the inputs.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time

import numpy as np

from reports._cell import cell_metrics
from reports._stats_arms import ArmOutcomes

TRIALS = 5
BOOTSTRAP = 10_000


def _arm(rng: np.random.Generator, p: np.ndarray, families: int) -> ArmOutcomes:
    wins = rng.random((len(p), TRIALS)) < p[:, None]
    return ArmOutcomes.from_trials(
        (f"t{i}", f"f{i % families}", "success" if w else "failure")
        for i, row in enumerate(wins)
        for w in row
    )


def _time(n_tasks: int, families: int, with_source: bool, repeats: int) -> list[float]:
    rng = np.random.default_rng(n_tasks)
    p = rng.uniform(0.2, 0.7, n_tasks)
    with_arm, without_arm = _arm(rng, p + 0.1, families), _arm(rng, p, families)
    source = (_arm(rng, p + 0.2, families), _arm(rng, p, families)) if with_source else None
    times = []
    for seed in range(repeats):
        start = time.perf_counter()
        cell_metrics(with_arm, without_arm, bootstrap=BOOTSTRAP, seed=seed, source=source)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    """Print first-call, median and min wall time per configuration, in milliseconds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20, help="timed calls per configuration")
    args = parser.parse_args()
    print(f"cell_metrics, B = {BOOTSTRAP}, k = {TRIALS}, {args.repeats} repeats")
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    print(f"{'tasks':>5}  {'clusters':<18} {'first ms':>9} {'median ms':>10} {'min ms':>8}")
    for n_tasks in (24, 100, 400):
        for families, with_source in ((1, False), (4, False), (1, True)):
            times = _time(n_tasks, families, with_source, args.repeats)
            label = f"{families} famil{'y' if families == 1 else 'ies'}"
            label += " + source" if with_source else ""
            first, median = 1e3 * times[0], 1e3 * statistics.median(times)
            print(
                f"{n_tasks:>5}  {label:<18} {first:>9.1f} {median:>10.1f} {1e3 * min(times):>8.1f}"
            )


if __name__ == "__main__":
    main()
