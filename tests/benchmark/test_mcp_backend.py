"""A family's MCP server and the runner's handle on it: trials kept apart, calls over MCP,
the control channel out of the tools' reach, a dead or silent server an infrastructure error."""

import asyncio
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp.shared.exceptions import McpError

from benchmark import (
    BackendCallError,
    BackendUnavailable,
    BenchmarkError,
    McpBackend,
    backend_timeout,
    check_site_for,
    family,
)
from benchmark import _mcp_backend as mcp_backend
from tests.benchmark._helpers import Subprocesses, start_backend

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


def test_one_server_serves_each_trial_its_own_familys_tools_and_state(tmp_path: Path) -> None:
    research = family("research_evidence")
    other = research.tasks("sealed", 1, 5)[0]

    async def go() -> None:
        backend = McpBackend.of_families([FAMILY, research])
        place = Subprocesses(tmp_path)
        place.place(backend)
        await backend.start(place)
        try:
            async with (
                backend.trial(TASK.initial_state, FAMILY.id) as a,
                backend.trial(other.initial_state, research.id) as b,
            ):
                names_a = [t.name for t in (await a.session.list_tools()).tools]
                names_b = [t.name for t in (await b.session.list_tools()).tools]
                assert names_a == FAMILY.base_tools().names()
                assert names_b == research.base_tools().names() != names_a
                assert await b.dump() == other.initial_state
                refund = TASK.reference_calls[0]
                assert (await a.call(refund.name, refund.arguments))["status"] == "issued"
                with pytest.raises(BackendCallError, match=r"unknown tool|no tool|not a tool"):
                    await b.call(refund.name, refund.arguments)  # not research's tool
            with pytest.raises(ValueError, match=r"serves .*not None"):
                await backend.open_trial(TASK.initial_state)  # which family, of two?
            with pytest.raises(ValueError, match="not 'code_maint'"):
                await backend.open_trial(TASK.initial_state, "code_maint")
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
        silent = Subprocesses(tmp_path, command=[sys.executable, "-c", SILENT])
        started = time.perf_counter()
        with pytest.raises(BackendUnavailable, match=r"silent for 0\.5 s with the control"):
            await backend.start(silent)
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


class _ExitsDuringTheWait:
    """A real server process whose first ``wait()`` lets it exit and be reaped, then hangs:
    the close's wait times out after the process is gone, which is the race a loaded host
    produced (the kill then raised ProcessLookupError out of the batch)."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.real = proc
        self.pid, self.stdin, self.stdout, self.stderr = (
            proc.pid,
            proc.stdin,
            proc.stdout,
            proc.stderr,
        )
        self.waits = 0

    @property
    def returncode(self) -> int | None:
        return None  # as a child watcher that has not reported yet says

    async def wait(self) -> int:
        self.waits += 1
        if self.waits == 1:
            await self.real.wait()  # it exits once its stdin closes, and is reaped ...
            await asyncio.Event().wait()  # ... but this wait has not returned yet
        return await self.real.wait()

    def kill(self) -> None:
        self.real.kill()


def test_close_survives_a_server_that_exits_between_the_timeout_and_the_kill(
    tmp_path: Path,
) -> None:
    async def go() -> None:
        backend = McpBackend.of(FAMILY)
        place = Subprocesses(tmp_path, wrap=_ExitsDuringTheWait)
        place.place(backend)
        await backend.start(place)
        racing = backend._proc
        assert isinstance(racing, _ExitsDuringTheWait)
        assert await backend.open_trial(TASK.initial_state)  # a working server
        backend.CLOSE_GRACE_S = 0.5
        await backend.close()  # no ProcessLookupError, no hang on the wait that never returns
        assert racing.waits == 2 and racing.real.returncode == 0
        with pytest.raises(ProcessLookupError):
            racing.kill()  # what close() met, and did not let out
        with pytest.raises(BackendUnavailable, match="not running"):
            await backend.open_trial(TASK.initial_state)

    asyncio.run(asyncio.wait_for(go(), 120))


NOBODY = (65534, 65534)


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A stand-in SDK directory under /tmp that every user can reach (pytest's tmp_path is
    under a 0700 directory), used as the host's SDK."""
    root = Path(tempfile.mkdtemp(prefix="vwt-site-"))
    try:
        root.chmod(0o755)
        (root / "mcp").mkdir(mode=0o755)
        (root / "mcp" / "__init__.py").write_text("")
        (root / "mcp" / "__init__.py").chmod(0o644)
        monkeypatch.setattr(mcp_backend, "host_site", lambda: root)
        yield root
    finally:
        shutil.rmtree(root)


def test_the_sdk_is_served_to_nobody_only_where_nobody_can_read_it(site: Path) -> None:
    check_site_for([sys.executable], NOBODY)  # readable, this interpreter: fine
    for path, mode in [(site, 0o700), (site / "mcp" / "__init__.py", 0o600), (site, 0o744)]:
        path.chmod(mode)
        with pytest.raises(BenchmarkError, match="not readable by uid 65534") as e:
            check_site_for([sys.executable], NOBODY)
        assert "chmod o+rX" in (e.value.hint or "")
        path.chmod(0o755 if path.is_dir() else 0o644)
    if os.geteuid() == 0:
        os.chown(site, *NOBODY)
        site.chmod(0o500)  # owned by nobody: the owner's bits count, not the others'
        check_site_for([sys.executable], NOBODY)


def test_the_sdk_is_served_only_to_the_interpreter_it_was_installed_for(
    site: Path, tmp_path: Path
) -> None:
    other = tmp_path / "python3"
    other.write_text("#!/bin/sh\necho cpython-39\n")
    other.chmod(0o755)
    with pytest.raises(BenchmarkError, match="is cpython-39, the MCP SDK") as e:
        check_site_for([str(other)], NOBODY)
    assert sys.implementation.cache_tag in str(e.value) and "Docker" in (e.value.hint or "")
    with pytest.raises(BenchmarkError, match="is not usable"):
        check_site_for([str(tmp_path / "missing")], NOBODY)
