"""`vwt report`: build the signed release, show one, verify one from its published files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from conditions import Cycle
from reports import build_release, read_release, render_release, verify_release
from vwt._common import DEFAULT_HOME, Home, console, user_errors

app = typer.Typer(
    help="Operators: build and sign the release. Researchers: show a release and verify it "
    "from its published files alone.",
    no_args_is_help=True,
)

ReleasePath = Annotated[
    Path,
    typer.Argument(help="A release.json, or the directory holding it and the files it pins."),
]


@app.command()
@user_errors
def build(home: Home = DEFAULT_HOME) -> None:
    """Build, sign and publish the release of a revealed cycle, then print its matrix.

    Writes HOME/public/release.json and trials.jsonl next to the commitment and reveal, and
    moves the cycle to released.
    """
    path = build_release(Cycle.open(home))
    render_release(read_release(path).release, console)
    console.print(f"release: {path}", markup=False)
    console.print(
        f"publish {path.parent}/; anyone can check it: vwt report verify {path.parent}",
        markup=False,
    )


@app.command()
@user_errors
def show(
    path: ReleasePath,
    detail: Annotated[
        bool, typer.Option("--detail", help="Add a table per submission and phase.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the release as JSON.")] = False,
) -> None:
    """Print a release's transfer matrix (critical drift failures first); checks nothing."""
    signed = read_release(path)
    if as_json:
        typer.echo(signed.model_dump_json(indent=2))
        return
    r = signed.release
    console.print(
        f"release of cycle [bold]{r.cycle}[/], built {escape(r.created_at)}: {len(r.conditions)} "
        f"conditions, {len(r.submissions)} submissions, {r.n_trials} trials",
        highlight=False,
    )
    render_release(r, console, detail=detail)
    console.print(f"[dim]not verified here: run `vwt report verify {escape(str(path))}`[/]")


@app.command()
@user_errors
def verify(
    path: ReleasePath,
    key: Annotated[
        str | None,
        typer.Option(
            "--key", help="The operator's public key (base64) or fingerprint, to pin the signer."
        ),
    ] = None,
) -> None:
    """Verify a release from its published files; exit 0 only if every check holds.

    Checks the release's signature, the SHA-256 of the commitment, reveal and trials file,
    the commitment and reveal (same key, same cycle), that the released and revealed target
    conditions are the same, that every trial record belongs to a released condition and
    submission, and that the matrix recomputed from the trials equals the released cells.
    """
    v = verify_release(path, key)
    console.print(
        f"OK: release of cycle {v.cycle} built {v.created_at}, signed by key {v.fingerprint}",
        markup=False,
    )
    console.print(
        f"commitment root {v.root} ({v.tree_size} conditions), {v.scope} reveal: "
        f"{v.targets} target conditions released, each revealed and each proven",
        highlight=False,
    )
    console.print(
        f"{v.trials} trial records of {v.submissions} submissions checked; all {v.cells} cells "
        "recomputed from them match the release exactly",
        highlight=False,
    )
