"""Measure sandbox latencies: start, first exec, stop; spawned JSON-lines round trips; and a
family's MCP server coming up in it.

Run: .venv/bin/python bench/sandbox_startup.py [--reps N] [--round-trips M]. For the local
sandbox and (where `docker_status()` says it is usable) the Docker sandbox, each repetition
starts a sandbox, runs `true`, spawns a python3 JSON-lines echo server, times M small round
trips through it, starts support_ops's MCP server (the SDK's import and the handshake: what
each batch of trials pays before its first trial), and stops the sandbox. Prints median and
p90 in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import time
from collections.abc import Callable

import numpy as np

from benchmark import McpBackend, family
from runner._sandbox_base import Mount, Sandbox
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import docker_status
from runner._sandbox_local import LocalSandbox

ECHO_SERVER = b"""\
import sys
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
"""


async def _roundtrip(proc: asyncio.subprocess.Process, n: int) -> None:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps({"id": n, "op": "ping"}).encode() + b"\n")
    await proc.stdin.drain()
    if json.loads(await proc.stdout.readline())["id"] != n:
        raise RuntimeError("the echo server answered out of order")


async def _one(
    make: Callable[..., Sandbox], round_trips: int, times: dict[str, list[float]]
) -> None:
    backend = McpBackend.of(family("support_ops"))
    sandbox = make(mounts=[Mount(*m) for m in backend.mounts()])
    t0 = time.perf_counter()
    await sandbox.start()
    t1 = time.perf_counter()
    if not (await sandbox.exec(["true"])).ok:
        raise RuntimeError("`true` failed in the sandbox")
    t2 = time.perf_counter()
    await sandbox.write_file("echo.py", ECHO_SERVER)
    proc = await sandbox.spawn(["python3", "echo.py"])
    await _roundtrip(proc, -1)
    t3 = time.perf_counter()
    for n in range(round_trips):
        start = time.perf_counter()
        await _roundtrip(proc, n)
        times["round trip"].append(time.perf_counter() - start)
    t4 = time.perf_counter()
    await backend.start(sandbox)
    t5 = time.perf_counter()
    await backend.close()
    t6 = time.perf_counter()
    await sandbox.stop()
    t7 = time.perf_counter()
    for phase, seconds in (
        ("start", t1 - t0),
        ("first exec", t2 - t1),
        ("stop", t7 - t6),
        ("start+exec+stop", (t2 - t0) + (t7 - t6)),
        ("write+spawn+1st reply", t3 - t2),
        ("MCP server up", t5 - t4),
    ):
        times[phase].append(seconds)


def _report(name: str, times: dict[str, list[float]]) -> None:
    for phase, seconds in times.items():
        ms = 1e3 * np.asarray(seconds)
        median, p90 = np.median(ms), np.percentile(ms, 90)
        print(f"{name:<7} {phase:<22} {len(ms):>6} {median:>10.2f} {p90:>10.2f}")


async def _bench(name: str, make: Callable[..., Sandbox], reps: int, round_trips: int) -> None:
    phases = ("start", "first exec", "stop", "start+exec+stop", "write+spawn+1st reply")
    times: dict[str, list[float]] = {p: [] for p in (*phases, "MCP server up", "round trip")}
    for _ in range(reps):
        await _one(make, round_trips, times)
    _report(name, times)


def main() -> None:
    """Print median and p90 latency per sandbox kind and phase, in milliseconds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20, help="sandboxes started per kind")
    parser.add_argument("--round-trips", type=int, default=200, help="round trips per sandbox")
    args = parser.parse_args()
    available, reason = docker_status()
    print(f"python {platform.python_version()}, {platform.machine()}, {args.reps} reps")
    print(f"docker: {reason}")
    print(f"{'sandbox':<7} {'phase':<22} {'n':>6} {'median ms':>10} {'p90 ms':>10}")
    kinds: list[tuple[str, Callable[..., Sandbox]]] = [("local", LocalSandbox)]
    if available:
        kinds.append(("docker", DockerSandbox))
    for name, make in kinds:
        asyncio.run(_bench(name, make, args.reps, args.round_trips))


if __name__ == "__main__":
    main()
