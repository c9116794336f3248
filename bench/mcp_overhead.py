"""MCP per-call overhead: what a tool call and a trial's setup cost over the MCP transports.

Run: .venv/bin/python bench/mcp_overhead.py [--calls N] [--trials N] [--sandbox local|docker].
For support_ops's cheapest read (``find_customer``) it times, in one sandbox:

- the server's start (process, SDK import, control channel) and the first trial opened;
- a canonical call on a trial's channel of the server's stdio (``BackendTrial.call``):
  sequential median and p90, and calls/s with 16 trials calling at once;
- the harness's whole path (``TrialEnvironment.call``: harness session -> in-memory drift
  proxy -> the trial's session -> server), sequential median and p90;
- a trial's MCP setup and teardown (``TrialEnvironment.start`` + ``close``: open, two
  sessions initialized, tools/list, close), median;
- for the alternative of one stdio server per trial: starting the interpreter with the SDK's
  server modules imported (what each trial would pay before its first call), median.

The old JSON-lines protocol's numbers, measured before it was removed, are in docs/mcp.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from benchmark import McpBackend, TrialEnvironment, family, host_site, serve, server_site
from drift import ToolCall
from runner import Mount, make_sandbox

FAMILY = family("support_ops")
TASK = FAMILY.generate("dev", 0, 1)
EMAIL = next(iter(TASK.initial_state["customers"].values()))["email"]
CALL = ToolCall(name="find_customer", arguments={"email": EMAIL})


def _ms(seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return f"median {1e3 * statistics.median(ordered):.2f} ms, p90 {1e3 * p90:.2f} ms"


async def _timed(n: int, step: Callable[[], Awaitable[object]]) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        await step()
        out.append(time.perf_counter() - started)
    return out


async def _bench(kind: str, calls: int, trials: int) -> None:
    backend = McpBackend.of(FAMILY)
    sandbox = make_sandbox(kind, mounts=[Mount(*m) for m in backend.mounts()])
    served = serve(FAMILY.env_id, FAMILY.interface_versions()["support-ops@1"])
    async with sandbox:
        started = time.perf_counter()
        async with backend.serve(sandbox):
            async with backend.trial(TASK.initial_state) as trial:
                first = time.perf_counter() - started
                print(f"{kind}: server start + first trial open: {1e3 * first:.0f} ms")
                seq = await _timed(calls, lambda: trial.call(CALL.name, CALL.arguments))
                print(f"{kind}: canonical tools/call on a trial's stdio channel: {_ms(seq)}")

            async def one_trial() -> None:
                async with backend.trial(TASK.initial_state) as t:
                    for _ in range(calls // 4):
                        await t.call(CALL.name, CALL.arguments)

            started = time.perf_counter()
            await asyncio.gather(*(one_trial() for _ in range(16)))
            rate = 16 * (calls // 4) / (time.perf_counter() - started)
            print(f"{kind}: 16 trials calling at once: {rate:.0f} calls/s")

            env = TrialEnvironment(FAMILY, TASK, served, backend)
            await env.start()
            try:
                path = await _timed(calls, lambda: env.call(CALL))
            finally:
                await env.close()
            print(f"{kind}: harness -> drift proxy -> server (TrialEnvironment.call): {_ms(path)}")

            async def setup() -> None:
                e = TrialEnvironment(FAMILY, TASK, served, backend)
                await e.start()
                await e.close()

            print(f"{kind}: trial MCP setup + teardown: {_ms(await _timed(trials, setup))}")


IMPORTS = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "import mcp.server.lowlevel, mcp.server.stdio, mcp.types"
)


def _stdio_start(n: int, python: tuple[str, ...]) -> list[float]:
    out = []
    for _ in range(n):
        started = time.perf_counter()
        subprocess.run([*python, "-c", IMPORTS, server_site("local")], check=True)
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    """Print the numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400)
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--sandbox", default="local")
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, SDK at {host_site()}, load {os.getloadavg()[0]:.1f}")
    asyncio.run(_bench(args.sandbox, args.calls, args.trials))
    python = make_sandbox("local").python  # the interpreter a local sandbox's server runs on
    starts = _stdio_start(10, python)
    print(f"local: one stdio server per trial, interpreter + SDK import: {_ms(starts)}")


if __name__ == "__main__":
    main()
