"""Time build_matrix on a release-sized matrix.

Run: .venv/bin/python bench/stats_speed.py [--cells 300] [--tasks 100] [--trials 3]
[--submissions 10] [--repeats 3]; quick (CI) size: --cells 20.

The matrix has --cells frozen cells: --submissions submissions in cells / submissions
conditions (the first is the source, so every other cell is tested for retention against it),
each with its own baseline, over the same --tasks tasks of one family with --trials trials per
task and arm (synthetic TrialRecords, outcomes drawn from per-task success rates). build_matrix
computes everything a release reports per cell (gain, arm scores, intervals, t-test, critical
test, sign test, leave-one-out, retention, pass^k, BH); the time excludes building the records.
The statistics are closed-form (no bootstrap since release format 6).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import numpy as np
from _common import bench_run

from benchmark import Usage, default_cycle_spec_path
from conditions import Condition, CycleSpec
from reports import build_matrix
from runner import TrialRecord


def _record(condition: str, bundle: str | None, task: int, trial: int, win: bool) -> TrialRecord:
    return TrialRecord(
        key=f"{condition}/{bundle}/{task}/{trial}",
        cycle="bench",
        phase="frozen",
        condition_id=condition,
        arm="with" if bundle else "without",
        bundle_hash=bundle,
        submission=f"s{bundle[:4]}@1" if bundle else None,
        task_id=f"support_ops/sealed/{task:04d}",
        family="support_ops",
        split="sealed",
        task_index=task,
        task_seed=7,
        generator_version="g1",
        trial=trial,
        seed=11,
        model="sim/acme-2",
        provider="acme",
        harness="harness-v1",
        tool_interfaces={},
        schema_digests={},
        verifier_version="v1",
        sandbox="local",
        started_at="2026-12-01T00:00:00.000Z",
        ended_at="2026-12-01T00:00:01.000Z",
        usage=Usage(calls=1, prompt_tokens=1, completion_tokens=1, latency_s=0.1),
        turns=1,
        tool_calls=0,
        tool_errors=0,
        outcome="success" if win else "failure",
        critical=(),
        safe_stop=None,
        invalid=None,
        verifier_reasons=(),
        trace_sha256="0" * 64,
    )


def _release(args: argparse.Namespace) -> tuple[list[TrialRecord], dict[str, Condition]]:
    """Records and conditions."""
    rng = np.random.default_rng(0)
    source = CycleSpec.load(default_cycle_spec_path()).source
    n_conditions = -(-args.cells // args.submissions)
    conditions = {source.id: source}
    for i in range(1, n_conditions):
        c = Condition.model_validate({**source.model_dump(), "harness": f"harness-b{i}"})
        conditions[f"c-{i:016x}"] = c
    bundles = [f"{b:064x}" for b in range(1, args.submissions + 1)]
    records: list[TrialRecord] = []
    base = rng.uniform(0.2, 0.7, args.tasks)
    for n, cid in enumerate(conditions):
        without = rng.random((args.tasks, args.trials)) < base[:, None]
        records += _arm(cid, None, without)
        for b in bundles[: min(args.submissions, args.cells - n * args.submissions)]:
            effect = rng.normal(0.1 if n == 0 else 0.0, 0.15, args.tasks)
            wins = rng.random((args.tasks, args.trials)) < np.clip(base + effect, 0, 1)[:, None]
            records += _arm(cid, b, wins)
    return records, conditions


def _arm(condition: str, bundle: str | None, wins: np.ndarray) -> list[TrialRecord]:
    return [
        _record(condition, bundle, task, trial, bool(w))
        for task, row in enumerate(wins)
        for trial, w in enumerate(row)
    ]


def _timed(run: Callable[[], object], repeats: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of each call (on a loaded machine the CPU time is the fairer)."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return wall, cpu


def main() -> None:
    """Print the machine and the timings (first call, median, min)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=300, help="frozen cells in the matrix")
    parser.add_argument("--tasks", type=int, default=100, help="tasks per cell (one family)")
    parser.add_argument("--trials", type=int, default=3, help="trials per task and arm (k)")
    parser.add_argument("--submissions", type=int, default=10, help="submissions per condition")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls of each")
    args = parser.parse_args()
    with bench_run("build_matrix speed"):
        _run(args)


def _run(args: argparse.Namespace) -> None:
    records, conditions = _release(args)
    source = next(iter(conditions))

    def matrix() -> list[object]:
        return list(build_matrix(records, conditions=conditions, source_id=source))

    cells = build_matrix(records, conditions=conditions, source_id=source)
    retained = sum(c.metrics.retention is not None for c in cells)
    print(
        f"{len(cells)} cells x {args.tasks} tasks x k = {args.trials}; "
        f"{len(records)} trial records; {retained} cells report retention"
    )
    print(f"numpy {np.__version__}, {len(os.sched_getaffinity(0))} cores usable")
    wall, cpu = _timed(matrix, args.repeats)
    _print("build_matrix (everything per cell), wall", wall)
    _print("build_matrix (everything per cell), CPU", cpu)


def _print(label: str, times: list[float]) -> None:
    print(
        f"{label:<42} first {times[0]:7.3f} s  median {statistics.median(times):7.3f} s  "
        f"min {min(times):7.3f} s"
    )


if __name__ == "__main__":
    main()
