"""`vwt drift proxy` in front of a real third-party MCP server: the reference filesystem server
(@modelcontextprotocol/server-filesystem from npm, pinned and installed by
scripts/mcp-servers-setup.sh), started by the proxy as a stdio subprocess."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).parents[2]
SERVER = (
    ROOT
    / ".mcp-servers"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-filesystem"
    / "dist"
    / "index.js"
)
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(
    NODE is None or not SERVER.exists(),
    reason="node or @modelcontextprotocol/server-filesystem missing: "
    "run scripts/mcp-servers-setup.sh",
)
RENAMES = [
    "--ops",
    "rename_tool:tool=read_text_file,new_name=open_text",
    "--ops",
    "rename_field:tool=open_text,field=path,new_name=file_path",
]


async def _session(args: list[str], body: object) -> object:
    params = StdioServerParameters(command=sys.executable, args=["-m", "vwt", "drift", *args])
    async with stdio_client(params) as streams, ClientSession(*streams) as session:
        await session.initialize()
        return await body(session)  # type: ignore[operator]


def _proxy(tmp_path: Path, ops: list[str], log: Path) -> list[str]:
    assert NODE is not None
    return ["proxy", *ops, "--log", str(log), "--", NODE, str(SERVER), str(tmp_path / "files")]


def _text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def test_the_proxy_serves_the_drifted_tools_and_translates_calls_to_the_real_server(
    tmp_path: Path,
) -> None:
    files = tmp_path / "files"
    files.mkdir()
    (files / "notes.txt").write_text("first line\nsecond line\n")
    log = tmp_path / "calls.jsonl"

    async def body(session: ClientSession) -> None:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert "open_text" in tools and "read_text_file" not in tools
        props = tools["open_text"].inputSchema["properties"]
        assert "file_path" in props and "path" not in props
        assert "write_file" in tools  # untouched tools pass through as the server lists them
        ok = await session.call_tool("open_text", {"file_path": str(files / "notes.txt")})
        assert not ok.isError and "second line" in _text(ok)
        head = await session.call_tool(
            "open_text", {"file_path": str(files / "notes.txt"), "head": 1}
        )
        assert "first line" in _text(head) and "second line" not in _text(head)
        old_name = await session.call_tool("read_text_file", {"path": str(files / "notes.txt")})
        assert old_name.isError and "unknown tool 'read_text_file'" in _text(old_name)
        old_field = await session.call_tool("open_text", {"path": str(files / "notes.txt")})
        assert old_field.isError and "file_path" in _text(old_field)
        # the real server's own refusal comes back as its tool error
        outside = await session.call_tool("open_text", {"file_path": "/etc/passwd"})
        assert outside.isError and "outside allowed directories" in _text(outside).lower()

    asyncio.run(_session(_proxy(tmp_path, RENAMES, log), body))
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == 5
    first = lines[0]
    assert first["served"] == {
        "name": "open_text",
        "arguments": {"file_path": str(files / "notes.txt")},
    }
    assert first["upstream"] == {
        "name": "read_text_file",
        "arguments": {"path": str(files / "notes.txt")},
    }
    assert first["is_error"] is False
    assert [line["is_error"] for line in lines] == [False, False, True, True, True]
    assert "upstream" not in lines[2]  # refused by the proxy, never sent


def test_an_interface_file_drives_the_proxy_as_ops_do(tmp_path: Path) -> None:
    """A version file written by `vwt drift generate` from the server's own tool list."""
    (tmp_path / "files").mkdir()
    base = tmp_path / "base.json"

    async def dump(session: ClientSession) -> list[dict[str, object]]:
        listed = await session.list_tools()
        return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed.tools]

    assert NODE is not None
    params = StdioServerParameters(command=NODE, args=[str(SERVER), str(tmp_path / "files")])

    async def direct() -> list[dict[str, object]]:
        async with stdio_client(params) as streams, ClientSession(*streams) as session:
            await session.initialize()
            return await dump(session)

    base.write_text(json.dumps(asyncio.run(direct())))
    version = tmp_path / "v2.json"
    from typer.testing import CliRunner

    from vwt.cli import app

    made = CliRunner().invoke(
        app,
        [
            "drift",
            "generate",
            "--base",
            str(base),
            "--op",
            "rename_tool:tool=list_directory,new_name=ls",
            "--env",
            "fs",
            "--out",
            str(version),
        ],
    )
    assert made.exit_code == 0, made.output

    async def body(session: ClientSession) -> set[str]:
        return {t.name for t in (await session.list_tools()).tools}

    names = asyncio.run(
        _session(_proxy(tmp_path, ["--interface", str(version)], tmp_path / "l.jsonl"), body)
    )
    assert "ls" in names and "list_directory" not in names  # type: ignore[operator]


def test_without_an_interface_or_ops_the_proxy_refuses_with_a_hint(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from vwt.cli import app

    result = CliRunner().invoke(app, ["drift", "proxy", "--", "node", "x.js"])
    assert result.exit_code == 2
    assert "error: give exactly one of --interface or --ops" in result.output
    assert "hint:" in result.output
