"""A folder family's environment where it runs: one real server process (the filesystem MCP
server from npm, two pinned releases) per trial over the trial's own state directory, relayed
over the batch's MCP server in a sandbox; end states and the verifier command's verdict read
there; the red-team gate run there; generated drift on a real release through the proxy."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.shared.message import SessionMessage

from benchmark import (
    BenchmarkError,
    McpBackend,
    TrialEnvironment,
    load_family_folder,
    mcp_servers_dir,
)
from benchmark._mcp_relay import Relay
from benchmark._redteam import redteam_family
from drift import ServedInterface, ToolCall
from runner import gate_sandboxes, make_sandbox
from runner._sandbox_base import Mount
from runner._sandbox_engine import docker_status

EXAMPLE = Path(__file__).resolve().parents[2] / "benchmark" / "families" / "file_ops"
INSTALLED = all(
    (mcp_servers_dir() / f"filesystem-{v}" / "node_modules").is_dir()
    for v in ("2025.7.1", "2026.8.31")
)
servers = pytest.mark.skipif(
    shutil.which("node") is None or not INSTALLED,
    reason="node or the pinned filesystem servers are missing: run scripts/mcp-servers-setup.sh",
)


def _docker_with_node() -> tuple[bool, str]:
    ok, reason = docker_status()
    if not ok:
        return ok, reason
    from runner._docker_api import engine
    from runner._sandbox_docker import DEFAULT_IMAGE

    labels = engine().images.get(DEFAULT_IMAGE).labels or {}
    if not labels.get("org.vwt.sandbox.node"):
        return False, f"the image {DEFAULT_IMAGE} has no nodejs (an older recipe)"
    return True, ""


async def _in_sandbox(kind: str, version: str, body: Any, folder: Path = EXAMPLE) -> Any:
    fam = load_family_folder(folder)
    backend = McpBackend.of(fam, fam.interface_versions()[version])
    box = make_sandbox(kind, mounts=[Mount(*m) for m in backend.mounts()])
    async with box, backend.serve(box):
        return await body(fam, backend)


def _task(fam: Any, kind: str) -> Any:
    return next(t for t in fam.tasks("dev", 10, 0) if t.kind == kind)


@servers
def test_each_trial_has_its_own_server_and_state_directory() -> None:
    async def body(fam: Any, backend: McpBackend) -> None:
        note, rename = _task(fam, "write_note"), _task(fam, "rename_file")
        async with backend.trial(note.initial_state) as a, backend.trial(rename.initial_state) as b:
            await a.call("write_file", {"path": "only-in-a.md", "content": "a"})
            roots = [await t.call("list_allowed_directories") for t in (a, b)]
            one, two = await a.dump(), await b.dump()
        assert roots[0] != roots[1]  # two servers, each over its own directory
        assert "only-in-a.md" in one["files"] and "only-in-a.md" not in two["files"]
        assert set(two["files"]) == set(rename.initial_state["files"])

    asyncio.run(_in_sandbox("local", "files@2026.8.31", body))


@servers
def test_end_states_and_the_verifier_command_decide_both_ways() -> None:
    async def body(fam: Any, backend: McpBackend) -> list[Any]:
        out = []
        for task in (_task(fam, "write_note"), _task(fam, "rename_file")):
            for calls in (task.reference_calls, fam.planted(task)[0].calls):
                async with backend.trial(task.initial_state) as t:
                    for c in calls:
                        await t.call(c.name, dict(c.arguments))
                    out.append(fam.verify(task, await t.dump()))
        return out

    note_ref, note_wrong, rename_ref, rename_wrong = asyncio.run(
        _in_sandbox("local", "files@2025.7.1", body)
    )
    assert note_ref.passed and rename_ref.passed
    assert not note_wrong.passed and note_wrong.reasons[0].startswith("path:")  # verify.sh
    assert not rename_wrong.passed and "files:" in rename_wrong.reasons[0]  # the comparison


@servers
def test_a_server_whose_tools_are_not_its_tools_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "fam"
    shutil.copytree(EXAMPLE, folder)
    tools_file = folder / "tools" / "2025.7.1.json"
    data = json.loads(tools_file.read_text())
    data["tools"] = [t for t in data["tools"] if t["name"] != "directory_tree"]
    tools_file.write_text(json.dumps(data))

    async def body(fam: Any, backend: McpBackend) -> None:
        pytest.fail("the batch started")

    with pytest.raises(BenchmarkError, match="lists other tools than its tools file declares"):
        asyncio.run(_in_sandbox("local", "files@2025.7.1", body, folder))


@servers
def test_generated_drift_over_a_real_release_goes_through_the_proxy() -> None:
    async def body(fam: Any, backend: McpBackend) -> tuple[Any, Any]:
        task = _task(fam, "rename_file")
        version = fam.interface_versions()["files@2026.8.31-rename"]
        served = ServedInterface(fam.base_tools_for(version), version)
        (source,) = [c.arguments["source"] for c in task.reference_calls]
        async with TrialEnvironment(fam, task, served, backend) as env:
            names = {t["function"]["name"]: t for t in env.tools}
            params = names["move_file"]["function"]["parameters"]["properties"]
            result = await env.call(
                ToolCall(name="move_file", arguments={"source": source, "target_path": "moved.md"})
            )
            state = await backend.dump(env._trial or "")
        return params, (result, state)

    params, (result, state) = asyncio.run(_in_sandbox("local", "files@2026.8.31", body))
    assert "target_path" in params and "destination" not in params
    assert not result.is_error
    assert "moved.md" in state["files"]


def test_a_server_that_dies_answers_its_pending_requests_with_its_status(tmp_path: Path) -> None:
    relay = Relay(
        {"command": ["sh", "-c", "read line; echo dying >&2; exit 3"], "places": {}}, str(tmp_path)
    )

    async def run() -> Any:
        in_send, in_recv = anyio.create_memory_object_stream[SessionMessage | Exception](10)
        out_send, out_recv = anyio.create_memory_object_stream[SessionMessage](10)
        await relay.start("t1", {"files": {"a.txt": "x"}})
        request = types.JSONRPCRequest(jsonrpc="2.0", id=7, method="tools/list")
        await in_send.send(SessionMessage(types.JSONRPCMessage(request)))
        async with anyio.create_task_group() as tg:
            tg.start_soon(relay.serve, "t1", in_recv, out_send)
            reply = await out_recv.receive()
            await in_send.aclose()
        await relay.close("t1")
        return reply

    reply = asyncio.run(run()).message.root
    assert isinstance(reply, types.JSONRPCError) and reply.id == 7
    assert "exited with status 3: dying" in reply.error.message
    assert not (tmp_path / "vwt-trials" / "t1").exists()  # its directory removed


def test_state_paths_cannot_leave_the_trial_directory(tmp_path: Path) -> None:
    relay = Relay({"command": ["true"], "places": {}}, str(tmp_path))
    with pytest.raises(ValueError, match="leaves the state directory"):
        asyncio.run(relay.start("t1", {"files": {"../../escape.txt": "x"}}))
    assert not (tmp_path / "escape.txt").exists()
    assert relay.open == {}  # refused before any server started, and its slot given back


@servers
def test_the_gate_runs_in_the_sandbox_and_fails_a_verifier_that_passes_wrong_answers(
    tmp_path: Path,
) -> None:
    # one task per split: the reference passes and every planted answer fails (only the
    # count of distinct planted answers, 5 over 3 tasks, is short of the gate's 8)
    fam = load_family_folder(EXAMPLE)
    strict = redteam_family(fam, tasks=1, sandbox=gate_sandboxes("local"))
    assert [f.task for f in strict.failures] == [None] and strict.planted == 7
    folder = tmp_path / "fam"
    shutil.copytree(EXAMPLE, folder)
    (folder / "verify.sh").write_text('echo \'{"passed": true, "reasons": []}\'\n')
    lax = redteam_family(load_family_folder(folder), tasks=1, sandbox=gate_sandboxes("local"))
    passing = {f.planted for f in lax.failures if f.task is not None}
    # dev's first task is a note: a verifier passing everything passes its planted answers
    assert passing == {"wrong path", "text changed", "extra file"}


@servers
def test_the_gate_of_a_folder_family_needs_a_sandbox() -> None:
    fam = load_family_folder(EXAMPLE)
    with pytest.raises(BenchmarkError, match="run only in a sandbox"):
        redteam_family(fam, tasks=3)  # (a gate result already known would be reused)


@servers
@pytest.mark.docker
def test_the_family_runs_in_the_docker_sandbox() -> None:
    ok, reason = _docker_with_node()
    if not ok:
        pytest.skip(f"{reason}; run `make sandbox`")

    async def body(fam: Any, backend: McpBackend) -> Any:
        task = _task(fam, "write_note")
        async with backend.trial(task.initial_state) as t:
            for c in task.reference_calls:
                await t.call(c.name, dict(c.arguments))
            where = await t.call("list_allowed_directories")
            return where, fam.verify(task, await t.dump())

    where, verdict = asyncio.run(_in_sandbox("docker", "files@2026.8.31", body))
    assert "/sandbox/" in str(where)  # the server ran inside the container
    assert verdict.passed
