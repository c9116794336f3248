"""A dev trial's tool calls go over MCP, for every family, in local and Docker sandboxes: each
tool message of its trace carries the MCP tools/call request and CallToolResult behind it."""

from __future__ import annotations

import asyncio
import json
import zlib

import pytest

from benchmark import FAMILIES, full_cycle_spec_path
from conditions import CycleSpec, TaskFamilyAxis
from runner import plan_phase
from runner._sandbox_engine import docker_status
from runner._worker import run_batch_async

_DOCKER, _REASON = docker_status()


def _batch(family: str):  # type: ignore[no-untyped-def]
    # read in the test, not at collection: the full cycle names a family folder, which a spec
    # read at import would put in play in every module of this pytest worker
    spec = CycleSpec.load(full_cycle_spec_path())
    source = spec.source.model_copy(
        update={"task_family": TaskFamilyAxis(family=family, split="dev")}
    )
    return plan_phase(
        cycle=spec.cycle,
        cycle_seed=spec.seed,
        phase="frozen",
        conditions=[(source.id, source)],
        bundles=[],
        tasks_per_split=1,
        k=1,
        interfaces=spec.interfaces,
    )[0]


def _check_trace(family: str, kind: str) -> None:
    rows = asyncio.run(run_batch_async(_batch(family), kind))
    assert rows
    for row in rows:
        record = json.loads(row.record)
        assert record["outcome"] != "invalid", record["invalid"]
        trace = json.loads(zlib.decompress(row.trace))
        calls = {
            tc["id"]: tc["function"]
            for m in trace
            if m.get("role") == "assistant"
            for tc in m.get("tool_calls") or []
        }
        tool_messages = [m for m in trace if m.get("role") == "tool"]
        assert tool_messages, "the trial made no tool call"
        for m in tool_messages:
            exchange = m["mcp"]
            fn = calls[m["tool_call_id"]]
            assert exchange["request"]["method"] == "tools/call"
            assert exchange["request"]["params"]["name"] == fn["name"]
            assert exchange["request"]["params"]["arguments"] == json.loads(fn["arguments"])
            result = exchange["result"]
            text = "\n".join(c["text"] for c in result["content"] if c["type"] == "text")
            shown = f"error: {text}" if result["isError"] else text
            assert m["content"] == shown


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_familys_tool_calls_go_over_mcp_locally(family: str) -> None:
    _check_trace(family, "local")


@pytest.mark.docker
@pytest.mark.skipif(not _DOCKER, reason=f"{_REASON}; run `make sandbox`")
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_familys_tool_calls_go_over_mcp_in_docker(family: str) -> None:
    _check_trace(family, "docker")
