"""The MCP server of family backends, run inside a sandbox (one process per sandbox group).

Usage: ``python3 _mcp_server.py (--family ID BACKEND TOOLS ... | --external CONFIG)
[--site DIR]``.

Built on the official ``mcp`` SDK, it speaks MCP on its stdio, many sessions multiplexed over
the one pipe (``_mcp_mux.py``: each line is ``CHANNEL JSON-RPC-MESSAGE``):

- the **control session** (channel ``control``), which only the runner that started the
  process holds: tools ``open`` (a task's initial state, and the family it is of where the
  server serves several → a new trial and its channel),
  ``dump`` (a trial's end state, for the verifier) and ``close``;
- one **tool session** per open trial (its channel): its family's canonical tools
  (``tools/list``, ``tools/call``) on that trial's backend state, and nothing else. A tool
  session has no control tools and cannot address another channel.

Each ``--family`` names a family's backend module and its canonical tools (JSON): one server
serves every family of a sandbox group's arm, so the SDK is imported once per group.

With ``--external`` a trial's tools are not a backend class's but those of a server command
started per trial over its own state directory (a folder family's environment,
``_mcp_relay.py``): ``open`` writes the state's files and starts the server, the trial's
channel is relayed to it, ``dump`` reads the files back (and runs the verifier command).

``--site`` puts a directory holding the SDK and its dependencies on the import path (the
interpreter may run isolated, ``-I -S``); modules next to this file (``_sandbox_exec.py`` and
``_mcp_mux.py``, mounted beside it) are importable by it and by the backend. The process
exits when its stdin closes.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import secrets
import sys
from typing import Any

CALL_ERRORS: tuple[type[Exception], ...] = (KeyError, TypeError, ValueError)
"""Errors of a backend call that are the caller's fault (a tool error shown to the agent),
besides the backend's own ``BackendError``; any other error is a fault of the server."""


SDK_PARTS = ("mcp.types", "mcp.shared.message", "mcp.server.lowlevel")
"""The modules of the ``mcp`` SDK the server (with ``_mcp_mux.py`` and ``_mcp_relay.py``) uses."""
BARE_PACKAGES = ("mcp", "mcp.server")
"""SDK packages whose ``__init__`` the server skips: they import the client, FastMCP and
their web stacks, which a server of this kind never uses."""


def import_sdk(bare: bool = True) -> bool:
    """Import :data:`SDK_PARTS`; returns whether that was done bare.

    Bare, the packages of :data:`BARE_PACKAGES` are entered as plain namespaces (their
    directories, not their ``__init__``), so only the modules the server uses are loaded:
    in the sandbox image that is 0.57 s of CPU per server start instead of 0.80 s
    (``bench/server_import.py``), paid once per sandbox group. Should an SDK release need
    its packages' ``__init__`` after all (an ImportError), every ``mcp`` module loaded so
    far is dropped and the SDK is imported whole."""
    import importlib
    import importlib.util
    import types

    spec = importlib.util.find_spec("mcp") if bare and "mcp" not in sys.modules else None
    if spec is not None and spec.submodule_search_locations:
        root = next(iter(spec.submodule_search_locations))
        for name in BARE_PACKAGES:
            package = types.ModuleType(name)
            package.__path__ = [os.path.join(root, *name.split(".")[1:])]
            sys.modules[name] = package
        try:
            for part in SDK_PARTS:
                importlib.import_module(part)
            return True
        except ImportError:
            for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
                del sys.modules[name]
    for part in SDK_PARTS:
        importlib.import_module(part)
    return False


def _load_backend(path: str, name: str) -> tuple[Any, type[Exception]]:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load backend from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Backend, module.BackendError


def _result(value: Any, is_error: bool = False) -> Any:
    """A tool result: the JSON of ``value`` (structured too when an object), or an error."""
    from mcp import types

    if is_error:
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=value)], isError=True
        )
    text = json.dumps(value, sort_keys=True)
    structured = value if isinstance(value, dict) else None
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)], structuredContent=structured
    )


class _Family:
    """A family's backend class, the errors of its calls that are the caller's fault, and its
    canonical tools."""

    def __init__(self, index: int, backend_file: str, tools_file: str) -> None:
        from mcp import types

        self.backend_cls, backend_error = _load_backend(backend_file, f"vwt_backend_{index}")
        self.call_errors = (backend_error, *CALL_ERRORS)
        with open(tools_file, encoding="utf-8") as f:
            self.tools = [types.Tool.model_validate(t) for t in json.load(f)]


class _Trials:
    """The families served, and the backend state of every open trial by token."""

    def __init__(self, families: list[list[str]]) -> None:
        self.families = {fid: _Family(i, *files) for i, (fid, *files) in enumerate(families)}
        self.open: dict[str, tuple[_Family, Any]] = {}

    def family(self, named: Any) -> _Family:
        """The family ``open`` names; the only one served where it names none."""
        if named is None and len(self.families) == 1:
            return next(iter(self.families.values()))
        if named not in self.families:
            raise ValueError(f"this server serves {sorted(self.families)}, not {named!r}")
        return self.families[named]

    def call(self, token: str, tool: str, args: dict[str, Any]) -> Any:
        fam, state = self.open[token]
        try:
            result = state.call(tool, args)
        except fam.call_errors as e:
            return _result(str(e).strip("'\""), is_error=True)
        return _result(result)


