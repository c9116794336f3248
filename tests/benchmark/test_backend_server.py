"""The JSON-lines backend server and its multiplexing client."""

import asyncio
import sys
from pathlib import Path

import pytest

from benchmark import (
    BackendCallError,
    BackendProcess,
    BackendUnavailable,
    backend_argv,
    backend_files,
    family,
)

FAMILY = family("support_ops")
TASK = FAMILY.tasks("sealed", 1, 5)[0]


async def _start(tmp_path: Path) -> BackendProcess:
    for target, host in backend_files(FAMILY).items():
        dest = tmp_path / target
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(host.read_bytes())
    proc = await asyncio.create_subprocess_exec(
        *backend_argv([sys.executable, "-I", "-S"]),
        cwd=tmp_path,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    return BackendProcess(proc)


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
