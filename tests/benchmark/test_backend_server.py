"""The JSON-lines backend server and its multiplexing client."""

import asyncio
from pathlib import Path

import pytest

from benchmark import BackendCallError, BackendProcess, BackendUnavailable, family
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
