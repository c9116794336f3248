"""A framework harness's cost per trial, against harness-v1.

Runs the same trials — the no-artifact baseline on the first support-operations dev tasks, sim
models in process, local sandbox, one batch — under harness-v1 and under each installed
framework harness, in this process (``run_batch_async``), the harnesses taking turns round by
round. Prints, per harness, the wall seconds and the CPU seconds per trial (this process and
its children: the framework processes, the loopback endpoints in this process, the sandbox's
MCP server) and the difference to harness-v1; best of the rounds. The framework's process per
trial (its interpreter start and the framework's import) is most of the difference; the sim
answers in well under a millisecond, so with a real model the difference is the same and the
trial takes longer.

Run: ``python bench/harness_overhead.py [--tasks N] [--rounds R] [--concurrency C]``.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import time

from _common import bench_run

from benchmark import default_cycle_spec_path
from benchmark.harness import HARNESSES, harness
from conditions import CycleSpec, TaskFamilyAxis
from runner import Batch, TrialRecord, plan_phase
from runner._worker import run_batch_async


def _batch(harness_id: str, tasks: int) -> Batch:
    spec = CycleSpec.load(default_cycle_spec_path())
    dev = TaskFamilyAxis(family="support_ops", split="dev")
    source = spec.source.model_copy(update={"task_family": dev, "harness": harness_id})
    (baseline,) = plan_phase(
        cycle=spec.cycle,
        cycle_seed=spec.seed,
        phase="frozen",
        conditions=[(source.id, source)],
        bundles=[],
        tasks_per_split=tasks,
        k=1,
    )
    return baseline


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended."""
    me, children = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _round(batch: Batch, concurrency: int) -> tuple[float, float, list[str]]:
    """(wall s, CPU s, outcomes) of one run of ``batch``."""
    start_wall, start_cpu = time.perf_counter(), _cpu()
    rows = asyncio.run(run_batch_async(batch, "local", concurrency=concurrency))
    wall, cpu = time.perf_counter() - start_wall, _cpu() - start_cpu
    return wall, cpu, [TrialRecord.model_validate_json(r.record).outcome for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=8, help="trials per harness and round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4, help="trials at once")
    args = parser.parse_args()
    ids = ["harness-v1"]
    for hid in sorted(HARNESSES):
        info = harness(hid).info()
        if info.kind == "framework":
            if info.unavailable is None:
                ids.append(hid)
            else:
                print(f"skipped {hid}: {info.unavailable}")
    batches = {hid: _batch(hid, args.tasks) for hid in ids}
    with bench_run("harness overhead per trial"):
        _round(batches["harness-v1"].model_copy(update={"trials": ()}), 1)  # imports, warm-up
        best: dict[str, tuple[float, float]] = {}
        outcomes: dict[str, list[str]] = {}
        for _ in range(args.rounds):
            for hid, batch in batches.items():
                wall, cpu, got = _round(batch, args.concurrency)
                old = best.get(hid, (float("inf"), float("inf")))
                best[hid] = (min(old[0], wall), min(old[1], cpu))
                outcomes[hid] = got
        n = args.tasks
        base_wall, base_cpu = (x / n for x in best["harness-v1"])
        print(
            f"{n} trials per harness (support_ops dev, baseline arm, sim/acme-2, local sandbox), "
            f"{args.concurrency} at once, best of {args.rounds} rounds; per trial:"
        )
        print(f"{'harness':22} {'wall s':>8} {'CPU s':>8} {'Δwall s':>8} {'ΔCPU s':>8}  outcomes")
        for hid in ids:
            wall, cpu = (x / n for x in best[hid])
            counts = {o: outcomes[hid].count(o) for o in sorted(set(outcomes[hid]))}
            shown = ", ".join(f"{o} {c}" for o, c in counts.items())
            print(
                f"{hid:22} {wall:8.2f} {cpu:8.2f} {wall - base_wall:+8.2f} "
                f"{cpu - base_cpu:+8.2f}  {shown}"
            )


if __name__ == "__main__":
    main()
