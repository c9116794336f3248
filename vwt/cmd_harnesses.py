"""`vwt harnesses`: the harnesses installed, their versions and where each comes from."""

from __future__ import annotations

from typing import Any

import typer
from rich.markup import escape
from rich.table import Column, Table

from vwt._common import console, user_errors
from vwt._json_out import AsJson, emit_json

app = typer.Typer(
    help="The harnesses a condition's harness axis can name: vwt's own agent loops and real "
    "agent frameworks at pinned releases. List them with their versions and origin.",
    no_args_is_help=True,
)


def _harness_json(harness_id: str) -> dict[str, Any]:
    from benchmark.harness import harness, harness_origin

    info = harness(harness_id).info()
    origin = harness_origin(harness_id)
    return {
        **info.model_dump(mode="json"),
        "ready": info.unavailable is None,
        "origin": {"entry_point": origin.entry_point, "distribution": origin.distribution},
    }


@app.command("list")
@user_errors
def list_cmd(as_json: AsJson = False) -> None:
    """List every installed harness: id, kind, version, where it comes from, and whether it
    can run here.

    Harnesses are found through the 'vwt.harnesses' entry points of installed packages, vwt's
    own included (docs/harnesses.md); "from" names the distribution declaring one (--json: and
    the entry point's object), or says it was registered in code. A framework harness can run
    once its pinned release is installed in its own environment (`bash
    scripts/frameworks-setup.sh`). --json prints {"harnesses": [{id, kind, version, framework,
    summary, ready, unavailable, origin: {entry_point, distribution}}]}.
    """
    from benchmark.harness import HARNESSES

    harnesses = [_harness_json(h) for h in sorted(HARNESSES)]
    if as_json:
        emit_json({"harnesses": harnesses})
        return
    table = Table(
        Column("harness", no_wrap=True), "kind", "version", "from", "status", "what it is"
    )
    for h in harnesses:
        table.add_row(
            escape(h["id"]),
            h["kind"],
            escape(h["version"]),
            escape(h["origin"]["distribution"] or "registered in code"),
            "[green]ready[/]" if h["ready"] else "[red]cannot run here[/]",
            escape(h["summary"]),
        )
    console.print(table)
    missing = [h for h in harnesses if not h["ready"]]
    for h in missing:
        console.print(f"{escape(h['id'])}: {escape(h['unavailable'])}", highlight=False)
    if missing:
        console.print(
            "a framework harness runs once `bash scripts/frameworks-setup.sh` has installed its "
            "pinned release",
            highlight=False,
        )
