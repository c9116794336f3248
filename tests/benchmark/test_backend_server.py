"""The JSON-lines backend server and its multiplexing client."""

import asyncio
import sys
import time
from pathlib import Path

import pytest

from benchmark import (
    BackendCallError,
    BackendProcess,
    BackendUnavailable,
    BenchmarkError,
    backend_timeout,
    family,
)
from tests.benchmark._helpers import start_backend

FAMILY = family("support_ops")
TASK = FAMILY.tasks("sealed", 1, 5)[0]


async def _start(tmp_path: Path) -> BackendProcess:
    return await start_backend(FAMILY, tmp_path)


def test_sessions_are_isolated_and_calls_round_trip(tmp_path: Path) -> None:
    async def go() -> None:
        backend = await _start(tmp_path)
        await asyncio.gather(
            *(backend.request("reset", s, state=TASK.initial_state) for s in ("a", "b"))
        )
        refund = TASK.reference_calls[0]
        result = await backend.request("call", "a", tool=refund.name, args=refund.arguments)
        assert result["status"] == "issued"
        a, b = await asyncio.gather(backend.request("dump", "a"), backend.request("dump", "b"))
        assert len(a["refunds"]) == 1 and b["refunds"] == []
        with pytest.raises(BackendCallError, match="no order"):
            await backend.request("call", "b", tool="get_order", args={"order_id": "ORD-0"})
        await backend.request("close", "a")
        with pytest.raises(BackendCallError, match="no session"):
            await backend.request("dump", "a")
        await backend.close()

    asyncio.run(go())


def test_a_dead_backend_is_unavailable_not_a_hang(tmp_path: Path) -> None:
    async def go() -> None:
        backend = await _start(tmp_path)
        backend._proc.kill()
        await backend._proc.wait()
        with pytest.raises(BackendUnavailable):
            await backend.request("reset", "a", state=TASK.initial_state, timeout=5)

    asyncio.run(go())


def test_a_stalled_event_loop_is_not_a_silent_backend(tmp_path: Path) -> None:
    """The loop blocked (as by an import) for longer than the limit: the answers that arrived
    meanwhile are read, no request times out."""

    async def go() -> list[object]:
        backend = await _start(tmp_path)

        async def stall() -> None:
            await asyncio.sleep(0)
            time.sleep(2.0)  # blocks the loop, as an import on the loop would

        try:
            return await asyncio.gather(
                *(
                    backend.request("reset", f"s{i}", timeout=0.5, state=TASK.initial_state)
                    for i in range(8)
                ),
                stall(),
                return_exceptions=True,
            )
        finally:
            await backend.close()

    assert asyncio.run(go()) == [None] * 9


def test_a_silent_backend_times_out_naming_the_request(tmp_path: Path) -> None:
    async def go() -> None:
        # a server that reads its requests and never answers
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            "import sys; sys.stdin.read()",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        backend = BackendProcess(proc, timeout=0.5)
        started = time.perf_counter()
        with pytest.raises(BackendUnavailable, match=r"silent for 0\.5 s with request 'reset'"):
            await backend.request("reset", "trial-key", state={})
        assert time.perf_counter() - started >= 0.5  # the server never answers: the limit
        await backend.close()

    asyncio.run(go())


def test_the_silence_limit_comes_from_the_environment() -> None:
    assert backend_timeout({}) == 120.0
    assert backend_timeout({"VWT_BACKEND_TIMEOUT_S": "300"}) == 300.0
    for bad in ("soon", "0", "-5", "nan", "1e9"):
        with pytest.raises(BenchmarkError, match="VWT_BACKEND_TIMEOUT_S"):
            backend_timeout({"VWT_BACKEND_TIMEOUT_S": bad})
