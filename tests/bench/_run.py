"""Running a bench script as its users do: a subprocess of this interpreter, from the repo."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MACHINE = re.compile(r"machine: \d+ cores .* load average [\d.]+ [\d.]+ [\d.]+ \(start\)")
END = re.compile(r"load average at end: [\d.]+ [\d.]+ [\d.]+ on \d+ cores")


def assert_bench_runs(script: str, *args: str) -> str:
    """Run ``bench/<script>`` with ``args``; its stdout, after checking it exited 0 and
    printed the machine line and the load average at the end."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / script), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert MACHINE.search(done.stdout), done.stdout
    assert END.search(done.stdout), done.stdout
    return done.stdout


def assert_figure(pattern: str, out: str) -> float:
    """The number that ``pattern``'s one group matches in ``out`` (which must match)."""
    found = re.search(pattern, out)
    assert found, f"no {pattern!r} in:\n{out}"
    return float(found.group(1))
