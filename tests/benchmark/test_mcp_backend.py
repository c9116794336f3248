"""A family's MCP server and the runner's handle on it: trials kept apart, calls over MCP,
the control channel out of the tools' reach, a dead or silent server an infrastructure error."""

import asyncio
import sys
import time
from pathlib import Path

import pytest
from mcp.shared.exceptions import McpError

from benchmark import (
    BackendCallError,
    BackendUnavailable,
    BenchmarkError,
    McpBackend,
    backend_timeout,
    family,
)
from tests.benchmark._helpers import start_backend

FAMILY = family("support_ops")
TASK = FAMILY.tasks("sealed", 1, 5)[0]
CONTROL_TOOLS = {"open", "dump", "close"}


def test_trials_are_isolated_and_calls_round_trip_over_mcp(tmp_path: Path) -> None:
    async def go() -> None:
        backend = await start_backend(FAMILY, tmp_path)
        try:
            async with (
                backend.trial(TASK.initial_state) as a,
                backend.trial(TASK.initial_state) as b,
            ):
                listed = await a.session.list_tools()
                assert [t.name for t in listed.tools] == FAMILY.base_tools().names()
                refund = TASK.reference_calls[0]
                assert (await a.call(refund.name, refund.arguments))["status"] == "issued"
                end_a, end_b = await asyncio.gather(a.dump(), b.dump())
                assert len(end_a["refunds"]) == 1 and end_b["refunds"] == []
                with pytest.raises(BackendCallError, match="no order"):
                    await b.call("get_order", {"order_id": "ORD-0"})
                token = a.token
            with pytest.raises(BackendUnavailable, match="control request 'dump' failed"):
                await backend.dump(token)  # closed with its context
        finally:
            await backend.close()

    asyncio.run(go())


def test_the_control_channel_is_not_a_tool_of_a_trial(tmp_path: Path) -> None:
    """A trial's session lists and calls only the family's tools: it cannot load or read a
    state; and a channel that names no open trial reaches nothing."""

    async def go() -> None:
        backend = await start_backend(FAMILY, tmp_path)
        try:
            async with backend.trial(TASK.initial_state) as t:
                names = {tool.name for tool in (await t.session.list_tools()).tools}
                assert not names & CONTROL_TOOLS
                with pytest.raises(BackendCallError, match="unknown tool 'dump"):
                    await t.call("dump", {"trial": t.token})
            with pytest.raises(McpError, match="no such trial"):
                async with backend.connect("0" * 32):
                    pass
        finally:
            await backend.close()

    asyncio.run(go())


def test_a_killed_server_is_unavailable_naming_its_exit_not_a_hang(tmp_path: Path) -> None:
    async def go() -> str:
        backend = await start_backend(FAMILY, tmp_path)
        try:
            async with backend.trial(TASK.initial_state) as t:
                assert backend._proc is not None
                backend._proc.kill()
                with pytest.raises(BackendUnavailable) as e:
                    await t.call("get_order", {"order_id": "ORD-0"})
        except BackendUnavailable:
            pass  # closing the trial on a dead server fails too
        finally:
            await backend.close()
        return str(e.value)

    message = asyncio.run(go())
    assert "exited with status -9" in message


def test_closing_twice_and_after_the_server_died_raises_nothing(tmp_path: Path) -> None:
    async def go() -> None:
        backend = await start_backend(FAMILY, tmp_path)
        assert backend._proc is not None
        backend._proc.kill()
        await backend._proc.wait()
        await backend.close()
        await backend.close()

    asyncio.run(go())


def test_a_stalled_event_loop_is_not_a_silent_backend(tmp_path: Path) -> None:
    """The loop blocked (as by an import) for longer than the limit: the answers that arrived
    meanwhile are read, no request times out."""

    async def go() -> list[object]:
        backend = await start_backend(FAMILY, tmp_path)
        backend.timeout = 0.5
        sent = backend.sent

        async def stall() -> None:
            while backend.sent < sent + 8:  # every request is on its way
                await asyncio.sleep(0)
            time.sleep(2.0)  # blocks the loop, as an import on the loop would

        try:
            opened = await asyncio.gather(
                *(backend.open_trial(TASK.initial_state) for _ in range(8)),
                stall(),
                return_exceptions=True,
            )
            return [type(o).__name__ for o in opened]
        finally:
            await backend.close()

    assert asyncio.run(go()) == ["str"] * 8 + ["NoneType"]


SILENT = "import sys; sys.stdin.read()"
"""A server that reads its requests and never answers."""


def test_a_silent_server_times_out_naming_the_request(tmp_path: Path) -> None:
    async def go() -> None:
        backend = McpBackend.of(FAMILY, timeout=0.5)

        async def spawn(argv: list[str]) -> asyncio.subprocess.Process:
            return await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                SILENT,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )

        started = time.perf_counter()
        with pytest.raises(BackendUnavailable, match=r"silent for 0\.5 s with the control"):
            await backend.start(spawn, "local")
        assert time.perf_counter() - started >= 0.5
        await backend.close()

    asyncio.run(go())


def test_a_protocol_error_is_an_exception_not_a_tool_error(tmp_path: Path) -> None:
    async def go() -> None:
        backend = await start_backend(FAMILY, tmp_path)
        try:
            async with backend.trial(TASK.initial_state) as t:
                with pytest.raises(McpError):
                    await t.session.send_ping()  # answered: the session is alive
                    await t.session.list_prompts()  # no such method on a tool server
        finally:
            await backend.close()

    asyncio.run(go())


def test_the_silence_limit_comes_from_the_environment() -> None:
    assert backend_timeout({}) == 120.0
    assert backend_timeout({"VWT_BACKEND_TIMEOUT_S": "300"}) == 300.0
    for bad in ("soon", "0", "-5", "nan", "1e9"):
        with pytest.raises(BenchmarkError, match="VWT_BACKEND_TIMEOUT_S"):
            backend_timeout({"VWT_BACKEND_TIMEOUT_S": bad})
