"""A framework harness's cost per trial, against harness-v1.

Runs the same trials — the no-artifact baseline on the first support-operations dev tasks, sim
models in process, local sandbox, one batch — under harness-v1 and under each installed
framework harness, in this process (``run_batch_async``), the harnesses taking turns round by
round. Each framework runs twice: as a batch runs it (a process server that imports the
framework once and forks a process per trial) and with a fresh process per trial (as a trial
run outside a batch is; this bench's patch turns the batch's server off), which pays the
interpreter's start and the framework's import every time. Prints, per harness and way, the
wall seconds and the CPU seconds per trial (this process and its children: the framework
processes, the loopback endpoints in this process, the sandbox's MCP server) and the
difference to harness-v1; best of the rounds. The sim answers in well under a millisecond, so
with a real model the difference is the same and the trial takes longer.

Run: ``python bench/harness_overhead.py [--tasks N] [--rounds R] [--concurrency C]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import resource
import time

from _common import bench_run

from benchmark import default_cycle_spec_path
from benchmark.harness import HARNESSES, FrameworkHarness, harness
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


def _round(batch: Batch, concurrency: int, server: bool) -> tuple[float, float, list[str]]:
    """(wall s, CPU s, outcomes) of one run of ``batch`` (a framework's with or without
    its process server)."""
    real = FrameworkHarness.session
    if not server:
        FrameworkHarness.session = lambda self: contextlib.nullcontext()  # type: ignore[method-assign]
    try:
        start_wall, start_cpu = time.perf_counter(), _cpu()
        rows = asyncio.run(run_batch_async(batch, "local", concurrency=concurrency))
        wall, cpu = time.perf_counter() - start_wall, _cpu() - start_cpu
    finally:
        FrameworkHarness.session = real  # type: ignore[method-assign]
    return wall, cpu, [TrialRecord.model_validate_json(r.record).outcome for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tasks", type=int, default=16, help="trials per harness and round")
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
    runs = [("harness-v1", "", True)]
    runs += [(hid, way, way == "server") for hid in ids[1:] for way in ("server", "per trial")]
    batches = {hid: _batch(hid, args.tasks) for hid in ids}
    with bench_run("harness overhead per trial"):
        empty = batches["harness-v1"].model_copy(update={"trials": ()})
        _round(empty, 1, True)  # imports, warm-up
        best: dict[tuple[str, str], tuple[float, float]] = {}
        outcomes: dict[tuple[str, str], list[str]] = {}
        for _ in range(args.rounds):
            for hid, way, server in runs:
                wall, cpu, got = _round(batches[hid], args.concurrency, server)
                old = best.get((hid, way), (float("inf"), float("inf")))
                best[hid, way] = (min(old[0], wall), min(old[1], cpu))
                outcomes[hid, way] = got
        n = args.tasks
        base_wall, base_cpu = (x / n for x in best["harness-v1", ""])
        print(
            f"{n} trials per harness (support_ops dev, baseline arm, sim/acme-2, local sandbox, "
            f"one batch), {args.concurrency} at once, best of {args.rounds} rounds; per trial:"
        )
        head = f"{'harness':22} {'process':10} {'wall s':>7} {'CPU s':>7} {'Δwall s':>8}"
        print(f"{head} {'ΔCPU s':>8}  outcomes")
        for hid, way, _ in runs:
            wall, cpu = (x / n for x in best[hid, way])
            got = outcomes[hid, way]
            shown = ", ".join(f"{o} {got.count(o)}" for o in sorted(set(got)))
            print(
                f"{hid:22} {way:10} {wall:7.2f} {cpu:7.2f} {wall - base_wall:+8.2f} "
                f"{cpu - base_cpu:+8.2f}  {shown}"
            )


if __name__ == "__main__":
    main()
