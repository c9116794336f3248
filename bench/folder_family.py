"""What a task family written as a folder costs: the example ``file_ops`` family, a real MCP
server (the filesystem server from npm) started per trial in the sandbox.

Run: .venv/bin/python bench/folder_family.py [--trials N] [--sandbox local|docker]
[--version files@2025.7.1|files@2026.8.31]. It prints, with the machine's load average:

- loading the folder (read, digest, validate every line) and the sim pack, median;
- the batch's start in one sandbox: the relay's process, its control channel, and the check
  of the release's tools (one trial's server asked for its tools/list);
- a trial's whole life on the server, sequentially: open (files written, ``node`` started over
  them), one MCP session, a ``write_file`` call, ``dump`` (the files read back), close —
  median and p90;
- a canonical ``write_file`` call on an open trial, median and p90;
- trials opened and closed per second with the family's concurrency (6) at once.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmark import McpBackend, load_family_folder
from runner import Mount, make_sandbox

FOLDER = Path(__file__).resolve().parents[1] / "benchmark" / "families" / "file_ops"


def _ms(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return f"median {1e3 * statistics.median(ordered):.1f} ms, p90 {1e3 * p90:.1f} ms"


def _load(n: int) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        fam = load_family_folder(FOLDER)
        fam.sim_pack()
        out.append(time.perf_counter() - started)
    return out


async def _bench(trials: int, kind: str, version: str) -> None:
    fam = load_family_folder(FOLDER)
    task = fam.tasks("dev", 1, 0)[0]
    backend = McpBackend.of(fam, fam.interface_versions()[version])
    box = make_sandbox(kind, mounts=[Mount(*m) for m in backend.mounts()])
    args = {"path": "bench.md", "content": "x"}
    async with box:
        started = time.perf_counter()
        async with backend.serve(box):
            print(
                f"batch start (relay, control, tools check): {time.perf_counter() - started:.2f} s"
            )
            lives = []
            for _ in range(trials):
                t0 = time.perf_counter()
                async with backend.trial(task.initial_state) as trial:
                    await trial.call("write_file", args)
                    await trial.dump()
                lives.append(time.perf_counter() - t0)
            print(f"a trial's life (open, server start, a call, dump, close): {_ms(lives)}")
            async with backend.trial(task.initial_state) as trial:
                calls = []
                for _ in range(max(trials, 20)):
                    t0 = time.perf_counter()
                    await trial.call("write_file", args)
                    calls.append(time.perf_counter() - t0)
            print(f"write_file on an open trial: {_ms(calls)}")

            async def one() -> None:
                async with backend.trial(task.initial_state) as trial:
                    await trial.dump()

            t0 = time.perf_counter()
            await asyncio.gather(*(one() for _ in range(trials)))
            rate = trials / (time.perf_counter() - t0)
            print(f"trials opened and closed at once (concurrency 6): {rate:.1f}/s")


def main() -> None:
    """Print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--sandbox", choices=("local", "docker"), default="local")
    parser.add_argument("--version", default="files@2026.8.31")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; sandbox {args.sandbox}; {args.version}")
    print(f"folder load and validate (55 tasks, 2 releases, pack): {_ms(_load(10))}")
    asyncio.run(_bench(args.trials, args.sandbox, args.version))


if __name__ == "__main__":
    main()
