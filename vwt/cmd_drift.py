"""`vwt drift` commands: generate and show interface versions, classify tool-list changes."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from benchmark import FAMILIES, family_for_env, served_interface
from drift import (
    KINDS,
    DiffReport,
    DriftError,
    GenerateConfig,
    OpSpec,
    ServedInterface,
    ToolSet,
    VersionFile,
    classify,
    generate,
    load_op_specs,
    load_tool_list,
    load_version_file,
    parse_op_spec,
    parse_tool_list,
    read_base,
    run_stdio_proxy,
)
from vwt._common import console, err_console, user_errors

app = typer.Typer(
    help="Tool-interface drift: generate labelled versions, show them, classify real changes.",
    no_args_is_help=True,
)

CLASS_STYLE = {"changing": "bold red", "unknown": "yellow", "preserving": "green"}


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@app.command("generate")
@user_errors
def generate_cmd(
    base: Annotated[
        Path,
        typer.Option(help="Base tool list (JSON array or tools/list result) or a version file."),
    ],
    op: Annotated[
        list[str] | None,
        typer.Option(
            help="Operator as KIND[:key=value,...]; unset parameters are drawn from the seed. "
            "Repeat for several. Kinds: see 'vwt drift ops'."
        ),
    ] = None,
    ops_file: Annotated[
        Path | None, typer.Option(help="JSON list of operator specs, each {'op': KIND, ...}.")
    ] = None,
    random: Annotated[
        int, typer.Option(min=0, help="Also draw this many applicable operators from the seed.")
    ] = 0,
    seed: Annotated[int, typer.Option(help="Seed for everything drawn.")] = 0,
    env: Annotated[
        str | None, typer.Option(help="Environment id; default: the parent's, else the base name.")
    ] = None,
    label: Annotated[
        str | None, typer.Option(help="Version label; default: the parent's label bumped.")
    ] = None,
    undeclared: Annotated[
        bool,
        typer.Option(help="Keep the parent's label (undeclared drift: only the digest moves)."),
    ] = False,
    version_id: Annotated[
        str | None, typer.Option("--id", help="Version id; default: ENV@LABEL.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Output file; default: <id>.json in the current directory.")
    ] = None,
) -> None:
    """Write a new interface version: base tools + drift operators, tools, digest, changelog."""
    tools, parent = read_base(base)
    specs = [parse_op_spec(s) for s in op or []]
    if ops_file is not None:
        specs += load_op_specs(ops_file)
    config = GenerateConfig(
        ops=specs,
        random=random,
        seed=seed,
        env=env or (parent.env if parent else base.stem),
        label=label,
        undeclared=undeclared,
        id=version_id,
    )
    result = generate(config, tools, parent)
    target = out or Path(f"{result.version.id.replace('/', '_')}.json")
    _write(target, result.model_dump_json(indent=2, by_alias=True) + "\n")
    _print_version(result)
    console.print(f"wrote {target}", highlight=False)


def _print_version(vf: VersionFile) -> None:
    v = vf.version
    console.print(f"[bold]{v.id}[/]  env {v.env}  label {v.label}", highlight=False)
    console.print(f"parent {v.parent or '-'}  seed {v.seed}  digest {vf.digest}", highlight=False)
    console.print(f"tools: {', '.join(t['name'] for t in vf.tools)}", highlight=False)
    for entry in vf.changelog:
        style = CLASS_STYLE[entry.drift_class]
        console.print(f"  [{style}]{entry.drift_class:<10}[/] {entry.summary}", highlight=False)


@app.command("show")
@user_errors
def show_cmd(
    version: Annotated[
        Path, typer.Argument(help="A version file written by 'vwt drift generate'.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the file as JSON.")] = False,
) -> None:
    """Print an interface version: id, label, parent, digest, tools and changelog."""
    vf = load_version_file(version)
    if as_json:
        typer.echo(vf.model_dump_json(indent=2, by_alias=True))
    else:
        _print_version(vf)


def _print_report(report: DiffReport) -> None:
    if not report.changes:
        console.print("no changes", highlight=False)
        return
    table = Table("tool", "path", "kind", "class", "reason and evidence", show_lines=True)
    for c in report.changes:
        style = CLASS_STYLE[c.drift_class]
        shown = escape(c.reason) + "".join(f"\n[dim]· {escape(e)}[/]" for e in c.evidence)
        table.add_row(c.tool, c.path, c.kind, f"[{style}]{c.drift_class}[/]", shown)
    console.print(table)
    counts = {k: sum(c.drift_class == k for c in report.changes) for k in CLASS_STYLE}
    console.print(
        f"{len(report.changes)} changes: {counts['changing']} changing, "
        f"{counts['unknown']} unknown, {counts['preserving']} preserving — overall "
        f"[{CLASS_STYLE[report.label()]}]{report.label()}[/]",
        highlight=False,
    )


@app.command("diff")
@user_errors
def diff_cmd(
    old: Annotated[
        Path, typer.Argument(help="Old tool list (JSON array, tools/list result, or version file).")
    ],
    new: Annotated[Path, typer.Argument(help="New tool list, same forms.")],
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help='Print {"changes": [{"tool", "kind", "class", "path", "reason", "evidence"}]}.',
        ),
    ] = False,
) -> None:
    """Classify every change between two tool lists as preserving, changing or unknown.

    Exits 0 whether or not drift is found; non-zero only on bad input.
    """
    report = classify(load_tool_list(old), load_tool_list(new))
    if as_json:
        typer.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
    else:
        _print_report(report)


def _builtin_file(version_id: str) -> VersionFile:
    env_id = version_id.split("@", 1)[0]
    served = served_interface(env_id, version_id)
    return VersionFile(
        version=served.version,
        base=family_for_env(env_id).base_tools_for(served.version).to_mcp(),
        tools=served.tools.to_mcp(),
        digest=served.digest,
        changelog=served.version.changelog(),
    )


@app.command("builtin")
@user_errors
def builtin_cmd(
    version: Annotated[
        str | None,
        typer.Argument(help="A built-in version id, e.g. support-ops@2-units; omit to list all."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Write the version file here (usable by show, diff, generate)."),
    ] = None,
) -> None:
    """List the built-in interface versions the environments serve, or export one."""
    if version is None:
        for fam in FAMILIES.values():
            for vid in fam.interface_versions():
                _print_version(_builtin_file(vid))
        return
    vf = _builtin_file(version)
    if out is None:
        _print_version(vf)
        return
    _write(out, vf.model_dump_json(indent=2, by_alias=True) + "\n")
    console.print(f"wrote {out}", highlight=False)


@app.command("ops")
def ops_cmd() -> None:
    """List the drift operator kinds with their class and parameters."""
    table = Table("kind", "class", "what it does", "parameters")
    for kind, cls in KINDS.items():
        doc = (cls.__doc__ or "").strip().splitlines()[0]
        params = ", ".join(n for n in cls.model_fields if n != "op")
        style = CLASS_STYLE[cls.drift_class]
        table.add_row(kind, f"[{style}]{cls.drift_class}[/]", doc, params)
    console.print(table)


def _served_for(
    interface: Path | None, specs: list[OpSpec], seed: int, env: str
) -> Callable[[ToolSet], ServedInterface]:
    """How the proxy drifts the upstream server's tools: a version file's operators, or the
    operators asked for (their unset parameters drawn from ``seed``)."""
    version = load_version_file(interface) if interface is not None else None

    def served_for(base: ToolSet) -> ServedInterface:
        if version is None:
            generated = generate(GenerateConfig(ops=specs, seed=seed, env=env), base, None)
            return ServedInterface(base, generated.version)
        if parse_tool_list(version.base, str(interface)).digest() != base.digest():
            err_console.print(
                f"warning: {interface}'s base is not the server's tool list; applying its "
                "operators to the server's tools",
                highlight=False,
            )
        return ServedInterface(base, version.version)

    return served_for


@app.command("proxy")
@user_errors
def proxy_cmd(
    command: Annotated[
        list[str],
        typer.Argument(help="After '--': the command that starts the upstream stdio MCP server."),
    ],
    interface: Annotated[
        Path | None,
        typer.Option(help="A version file (vwt drift generate/builtin) whose operators to apply."),
    ] = None,
    ops: Annotated[
        list[str] | None,
        typer.Option(
            "--ops",
            "--op",
            help="Operator as KIND[:key=value,...] (unset parameters drawn from --seed); "
            "repeat for several. Kinds: see 'vwt drift ops'.",
        ),
    ] = None,
    ops_file: Annotated[
        Path | None, typer.Option(help="JSON list of operator specs, each {'op': KIND, ...}.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for the operator parameters drawn.")] = 0,
    env: Annotated[str, typer.Option(help="Environment id of the drifted version.")] = "upstream",
    log: Annotated[
        Path | None,
        typer.Option(
            help="Append each call (served, upstream, error, old readings) as JSON lines."
        ),
    ] = None,
) -> None:
    """Serve a drifted interface over stdio MCP in front of any stdio MCP server.

    tools/list answers the server's tools changed by the operators; tools/call is validated
    against them, translated back to the server's own tools, and its result translated
    forward. Example: vwt drift proxy --ops rename_tool -- node server.js DIR
    """
    specs = [parse_op_spec(s) for s in ops or []]
    if ops_file is not None:
        specs += load_op_specs(ops_file)
    if (interface is None) == (not specs):
        raise DriftError(
            "give exactly one of --interface or --ops/--ops-file",
            "e.g. --ops rename_tool, or --interface VERSION.json from 'vwt drift generate'",
        )
    if not command:
        raise DriftError(
            "no upstream server command", "put it after '--': vwt drift proxy --ops ... -- CMD"
        )
    asyncio.run(run_stdio_proxy(command, _served_for(interface, specs, seed, env), log))
