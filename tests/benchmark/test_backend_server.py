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


class _ExitsDuringTheWait:
    """A real server process whose first ``wait()`` lets it exit and be reaped, then hangs:
    the close's wait times out after the process is gone, which is the race a loaded host
    produced (the kill then raised ProcessLookupError out of the batch)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.real = proc
        self.pid, self.stdin, self.stdout = proc.pid, proc.stdin, proc.stdout
        self.waits = 0

    @property
    def returncode(self) -> int | None:
        return None  # as a child watcher that has not reported yet says

    async def wait(self) -> int:
        self.waits += 1
        if self.waits == 1:
            self.real.send_signal(9)
            await self.real.wait()  # exited and reaped: its transport is closed
            await asyncio.Event().wait()  # ... but this wait has not returned yet
        return await self.real.wait()

    def kill(self) -> None:
        self.real.kill()


def test_close_survives_a_server_that_exits_between_the_timeout_and_the_kill() -> None:
    async def go() -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            "import time; time.sleep(600)",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        racing = _ExitsDuringTheWait(proc)
        backend = BackendProcess(racing)
        backend.CLOSE_GRACE_S = 0.2
        await backend.close()  # no ProcessLookupError
        assert racing.waits == 2 and proc.returncode == -9
        with pytest.raises(ProcessLookupError):
            racing.kill()  # what close() met, and did not let out
        with pytest.raises(BackendUnavailable, match="exited"):
            await backend.request("dump", "s")

    asyncio.run(asyncio.wait_for(go(), 60))
