"""`vwt report`: build the signed release, show one, verify one from its published files."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from conditions import Cycle
from reports import (
    EXPORT_FORMATS,
    ReportError,
    build_release,
    compare_releases,
    export_release,
    is_dev_home,
    read_release,
    render_comparison,
    render_release,
    verify_release,
    write_dev_html,
    write_html_report,
)
from service import ServiceClient, pull_release
from submissions import shown
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
def build(
    home: Home = DEFAULT_HOME,
    accept_invalid: Annotated[
        bool,
        typer.Option(
            "--accept-invalid",
            help="Publish although some planned trials are invalid (after `vwt run` retried "
            "them): recorded in the release and shown on every affected cell. Missing trials "
            "are never accepted.",
        ),
    ] = False,
) -> None:
    """Build, sign and publish the release of a revealed cycle, then print its matrix.

    Refused while a planned frozen or adapted trial is missing or invalid (`vwt run` runs and
    retries them). Writes HOME/public/release.json and trials.jsonl (atomically) next to the
    commitment and reveal, and moves the cycle to released; then writes the release's HTML
    report beside it (HOME/public/report.html, see `vwt report html`).
    """
    path = build_release(Cycle.open(home), accept_invalid=accept_invalid)
    render_release(read_release(path).release, console)
    console.print(f"release: {path}", markup=False)
    console.print(f"HTML report: {write_html_report(path).summary()}", markup=False, soft_wrap=True)
    console.print(
        f"publish {path.parent}/; anyone can check it: vwt report verify {path.parent}",
        markup=False,
    )


@app.command()
@user_errors
def html(
    path: ReleasePath,
    out: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            dir_okay=False,
            help="Where to write the report (default: report.html beside release.json).",
        ),
    ] = None,
) -> None:
    """Write a release as one self-contained HTML file that opens offline in any browser.

    The file holds the transfer matrix as a heatmap of gains with intervals, the critical
    drift failures first, per-arm outcomes (safe stops apart from critical and plain
    failures), every flag explained on hover, filters by axis, submission and phase, and per
    cell a drill-down to its tasks, every trial's outcome and its trace (messages, tool calls
    and results, verifier reasons, drift-oracle findings). Reads the release, its trials file
    and its published traces; verifies nothing else (`vwt report verify` does).

    PATH may also be a dev home (`vwt run dev --home H`): the report then holds its dev cells,
    every trial and its trace, written to H/report.html unless -o says otherwise.
    """
    report = write_dev_html(path, out) if is_dev_home(path) else write_html_report(path, out)
    console.print(f"HTML report: {report.summary()}", markup=False, soft_wrap=True)


@app.command()
@user_errors
def show(
    path: ReleasePath,
    detail: Annotated[
        bool,
        typer.Option(
            "--detail",
            help="Add every cell of each submission and phase: scores and gain with the interval "
            "method and detectable gain, p_neg, sign test, the critical test, retention or why "
            "not, counts, adaptation, each flag explained.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the release as JSON.")] = False,
) -> None:
    """Print a release's transfer matrix (critical drift failures first); checks nothing.

    Per submission and phase one line per condition, flags as symbols with a legend; it fits
    the terminal's width (or COLUMNS) and cuts nothing. See docs/matrix.md.
    """
    signed = read_release(path)
    if as_json:
        typer.echo(signed.model_dump_json(indent=2))
        return
    r = signed.release
    console.print(
        f"release of cycle [bold]{escape(shown(r.cycle))}[/], built {escape(shown(r.created_at))}: "
        f"{len(r.conditions)} "
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
    as_json: Annotated[
        bool, typer.Option("--json", help="Print what was verified as one JSON object.")
    ] = False,
) -> None:
    """Verify a release from its published files; exit 0 only if every check holds.

    Checks the release's signature, the SHA-256 of the commitment, reveal and trials file,
    the commitment and reveal (same key, same cycle), that the released and revealed target
    conditions are the same, that every trial record belongs to a released condition and
    submission, that every planned trial is released (invalid ones only if the release says it
    accepted them), and that the matrix recomputed from the trials equals the released cells;
    then that every trial's trace (traces/) and model calls (calls/), every bundle a trial used
    (artifacts/) and every served interface (interfaces/) is published as the release pins it.
    """
    v = verify_release(path, key)
    if as_json:
        typer.echo(v.model_dump_json(indent=2))
        return
    console.print(
        f"OK: release of cycle {shown(v.cycle)} built {shown(v.created_at)}, signed by key "
        f"{v.fingerprint}",
        markup=False,
    )
    console.print(
        f"commitment root {v.root} ({v.tree_size} conditions), {v.scope} reveal: "
        f"{v.targets} target conditions released, each revealed and each proven",
        highlight=False,
    )
    console.print(
        f"complete: every condition × arm holds its {v.tasks_per_split} tasks × k={v.k} "
        f"planned trials (the size committed to); {v.trials} trial records of "
        f"{v.submissions} submissions checked; "
        f"all {v.cells} cells recomputed from them match the release exactly",
        highlight=False,
    )
    console.print(
        f"published: {v.traces} traces, each present and hashing to the trace_sha256 its "
        f"trials pin; {v.calls} call records, each hashing to the calls_sha256 its trials pin "
        f"with every blob it holds; {v.artifacts} bundles, each's hash recomputed; "
        f"{v.interface_files} interface version files, each the release's definition",
        highlight=False,
    )
    if v.ledger_pinned:
        tied = ", ".join(v.ledger_pinned)
        said = f"the {tied} trials recompute the digests the cycle's ledger pinned"
    else:
        said = "none (a release of format 6, or of phases run before ledger pins)"
    console.print(f"ledger pins: {said}", highlight=False)
    if v.accepted_invalid:
        console.print(
            f"[bold yellow]accepted invalid:[/] {v.invalid_trials} invalid trials published by "
            f"the operator; {v.dropped_tasks} tasks dropped from cells for them",
            highlight=False,
        )
    if v.window_overrides or v.late_submissions:
        console.print(
            f"[yellow]operator overrides:[/] {len(v.window_overrides)} window overrides, "
            f"{v.late_submissions} late submissions (see `vwt report show`)",
            highlight=False,
        )


@app.command()
@user_errors
def export(
    path: ReleasePath,
    fmt: Annotated[
        str,
        typer.Option("--format", "-f", help=f"File format: {' or '.join(EXPORT_FORMATS)}."),
    ] = "csv",
    out: Annotated[
        Path, typer.Option("--output", "-o", help="Directory to write the tables into.")
    ] = Path("release-tables"),
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite the tables in a non-empty directory.")
    ] = False,
) -> None:
    """Write a release's tables (cells, trials, conditions, submissions) as CSV or Parquet.

    One row per matrix cell, per trial record, per condition and per submission, as
    `reports.load_release` returns them (needs the analysis extra: pandas, and pyarrow for
    Parquet). Checks nothing: run `vwt report verify` for that.
    """
    for file, rows in export_release(path, out, fmt, force=force):
        console.print(f"wrote {file} ({rows} rows)", markup=False, highlight=False)
    console.print(f"[dim]not verified here: run `vwt report verify {escape(str(path))}`[/]")


@app.command()
@user_errors
def compare(
    a: Annotated[Path, typer.Argument(help="Release A (release.json or its directory).")],
    b: Annotated[Path, typer.Argument(help="Release B, compared with A.")],
    renamed: Annotated[
        list[str] | None,
        typer.Option(
            "--map",
            metavar="OLD=NEW",
            help="Compare submission OLD of A with NEW of B (each name@version): a renamed "
            "bundle. Repeatable.",
        ),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the comparison as one JSON object.")
    ] = False,
) -> None:
    """Two releases side by side: which cells moved (gain B - gain A, both intervals), which
    moved beyond their intervals, cells only in one, and which submissions changed rank.

    Cells match on phase, submission and the condition's content (target ids differ between
    cycles). A submission of A is compared with the one of B of the same name@version, or the
    one --map names; failing both, with the one of B holding the same bundle apart from its
    name and version (from the published artifacts). A submission whose bundle hash differs
    otherwise is marked as edited. Ranks are by mean gain over the target conditions both
    releases share. Checks neither release.
    """
    comparison = compare_releases(a, b, _renames(renamed or []))
    if as_json:
        typer.echo(comparison.model_dump_json(indent=2))
        return
    render_comparison(comparison, console)
    console.print("[dim]not verified here: run `vwt report verify` on each release[/]")


def _renames(given: list[str]) -> dict[str, str]:
    """--map OLD=NEW options as a mapping, each OLD once."""
    out: dict[str, str] = {}
    for item in given:
        old, eq, new = (part.strip() for part in item.partition("="))
        if not eq or not old or not new or "=" in new:
            raise ReportError(
                f"--map {shown(item)} is not OLD=NEW",
                "write --map NAME@VERSION=NAME@VERSION, e.g. --map typed-skill@1=contract-skill@1",
            )
        if old in out:
            raise ReportError(
                f"--map names {shown(old)} twice", "map each submission of A at most once"
            )
        out[old] = new
    return out


@app.command()
@user_errors
def pull(
    url: Annotated[str, typer.Argument(help="The service's base URL, e.g. http://127.0.0.1:8470.")],
    out: Annotated[
        Path,
        typer.Option(
            "--out", help="A new directory for the release (absent or empty).", file_okay=False
        ),
    ],
    then_verify: Annotated[
        bool, typer.Option("--verify", help="Verify the release once pulled (`vwt report verify`).")
    ] = False,
) -> None:
    """Download a released cycle's published release from the operator's service into OUT.

    Fetches the list of release files, downloads each, checks its size and SHA-256 against
    the list and that the list names exactly the files of the release (release.json, the
    commitment, reveal and trials it pins, its artifacts and interface files, every trial's
    trace; report.html if published), then moves the directory into place. Nothing is
    written if any check fails; a rate-limited (429) download is retried after 1, 2, 4 … s.
    The release itself is checked by `vwt report verify OUT` (or --verify).
    """
    pulled = pull_release(ServiceClient(url), out)
    console.print(
        f"pulled the release of cycle {shown(pulled.cycle)}: {pulled.files} files, "
        f"{pulled.bytes:,} bytes, into {shown(str(out))}",
        markup=False,
        highlight=False,
    )
    if then_verify:
        verify(out)
    else:
        console.print(f"next: vwt report verify {shown(str(out))}", markup=False, highlight=False)
