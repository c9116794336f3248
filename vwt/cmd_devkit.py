"""`vwt dev-kit`: a submitter pulls the cycle's dev kit from the operator's service."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from service import ServiceClient, write_dev_kit
from submissions import shown
from vwt._common import console, user_errors

app = typer.Typer(
    help="Submitters: pull the cycle's dev kit (the public source condition, its dev tasks and "
    "tool definitions) from the operator's service, to develop locally.",
    no_args_is_help=True,
)


@app.command()
@user_errors
def pull(
    url: Annotated[str, typer.Argument(help="The service's base URL, e.g. http://127.0.0.1:8470.")],
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="A new directory for the kit (absent or empty).", file_okay=False
        ),
    ],
) -> None:
    """Download the dev kit, check it, and write spec.json, tasks.json, tools.json, README.md.

    The kit is validated before anything is written: a spec that names anything but the
    source condition is refused. Then `vwt run dev --spec OUT/spec.json --submission B`
    runs a bundle on the dev split.
    """
    client = ServiceClient(url)
    kit = client.dev_kit()
    written = write_dev_kit(kit, out, client.url)
    for path in written:
        console.print(f"wrote {shown(str(path))}", markup=False, highlight=False)
    console.print(
        f"next: `vwt run dev --spec {shown(str(out / 'spec.json'))} --submission BUNDLE` "
        f"(see {shown(str(out / 'README.md'))})",
        markup=False,
        highlight=False,
    )
