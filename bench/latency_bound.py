"""Latency-bound model calls: the gateway against the sim server over loopback HTTP.

Run: .venv/bin/python bench/latency_bound.py [--calls 128] [--latency 0.2] [--concurrency 64];
full size: --full (1280 calls). ``vwt sim serve --delay LATENCY`` runs in a subprocess on
127.0.0.1: every request waits LATENCY seconds in its own thread, holding up no other.

Side by side in one run, the same chat completions with tools (the support-ops interface):
(a) the gateway: ``benchmark.complete`` with model ``openai/acme-2`` (litellm's
OpenAI-compatible client pointed at the server), all CALLS at once, the gateway's
VWT_MAX_CONCURRENCY limit letting CONCURRENCY through at a time; (b) plain HTTP: the same
request bodies POSTed with aiohttp under an asyncio semaphore of CONCURRENCY, the floor the
server and the machine allow. Each warms up first (CONCURRENCY calls, same event loop). Prints
for each: ideal time (calls × latency / concurrency), measured time, efficiency = ideal ÷
measured (target >= 0.85 for the gateway), CPU per call here and in the server; and the
machine's cores and load average. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
from _common import bench_run

from benchmark import Limits, ModelPolicy, Usage, complete, load_litellm, served_interface

ROOT = Path(__file__).resolve().parents[1]
MODEL = "acme-2"
_URL = re.compile(r"http://127\.0\.0\.1:\d+/v1")
MESSAGES = [
    {"role": "system", "content": "You are a support agent."},
    {"role": "user", "content": "Refund order ORD-1001 for the customer."},
]


def _start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    """``vwt sim serve`` on a free loopback port; the process and its base URL."""
    server = subprocess.Popen(
        [sys.executable, "-m", "vwt", "sim", "serve", "--delay", str(latency), "--quiet"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert server.stdout is not None
    for line in server.stdout:
        if found := _URL.search(line):
            return server, found.group(0)
    server.kill()
    raise SystemExit(f"error: vwt sim serve exited ({server.wait()}) without a URL")


def _stop(server: subprocess.Popen[str]) -> str:
    """Ctrl-C the server; its closing line (requests served)."""
    server.send_signal(2)
    out, _ = server.communicate(timeout=30)
    return next((line for line in out.splitlines() if line.startswith("stopped:")), out.strip())


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds process ``pid`` has used (from /proc, so Linux only)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


Calls = Callable[[int], Awaitable[None]]
"""Makes n calls at once (their concurrency limited inside)."""


async def _timed(calls: Calls, n: int, warm_up: int, server: int) -> tuple[float, float, float]:
    """Warm up (clients and connections belong to this event loop), then time ``n`` calls:
    wall seconds, CPU seconds in this process and in the server."""
    await calls(warm_up)
    cpu, server_cpu, start = time.process_time(), _cpu_seconds(server), time.perf_counter()
    await calls(n)
    wall = time.perf_counter() - start
    return wall, time.process_time() - cpu, _cpu_seconds(server) - server_cpu


@asynccontextmanager
async def _gateway(concurrency: int, tools: list[dict[str, Any]]) -> AsyncIterator[Calls]:
    policy = ModelPolicy(timeout_s=60, attempts=1, limits=Limits(max_concurrency=concurrency))

    async def calls(n: int) -> None:
        await asyncio.gather(
            *(
                complete(f"openai/{MODEL}", MESSAGES, tools, seed=i, usage=Usage(), policy=policy)
                for i in range(n)
            )
        )

    yield calls


@asynccontextmanager
async def _plain(url: str, concurrency: int, tools: list[dict[str, Any]]) -> AsyncIterator[Calls]:
    limit = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def one(seed: int) -> None:
            body = {"model": MODEL, "messages": MESSAGES, "tools": tools, "seed": seed}
            async with limit, session.post(f"{url}/chat/completions", json=body) as r:
                reply = json.loads(await r.read())
            if r.status != 200 or not reply["choices"][0]["message"]:
                raise SystemExit(f"error: the server answered {r.status}")

        async def calls(n: int) -> None:
            await asyncio.gather(*(one(i) for i in range(n)))

        yield calls


def _side(
    name: str,
    side: AbstractAsyncContextManager[Calls],
    n: int,
    server: int,
    ideal: float,
    warm_up: int,
) -> None:
    async def run() -> tuple[float, float, float]:
        async with side as calls:
            return await _timed(calls, n, warm_up, server)

    wall, cpu, server_cpu = asyncio.run(run())
    # one process's Python code runs on one core at a time: its CPU seconds bound the rate
    print(
        f"{name}: measured {wall:.2f} s ({n / wall:.1f} calls/s), efficiency "
        f"{ideal / wall:.2f}; CPU per call {cpu / n * 1000:.1f} ms here, "
        f"{server_cpu / n * 1000:.1f} ms in the server; at most {min(1.0, ideal / cpu):.2f} "
        "with this CPU per call in one process"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=128, help="model calls (default 128)")
    parser.add_argument("--full", action="store_true", help="full size: 1280 calls")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per request (0.2)")
    parser.add_argument("--concurrency", type=int, default=64, help="calls in flight (64)")
    args = parser.parse_args()
    calls = 1280 if args.full else args.calls
    if calls < 1 or args.concurrency < 1 or not 0 < args.latency <= 600:
        parser.error("--calls and --concurrency must be >= 1 and --latency in (0, 600]")
    tools = [t.to_openai() for t in served_interface("support-ops", "support-ops@1").tools.tools]
    ideal = calls * args.latency / args.concurrency
    title = (
        f"latency-bound calls: {calls} calls of {args.latency * 1000:.0f} ms at concurrency "
        f"{args.concurrency}, sim server over loopback HTTP"
    )
    with bench_run(title):
        server, url = _start_server(args.latency)
        try:
            os.environ.pop("OPENAI_BASE_URL", None)  # it would win over OPENAI_API_BASE
            os.environ["OPENAI_API_BASE"], os.environ["OPENAI_API_KEY"] = url, "sim"
            load_litellm()
            print(
                f"calls {calls}, latency {args.latency:.3f} s, concurrency {args.concurrency}, "
                f"ideal {ideal:.2f} s, cores {os.cpu_count()}"
            )
            sides = {
                "gateway (litellm)": _gateway(args.concurrency, tools),
                "plain HTTP (aiohttp)": _plain(url, args.concurrency, tools),
            }
            for name, side in sides.items():
                _side(name, side, calls, server.pid, ideal, warm_up=args.concurrency)
        finally:
            print(f"server: {_stop(server)}")
        print("target: gateway efficiency >= 0.85")
    return 0


if __name__ == "__main__":
    sys.exit(main())
