"""The cost of a model call by wire: the sim in process (``sim/…``), and the sim server on
loopback reached through litellm's OpenAI, Anthropic and Gemini adapters.

Each model answers the same two requests (a task's first turn, and the turn after a tool
result) through the gateway (``benchmark.complete``), ``--calls`` times; the server runs in
this process, so CPU time counts both sides. Prints wall and CPU milliseconds per call.
Run with `python bench/wire_overhead.py [--calls N]`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from _common import bench_run

from benchmark import ModelPolicy, Usage, complete, family, served_interface
from benchmark.sim import SimServer
from conditions import ModelEndpoint

PROVIDERS = ("sim", "openai", "anthropic", "gemini")


def _requests() -> tuple[list[list[dict[str, object]]], list[dict[str, object]]]:
    task = family("support_ops").tasks("sealed", 1, 7)[0]
    tools = [t.to_openai() for t in served_interface("support-ops", "support-ops@1").tools.tools]
    first = [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": task.instruction},
    ]
    call = {"id": "call_0", "type": "function"}
    call["function"] = {"name": "find_customer", "arguments": '{"email": "a@example.com"}'}
    second = [
        *first,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_0", "content": '{"customer_id": "C-1"}'},
    ]
    return [first, second], tools


async def _run(provider: str, server: SimServer, calls: int) -> tuple[float, float]:
    conversations, tools = _requests()
    endpoint = None if provider == "sim" else ModelEndpoint(api_base=server.base_url(provider))
    policy = ModelPolicy(timeout_s=30, attempts=1)
    usage = Usage()

    async def one(i: int) -> None:
        messages = conversations[i % 2]
        model = f"{provider}/acme-2"
        await complete(
            model, messages, tools, seed=i, usage=usage, policy=policy, endpoint=endpoint
        )

    await one(0)  # warm: imports, connection pool
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(calls):
        await one(i)
    return (time.perf_counter() - wall) / calls * 1000, (time.process_time() - cpu) / calls * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        os.environ.pop(name, None)
    with bench_run("model call cost by wire format"), SimServer() as server:
        for provider in PROVIDERS:
            wall, cpu = asyncio.run(_run(provider, server, args.calls))
            print(f"{provider + '/acme-2':18} {wall:7.2f} ms wall  {cpu:7.2f} ms CPU per call")


if __name__ == "__main__":
    main()
