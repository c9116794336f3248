"""Measure what a family backend pays to run a command with `run_limited` inside a sandbox.

Run: .venv/bin/python bench/sandbox_exec_cost.py [--reps N]. For the local sandbox and (where
`docker_status()` says it is usable) the Docker sandbox, starts the sandbox with a backend
server whose backend runs commands through `benchmark/_sandbox_exec.py` (mounted as the worker
mounts it), writes a tiny Python project (a package of two modules, eight unittest tests) into
the work tree, and times N runs each of `python3 -c pass`, `python3 -m unittest` and
`python3 -m compileall -q`: inside the backend (run_limited alone) and as the trial sees it
(the MCP tools/call round trip). Also times sandbox start and stop. Prints median and p90
in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmark import McpBackend
from runner._sandbox_base import Mount, Sandbox
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import docker_status
from runner._sandbox_local import LocalSandbox

BACKEND = """\
import time
from _sandbox_exec import run_limited


class BackendError(Exception):
    pass


class Backend:
    def __init__(self, state):
        pass

    def call(self, tool, args):
        started = time.perf_counter()
        result = run_limited(args["argv"], args["cwd"], 60)
        result["seconds"] = time.perf_counter() - started
        return result

    def dump(self):
        return {}
"""

PROJECT = {
    "proj/calc/__init__.py": '"""A tiny package."""\n',
    "proj/calc/ops.py": (
        "def add(a, b):\n    return a + b\n\n\n"
        "def scale(values, factor):\n    return [v * factor for v in values]\n"
    ),
    "proj/calc/units.py": (
        "CENTS = 100\n\n\ndef to_cents(dollars):\n    return round(dollars * CENTS)\n"
    ),
    "proj/tests/__init__.py": "",
    "proj/tests/test_calc.py": (
        "import unittest\n\nfrom calc.ops import add, scale\nfrom calc.units import to_cents\n\n\n"
        "class TestCalc(unittest.TestCase):\n"
        + "".join(
            f"    def test_{i}(self):\n        self.assertEqual(add({i}, 1), {i + 1})\n"
            f"        self.assertEqual(scale([{i}], 2), [{2 * i}])\n"
            f"        self.assertEqual(to_cents({i}.5), {i * 100 + 50})\n\n"
            for i in range(8)
        )
    ),
}

COMMANDS = {
    "python3 -c pass": ["python3", "-c", "pass"],
    "python3 -m unittest": ["python3", "-m", "unittest", "-q"],
    "python3 -m compileall": ["python3", "-m", "compileall", "-q", "calc", "tests"],
}


async def _bench(
    name: str, make: Callable[[list[Mount]], Sandbox], backend_file: Path, reps: int
) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"start": [], "stop": []}
    backend = McpBackend(backend_file, [], "bench", timeout=120)
    t0 = time.perf_counter()
    sandbox = make([Mount(*m) for m in backend.mounts()])
    await sandbox.start()
    times["start"].append(time.perf_counter() - t0)
    try:
        async with backend.serve(sandbox), backend.trial({}) as trial:
            for path, text in PROJECT.items():
                await sandbox.write_file(path, text.encode())
            for label, argv in COMMANDS.items():
                for _ in range(reps):
                    started = time.perf_counter()
                    r = await trial.call("run", {"argv": argv, "cwd": "proj"})
                    elapsed = time.perf_counter() - started
                    times.setdefault(f"{label} (round trip)", []).append(elapsed)
                    times.setdefault(f"{label} (run_limited)", []).append(r["seconds"])
                    if r["exit"] != 0:
                        raise RuntimeError(f"{name}: {label} failed: {r['stderr'][-500:]}")
    finally:
        t1 = time.perf_counter()
        await sandbox.stop()
        times["stop"].append(time.perf_counter() - t1)
    return times


def _report(name: str, times: dict[str, list[float]]) -> None:
    for phase, seconds in times.items():
        ms = 1e3 * np.asarray(seconds)
        median, p90 = np.median(ms), np.percentile(ms, 90)
        print(f"{name:<7} {phase:<36} {len(ms):>4} {median:>10.1f} {p90:>10.1f}")


def main() -> None:
    """Print median and p90 latency per sandbox kind and command, in milliseconds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20, help="runs of each command")
    args = parser.parse_args()
    available, reason = docker_status()
    print(f"python {platform.python_version()}, {platform.machine()}, {args.reps} reps")
    print(f"docker: {reason}")
    print(f"{'sandbox':<7} {'what':<36} {'n':>4} {'median ms':>10} {'p90 ms':>10}")
    kinds: list[tuple[str, Callable[[list[Mount]], Sandbox]]] = [
        ("local", lambda m: LocalSandbox(mounts=m))
    ]
    if available:
        kinds.append(("docker", lambda m: DockerSandbox(mounts=m)))
    with tempfile.TemporaryDirectory() as tmp:
        backend_file = Path(tmp) / "backend.py"
        backend_file.write_text(BACKEND)
        Path(tmp).chmod(0o755)
        for name, make in kinds:
            _report(name, asyncio.run(_bench(name, make, backend_file, args.reps)))


if __name__ == "__main__":
    main()