def _tool_server(tools: list[Any], call: Any) -> Any:
    """A server of ``tools`` whose calls go to ``call(name, arguments)``."""
    from mcp import types
    from mcp.server.lowlevel import Server

    server: Server[Any, Any] = Server("vwt-backend")

    async def list_tools(req: types.ListToolsRequest) -> types.ServerResult:
        return types.ServerResult(types.ListToolsResult(tools=tools))

    async def call_tool(req: types.CallToolRequest) -> types.ServerResult:
        return types.ServerResult(call(req.params.name, req.params.arguments or {}))

    # Plain handlers rather than the SDK's decorators: no second validation of arguments
    # (the drift proxy validates against the served interface) and errors worded as before.
    server.request_handlers[types.ListToolsRequest] = list_tools
    server.request_handlers[types.CallToolRequest] = call_tool
    return server


async def _serve(args: argparse.Namespace) -> None:
    import anyio
    from _mcp_mux import CONTROL, Mux, stdio_pipes
    from mcp import types
    from mcp.server.lowlevel import Server

    relay: Any = None
    if args.external:
        from _mcp_relay import Relay

        with open(args.external, encoding="utf-8") as f:
            relay = Relay(json.load(f), os.getcwd())
    trials = _Trials(args.family) if relay is None else None
    control: Server[Any, Any] = Server("vwt-control")
    schema: dict[str, Any] = {"type": "object"}
    control_tools = [
        types.Tool(name="open", description="Start a trial from a state.", inputSchema=schema),
        types.Tool(name="dump", description="A trial's current state.", inputSchema=schema),
        types.Tool(name="close", description="Drop a trial.", inputSchema=schema),
    ]
    reader, writer = await stdio_pipes()
    async with Mux(reader, writer, refuse=True) as mux, anyio.create_task_group() as tg:

        async def serve_trial(token: str, ready: anyio.Event) -> None:
            async with mux.channel(token) as (read, write):
                ready.set()
                if relay is not None:
                    await relay.serve(token, read, write)
                    return
                assert trials is not None
                tools = trials.open[token][0].tools
                server = _tool_server(tools, lambda name, a: trials.call(token, name, a))
                await server.run(read, write, server.create_initialization_options())

        @control.list_tools()
        async def list_tools() -> list[types.Tool]:
            return control_tools

        @control.call_tool(validate_input=False)
        async def call_tool(name: str, args: dict[str, Any]) -> Any:
            # A result made here, not a dict: the SDK would add the value again as text
            # indented for people (a task's state, twice the bytes on every open and dump).
            return _result(await control_value(name, args))

        async def control_value(name: str, args: dict[str, Any]) -> dict[str, Any]:
            if name == "open":
                token = secrets.token_hex(16)
                if relay is not None:
                    await relay.start(token, args["state"])
                else:
                    assert trials is not None
                    fam = trials.family(args.get("family"))
                    trials.open[token] = (fam, fam.backend_cls(args["state"]))
                ready = anyio.Event()
                tg.start_soon(serve_trial, token, ready)
                await ready.wait()  # the channel routes before the runner hears its name
                return {"trial": token}
            if name == "dump":
                if relay is not None:
                    return {"state": await relay.dump(args["trial"])}
                assert trials is not None
                return {"state": trials.open[args["trial"]][1].dump()}
            if name == "close":
                mux.end(args["trial"])
                if relay is not None:
                    await relay.close(args["trial"])
                else:
                    assert trials is not None
                    trials.open.pop(args["trial"], None)
                return {}
            raise ValueError(f"unknown control tool {name!r}")

        async with mux.channel(CONTROL) as (read, write):
            await control.run(read, write, control.create_initialization_options())
        if relay is not None:
            await relay.close_all()
        tg.cancel_scope.cancel()


def main() -> None:
    """Serve until stdin closes."""
    parser = argparse.ArgumentParser(description="MCP server of a vwt family backend")
    serves = parser.add_mutually_exclusive_group(required=True)
    serves.add_argument(
        "--family",
        nargs=3,
        action="append",
        metavar=("ID", "BACKEND", "TOOLS"),
        help="a family's id, backend module and canonical MCP tools (JSON); repeatable",
    )
    serves.add_argument("--external", help="JSON config of a server command per trial")
    parser.add_argument("--site", default=None, help="directory holding the mcp SDK")
    args = parser.parse_args()
    if args.site:
        sys.path.insert(0, args.site)
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.append(here)
    import_sdk()
    import anyio

    anyio.run(_serve, args)
    sys.stdout.flush()
    # Nothing is left to tear down that the runner waits for: skip the interpreter's own
    # (it unloads every SDK module, and the runner waits for the exit).
    os._exit(0)


if __name__ == "__main__":
    main()
