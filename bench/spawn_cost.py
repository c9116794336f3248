"""What starting a local-sandbox command as another user costs a large process.

Run: .venv/bin/python bench/spawn_cost.py [--reps N] [--resident MB]. This process imports
what a run's driver or pool worker holds (litellm, Ray, the runner), touches ``--resident`` MiB
more (default 600) and then starts ``true`` N times (default 40) through the local sandbox's
``run_to_end``: as this user, as ``nobody`` through ``setpriv`` (the local sandbox's way under
root), and as ``nobody`` through Python's own ``user=``, which makes ``subprocess`` copy the
whole process with ``fork()`` instead of ``vfork()``. Prints, per way, the median and p90 wall
milliseconds per start and the CPU milliseconds this process spent per start. The two ways
as ``nobody`` need root; elsewhere only the first is measured.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

import numpy as np
from _common import bench_run

from runner import _sandbox_proc
from runner._sandbox_base import NOBODY


async def _starts(reps: int, user: tuple[int, int] | None) -> tuple[list[float], float]:
    walls = []
    cpu = time.process_time()
    for _ in range(reps):
        t = time.perf_counter()
        done = await _sandbox_proc.run_to_end(["true"], input=None, timeout=30, user=user)
        walls.append(time.perf_counter() - t)
        if done.returncode != 0:
            raise RuntimeError(f"`true` exited {done.returncode}: {done.stderr!r}")
    return walls, (time.process_time() - cpu) / reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--resident", type=int, default=600, help="MiB to touch first")
    args = parser.parse_args()
    import litellm  # noqa: F401  (what a driver or worker holds; after _common's settings)
    import ray  # noqa: F401

    held = bytearray(args.resident << 20)
    for i in range(0, len(held), 4096):
        held[i] = 1
    ways: list[tuple[str, tuple[int, int] | None, str | None]] = [
        ("as this user", None, _sandbox_proc._SETPRIV)
    ]
    if os.geteuid() == 0:
        ways += [
            ("as nobody through setpriv", NOBODY, _sandbox_proc._SETPRIV),
            ("as nobody through user=", NOBODY, None),
        ]
    with bench_run("Starting a local-sandbox command"):
        with open("/proc/self/status") as f:
            rss = next(line.split()[1] for line in f if line.startswith("VmRSS"))
        print(f"this process: {int(rss) >> 10} MiB resident; {args.reps} starts of `true` each")
        if os.geteuid() != 0:
            print("not root: the two ways as nobody are not measured")
        for name, user, setpriv in ways:
            if user is not None and name.endswith("setpriv") and setpriv is None:
                print(f"{name:30s} no setpriv on /usr/bin:/bin")
                continue
            _sandbox_proc._SETPRIV = setpriv
            walls, cpu = asyncio.run(_starts(args.reps, user))
            ms = np.array(walls) * 1000
            print(
                f"{name:30s} median {np.median(ms):7.1f} ms  p90 {np.percentile(ms, 90):7.1f} ms"
                f"  cpu {cpu * 1000:7.1f} ms"
            )


if __name__ == "__main__":
    main()
