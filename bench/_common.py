"""What every side-by-side bench shares: the machine line, a stopwatch, the source's batches.

The benches run as scripts (``python bench/<name>.py``), so ``bench/`` is on ``sys.path`` and
they import this module as ``_common``.
"""

from __future__ import annotations

import os
import platform
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmark import default_cycle_spec_path
from conditions import CycleSpec
from runner import Batch, Execution, TrialStore, execute, plan_phase
from submissions import reference_bundles


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as ``uptime`` prints them."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def machine() -> str:
    """One line naming the machine: CPU, cores, Python and the load average now."""
    cpu = platform.processor() or platform.machine()
    return (
        f"machine: {os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}, load average {load_average()}"
    )


@contextmanager
def bench_run(title: str) -> Iterator[None]:
    """Print the bench's title and the machine before, the load average after."""
    print(f"{title} — {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{machine()} (start)")
    yield
    print(f"load average at end: {load_average()} on {os.cpu_count()} cores")


@dataclass
class Stopwatch:
    """Wall seconds of the ``with`` block (``seconds`` once it ends)."""

    seconds: float = 0.0

    def __enter__(self) -> Stopwatch:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start


class CpuBusy:
    """Cores the whole machine kept busy since this was made (from /proc/stat, Linux only)."""

    def __init__(self) -> None:
        self._start = self._times()

    @staticmethod
    def _times() -> tuple[int, int]:
        with open("/proc/stat") as f:
            ticks = [int(t) for t in f.readline().split()[1:]]
        idle = ticks[3] + ticks[4]  # idle and iowait
        return sum(ticks) - idle, sum(ticks)

    def cores(self) -> float:
        """Busy cores on average: busy time over elapsed time, times the cores."""
        (busy0, total0), (busy1, total1) = self._start, self._times()
        return (os.cpu_count() or 1) * (busy1 - busy0) / max(total1 - total0, 1)


def rate(trials: int, seconds: float) -> str:
    """``N trials in S s = R trials/s``."""
    return f"{trials} trials in {seconds:.2f} s = {trials / seconds:.1f} trials/s"


def rss_mib() -> float:
    """Resident set size of this process now, in MiB (from /proc, so Linux only)."""
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def source_batches(tasks: int, k: int, cycle: str = "bench") -> list[Batch]:
    """The default cycle's source condition, frozen phase, every reference bundle and the
    baseline: ``tasks`` sealed tasks, ``k`` trials each, one batch per condition and arm."""
    spec = CycleSpec.load(default_cycle_spec_path())
    return plan_phase(
        cycle=cycle,
        cycle_seed=spec.seed,
        phase="frozen",
        conditions=[(spec.source.id, spec.source)],
        bundles=reference_bundles(),
        tasks_per_split=tasks,
        k=k,
    )


def trial_count(batches: list[Batch]) -> int:
    """Trials in ``batches``."""
    return sum(len(b.trials) for b in batches)


def first_trials(batches: list[Batch]) -> list[Batch]:
    """The first trial of each batch: a warm-up that reaches every worker Ray will use."""
    return [b.model_copy(update={"trials": b.trials[:1]}) for b in batches]


def execute_in_temp_store(batches: list[Batch]) -> tuple[Execution, int]:
    """``runner.execute`` (Ray, local sandbox) into a new store; what it did and the
    records stored."""
    with tempfile.TemporaryDirectory() as tmp:
        store = TrialStore(Path(tmp) / "vwt.sqlite")
        done = execute(store, batches, sandbox="local")
        return done, len(store.records())
