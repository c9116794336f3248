"""The code-maintenance backend in the Docker sandbox, as trials run it: the project's tests
run there against the library version in the image, the reference patch passes, and code a
model writes runs there contained (a loop past the time limit is reported, writes outside the
work tree are refused), never a hang."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from benchmark import BackendCallError, BackendTrial, McpBackend
from benchmark.code_maint import CodeMaintenance
from benchmark.code_maint._backend import TEST_TIMEOUT_S
from runner._sandbox_base import Mount
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import docker_status

_AVAILABLE, _REASON = docker_status()
pytestmark = [
    pytest.mark.docker,
    pytest.mark.skipif(not _AVAILABLE, reason=f"{_REASON}; run `make sandbox`"),
]
FAM = CodeMaintenance()
TASK = next(t for t in FAM.tasks("sealed", 8, 2) if t.kind == "rename_call")
SLACK_S = 15.0


def _in_sandbox(body: Callable[[BackendTrial], Awaitable[None]]) -> None:
    server = McpBackend.of(FAM, timeout=120)

    async def go() -> None:
        async with (
            DockerSandbox(mounts=[Mount(*m) for m in server.mounts()]) as sb,
            server.serve(sb),
            server.trial(TASK.initial_state) as trial,
        ):
            await body(trial)

    asyncio.run(asyncio.wait_for(go(), 300))


async def _call(backend: BackendTrial, tool: str, **args: Any) -> Any:
    return await backend.call(tool, args)


def test_the_reference_patch_passes_in_the_sandbox() -> None:
    async def body(backend: BackendTrial) -> None:
        before = await _call(backend, "run_tests")
        assert before["failed"] >= 1
        for call in TASK.reference_calls:
            await _call(backend, call.name, **call.arguments)
        after = await _call(backend, "run_tests")
        assert after["failed"] == 0 and after["passed"] == before["ran"]
        end = await backend.dump()
        assert FAM.verify(TASK, end).passed
        assert end == FAM.end_state(TASK, TASK.reference_calls)  # the host computes the same

    _in_sandbox(body)


def test_model_code_that_never_ends_is_stopped_and_reported() -> None:
    async def body(backend: BackendTrial) -> None:
        path = TASK.reference_calls[0].arguments["path"]
        await _call(backend, "write_file", path=path, content="while True:\n    pass\n")
        started = time.monotonic()
        with pytest.raises(BackendCallError, match="timed out"):
            await _call(backend, "run_tests")
        assert TEST_TIMEOUT_S <= time.monotonic() - started < TEST_TIMEOUT_S + SLACK_S
        end = await backend.dump()
        verdict = FAM.verify(TASK, end)
        assert not verdict.passed and any("crashed" in r for r in verdict.reasons)

    _in_sandbox(body)


def test_model_code_cannot_write_outside_the_work_tree() -> None:
    attack = (
        "import unittest\n\n\nclass Attack(unittest.TestCase):\n"
        "    def test_attack(self):\n"
        "        for target in ('/opt/vwt/lib/acmelib-2.0/acmelib/__init__.py',"
        " '/usr/lib/evil', '/sandbox/vwt/backend.py', '/sandbox/vwt/_sandbox_exec.py'):\n"
        "            try:\n"
        "                open(target, 'w').write('x')\n"
        "            except OSError:\n"
        "                continue\n"
        "            self.fail('wrote ' + target)\n"
    )

    async def body(backend: BackendTrial) -> None:
        await _call(backend, "write_file", path="tests/test_attack.py", content=attack)
        ran = await _call(backend, "run_tests")
        assert not [f for f in ran["failures"] if "attack" in f["test"]], ran["failures"]
        assert (await _call(backend, "read_changelog", package="acmelib"))["version"] == "2.0"

    _in_sandbox(body)
