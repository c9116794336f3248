"""A stand-in framework for the tests of the out-of-process machinery: a small agent loop of
its own over the loopback endpoints (chat completions with httpx, tools with the MCP SDK's
client), run by vwt's own Python. What it does wrong is set by the environment its harness
gives it: FAKE_CRASH_ON / FAKE_HANG_ON (a word of the request), FAKE_EXIT (a status),
FAKE_NOISE (megabytes written to stdout and stderr), FAKE_PHONE_HOME (connect to a public
address), FAKE_PIDFILE (where to write its pid and its child's), FAKE_KILL_PARENT_ON (a word of
the request: kill the process server, then hang)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmark" / "harness" / "drivers"))

import _driver
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamablehttp_client


def _misbehave(trial: dict[str, Any]) -> None:
    env = os.environ
    pidfile = env.get("FAKE_PIDFILE")
    if env.get("FAKE_NOISE"):
        junk = "x" * 1023 + "\n"
        for _ in range(int(env["FAKE_NOISE"]) * 1024):
            sys.stdout.write(junk)
            sys.stderr.write(junk)
        sys.stderr.write("the last line of the noise\n")
    if env.get("FAKE_EXIT"):
        sys.exit(int(env["FAKE_EXIT"]))
    if env.get("FAKE_HANG_ON") and env["FAKE_HANG_ON"] in trial["input"]:
        child = subprocess.Popen(["sleep", "1000"])
        if pidfile:
            Path(pidfile).write_text(f"{os.getpid()} {child.pid}")
        time.sleep(1000)
    if env.get("FAKE_KILL_PARENT_ON") and env["FAKE_KILL_PARENT_ON"] in trial["input"]:
        if pidfile:
            Path(pidfile).write_text(str(os.getpid()))
        os.kill(os.getppid(), 9)  # the process server it was forked from
        time.sleep(1000)
    if env.get("FAKE_PHONE_HOME"):
        try:
            import socket

            socket.create_connection(("192.0.2.1", 443), timeout=5)
        except OSError:
            pass


async def run(trial: dict[str, Any]) -> dict[str, Any]:
    """A plain agent loop: the model's tool calls sent to the MCP server until it answers."""
    _misbehave(trial)
    headers = {"Authorization": f"Bearer {trial['token']}"}
    async with (
        streamablehttp_client(trial["mcp_url"], headers=headers) as (read, write, _),
        ClientSession(read, write) as session,
        httpx.AsyncClient(headers=headers, timeout=trial["timeout_s"]) as http,
    ):
        await session.initialize()
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description or "",
                    "parameters": t.inputSchema,
                },
            }
            for t in (await session.list_tools()).tools
        ]
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": trial["instructions"]},
            {"role": "user", "content": trial["input"]},
        ]
        for _ in range(trial["max_turns"]):
            body = {"model": trial["model_name"], "messages": messages, "tools": tools}
            response = await http.post(trial["model_url"] + "/chat/completions", json=body)
            response.raise_for_status()
            message = response.json()["choices"][0]["message"]
            messages.append(message)
            crash = os.environ.get("FAKE_CRASH_ON")
            if crash and crash in trial["input"]:
                raise RuntimeError("boom: the fake framework crashed on purpose")
            if not message.get("tool_calls"):
                return {"ended": "answered", "final": message.get("content") or ""}
            for call in message["tool_calls"]:
                fn = call["function"]
                result = await session.call_tool(fn["name"], json.loads(fn["arguments"]))
                text = "\n".join(c.text for c in result.content if c.type == "text")
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": text})
    return {"ended": "turn_limit", "detail": f"{trial['max_turns']} turns"}


if __name__ == "__main__":
    _driver.main(run)
