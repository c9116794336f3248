"""How long the `vwt` command takes to answer: help pages and bad model strings.

Run: .venv/bin/python bench/cli_startup.py [--reps N]. Each case starts the venv's `vwt` script
in a fresh process N times (default 5) and prints the wall seconds (min, median) and the CPU
seconds the process used (user + system, median): on a busy machine the wall time grows with
the load, the CPU time much less, so both are shown with the load average. The cases: `vwt
--help`, `vwt run dev --help`, and `vwt run dev` with a model string refused before anything
runs (an unknown provider, no provider prefix, a missing credential). Every case is checked to
end as it should (exit 0 for help, exit 2 with an `error:` line for a bad model).

To time another checkout with the same environment (main, before a change), run from outside
this work tree with that checkout first on the path:
``cd /tmp && PYTHONPATH=/path/to/checkout /path/to/.venv/bin/python /path/to/bench/cli_startup.py``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from _common import bench_run

VWT = str(Path(sys.executable).parent / "vwt")
"""The console script next to this Python, as a user runs it."""
SUBMISSION = Path(__file__).resolve().parents[1] / "submissions" / "reference" / "typed-skill"


@dataclass(frozen=True)
class Case:
    """One command line and how it must end."""

    label: str
    args: tuple[str, ...]
    exit_code: int
    says: str  # a text its output must hold


def _cases(home: Path) -> list[Case]:
    dev = ("run", "dev", "--home", str(home), "--submission", str(SUBMISSION), "--model")
    return [
        Case("vwt --help", ("--help",), 0, "Usage: vwt"),
        Case("vwt run dev --help", ("run", "dev", "--help"), 0, "Usage: vwt run dev"),
        Case("bad model: unknown provider", (*dev, "acme/acme-2"), 2, "unknown provider"),
        Case("bad model: no provider prefix", (*dev, "gpt-4o-mini"), 2, "no provider prefix"),
        Case("bad model: missing credential", (*dev, "openai/gpt-4o-mini"), 2, "credential"),
    ]


def _once(case: Case, env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``case``; raises if it ends otherwise."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([VWT, *case.args], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    output = done.stdout + done.stderr
    if done.returncode != case.exit_code or case.says not in output:
        raise RuntimeError(f"{case.label}: exit {done.returncode}, output:\n{output}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="runs per case")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))}
    env |= {"COLUMNS": "100", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    with bench_run("vwt start-up"), tempfile.TemporaryDirectory() as tmp:
        print(f"{'case':34} {'wall min':>9} {'wall med':>9} {'cpu med':>8}")
        for case in _cases(Path(tmp) / "dev"):
            _once(case, env)  # warm the file cache: every measured run starts the same way
            runs = [_once(case, env) for _ in range(args.reps)]
            walls, cpus = [w for w, _ in runs], [c for _, c in runs]
            print(
                f"{case.label:34} {min(walls):8.2f}s {statistics.median(walls):8.2f}s "
                f"{statistics.median(cpus):7.2f}s"
            )


if __name__ == "__main__":
    main()
