"""`vwt submissions`: start, pack, validate and submit bundles; list them; check receipts."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from conditions import Cycle, fingerprint, verify_commitment
from service import ServiceClient, ServiceError, load_token
from submissions import (
    MANIFEST_FILE,
    Bundle,
    Receipt,
    SubmissionError,
    list_submissions,
    load_bundle,
    load_bundle_dir,
    read_receipt,
    reference_dir,
    shown,
    submit,
    write_bundle,
)
from vwt._common import DEFAULT_HOME, Home, console, user_errors
from vwt._json_out import AsJson, emit_json

app = typer.Typer(
    help="Submitters: start, pack, validate and submit bundles, and check receipts. "
    "Operators: accept submissions into the open cycle and list them.",
    no_args_is_help=True,
)


class Reference(StrEnum):
    """The reference submissions a new bundle can start from."""

    no_artifacts = "no-artifacts"
    prompt_recipe = "prompt-recipe"
    typed_skill = "typed-skill"
    retrieved_trajectories = "retrieved-trajectories"


BundlePath = Annotated[
    Path, typer.Argument(help="A bundle directory (with vwt-bundle.json) or a packed bundle file.")
]
To = Annotated[
    str | None,
    typer.Option(
        "--to",
        help="The operator's service (URL, e.g. http://127.0.0.1:8470): talk to it instead of a "
        "local --home. Token: $VWT_TOKEN, else ~/.config/vwt/token (mode 0600; another file: "
        "$VWT_TOKEN_FILE).",
        show_default=False,
    ),
]
"""The --to option of the commands that can talk to the operator's service."""


def refuse_with_to(ctx: typer.Context, *names: str) -> None:
    """Refuse options given on the command line that make no sense with --to."""
    # by name: typer carries its own copy of click's ParameterSource
    given = [n for n in names if getattr(ctx.get_parameter_source(n), "name", "") == "COMMANDLINE"]
    if given:
        shown_names = " and ".join(f"--{n.replace('_', '-')}" for n in given)
        raise ServiceError(
            f"--to sends the command to the operator's service; {shown_names} is for the "
            "operator's own machine",
            f"leave out {shown_names}, or leave out --to",
        )


def _write_receipt(path: Path, text: str) -> None:
    """Write the receipt ``text`` to ``path`` whole or not at all."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise SubmissionError(
            f"the bundle was accepted, but its receipt could not be written to {path} "
            f"({e.strerror})",
            "keep the receipt printed above; it is also in the cycle's ledger",
        ) from None


def _print_bundle(bundle: Bundle) -> None:
    m = bundle.manifest
    # Names, versions, paths and descriptions hold no control or bidi characters (validated);
    # markup=False or escape() keeps rich from reading them as markup.
    console.print(f"[bold]{m.name}[/] version {m.version}", highlight=False)
    console.print(f"hash: {bundle.hash}", highlight=False)
    if m.description:
        console.print(f"description: {m.description}", highlight=False, markup=False)
    if m.authors:
        console.print(f"authors: {', '.join(m.authors)}", highlight=False, markup=False)
    if m.developed_for:
        console.print(f"developed for: {m.developed_for}", highlight=False, markup=False)
    if not m.artifacts:
        console.print("artifacts: none (a no-artifact submission)")
        return
    table = Table("kind", "name", "path", "bytes")
    for a in m.artifacts:
        table.add_row(a.kind.value, a.name, escape(a.path), str(len(bundle.files[a.path].encode())))
    console.print(table)


@app.command()
@user_errors
def init(
    dest: Annotated[Path, typer.Argument(help="New bundle directory (must be absent or empty).")],
    start: Annotated[
        Reference,
        typer.Option("--from", help="The reference submission to start from."),
    ] = Reference.prompt_recipe,
) -> None:
    """Copy a reference submission to DEST as the starting point of a new bundle."""
    source = reference_dir(start.value)
    bundle = load_bundle_dir(source)
    try:
        if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
            raise SubmissionError(
                f"{shown(str(dest))} exists and is not an empty directory", "pick a new path"
            )
        dest.mkdir(parents=True, exist_ok=True)
        for rel in [MANIFEST_FILE, *(a.path for a in bundle.manifest.artifacts)]:
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / rel, dest / rel)
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        reason = getattr(e, "strerror", None) or str(e)
        raise SubmissionError(
            f"cannot write {shown(str(dest))} ({reason})", "pick another path"
        ) from None
    console.print(f"copied reference submission {start.value} to {dest}", markup=False)
    console.print(
        f"next: edit {dest / MANIFEST_FILE} (name, version, authors) and the artifacts, try it "
        f"with `vwt run dev --submission {dest}`, then `vwt submissions pack {dest}`",
        markup=False,
    )


def _default_out(bundle: Bundle) -> Path:
    m = bundle.manifest
    return Path(re.sub(r"[^A-Za-z0-9._-]", "_", f"{m.name}-{m.version}") + ".bundle.json")


@app.command()
@user_errors
def pack(
    directory: Annotated[
        Path, typer.Argument(help="Bundle directory: vwt-bundle.json and the artifacts it lists.")
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Packed file to write; default: NAME-VERSION.bundle.json here.",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Validate a bundle directory and write its canonical packed file; print its hash."""
    if not directory.is_dir():
        raise SubmissionError(f"{directory} is not a directory", "pack a bundle directory")
    bundle = load_bundle_dir(directory)
    target = write_bundle(bundle, out or _default_out(bundle))
    console.print(
        f"packed {bundle.manifest.name}@{bundle.manifest.version} to {target}", markup=False
    )
    console.print(f"hash: {bundle.hash}", highlight=False)


@app.command()
@user_errors
def validate(path: BundlePath) -> None:
    """Check a bundle directory or packed file and print what it holds."""
    _print_bundle(load_bundle(path))
    console.print("OK: the bundle is valid")


def _verify_remote(r: Receipt, client: ServiceClient) -> str:
    """Check ``r``'s signature and that it was issued under the commitment the service
    publishes; what was checked, to print."""
    if not r.verify():
        raise SubmissionError(
            "the receipt's signature does not verify (altered receipt or forged signature)",
            "keep the receipt and tell the operator",
        )
    r.check_commitment(client.verified_commitment())
    s = r.receipt
    return (
        f"OK: {s.name}@{s.version} (bundle {s.bundle_hash}) received by cycle {s.cycle} at "
        f"{s.received_at}; signed by key {fingerprint(r.public_key)}\nissued under the "
        f"commitment {shown(client.url)} publishes (root {s.commitment_root})"
    )


def _submit_remote(path: Path, url: str, receipt_path: Path | None) -> None:
    client = ServiceClient(url)
    bundle = load_bundle(path)
    out = receipt_path or Path("receipts") / f"{bundle.hash}.json"
    if out.exists():
        raise SubmissionError(
            f"{shown(str(out))} exists; nothing was uploaded",
            "pass another --receipt path, or move the old receipt away",
        )
    receipt = client.upload(path)
    text = receipt.model_dump_json(indent=2)
    typer.echo(text)
    _write_receipt(out, text + "\n")
    console.print(f"receipt written to {shown(str(out))}", markup=False, highlight=False)
    console.print(_verify_remote(receipt, client), markup=False, highlight=False)


@app.command("submit")
@user_errors
def submit_cmd(
    ctx: typer.Context,
    path: BundlePath,
    home: Home = DEFAULT_HOME,
    late: Annotated[
        bool,
        typer.Option(
            "--late",
            help="Operator override: accept the bundle after the spec's closes_at (recorded as "
            "late in the ledger and the receipt).",
        ),
    ] = False,
    to: To = None,
    receipt_path: Annotated[
        Path | None,
        typer.Option(
            "--receipt",
            help="With --to: where to write the receipt (default: receipts/HASH.json here).",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Accept a bundle into the open cycle; write its signed receipt to HOME/receipts/.

    With --to URL, upload it to the operator's service instead: the bundle is checked here
    first, the receipt the service signs is written to --receipt and verified (its signature,
    and the commitment the service publishes).
    """
    if to is not None:
        refuse_with_to(ctx, "home", "late")
        _submit_remote(path, to, receipt_path)
        return
    if receipt_path is not None:
        raise SubmissionError(
            "--receipt goes with --to", "an operator's local submit writes HOME/receipts/"
        )
    bundle = load_bundle(path)
    receipt = submit(Cycle.open(home), bundle, late=late)
    out = home / "receipts" / f"{bundle.hash}.json"
    text = receipt.model_dump_json(indent=2)
    typer.echo(text)
    _write_receipt(out, text + "\n")
    if receipt.receipt.late:
        console.print("accepted late (after closes_at), by operator override", markup=False)
    console.print(f"receipt written to {out}", markup=False)


def _list_remote(url: str, as_json: bool) -> None:
    client = ServiceClient(url)
    rows = client.submissions()
    if as_json:
        emit_json({"service": client.url, "submissions": rows}, indent=None)
        return
    table = Table("received (UTC)", "name", "version", "hash")
    for r in rows:
        received = str(r["received_at"]) + (" (late)" if r["late"] else "")
        cells = (received, r["name"], r["version"], r["bundle_hash"])
        table.add_row(*(escape(shown(str(v))) for v in cells))
    console.print(table)
    noun = "submission" if len(rows) == 1 else "submissions"
    console.print(f"{len(rows)} {noun} of yours at {shown(client.url)}", markup=False)


@app.command("list")
@user_errors
def list_(
    ctx: typer.Context,
    home: Home = DEFAULT_HOME,
    as_json: AsJson = False,
    to: To = None,
) -> None:
    """List the bundles submitted to the cycle, in submission order.

    With --to URL: your own submissions to the operator's service.
    """
    if to is not None:
        refuse_with_to(ctx, "home")
        _list_remote(to, as_json)
        return
    cycle = Cycle.open(home)
    listed = list_submissions(cycle)
    if as_json:
        rows = [s.model_dump(mode="json") for s in listed]
        emit_json({"cycle": cycle.id, "state": cycle.state.value, "submissions": rows}, indent=None)
        return
    table = Table("received (UTC)", "name", "version", "hash", "artifacts")
    for s in listed:
        kinds = ", ".join(f"{a.kind.value}:{a.name}" for a in s.artifacts) or "-"
        received = s.received_at + (" (late)" if s.late else "")
        table.add_row(received, s.name, s.version, s.bundle_hash, kinds)
    console.print(table)
    console.print(f"{len(listed)} submissions to cycle {cycle.id} (state {cycle.state})")


def _held_by(client: ServiceClient, r: Receipt) -> str:
    """Whether the service holds receipt ``r`` for the caller (checked when a token is at
    hand); raises if it holds none, or another."""
    try:
        load_token()
    except ServiceError as e:
        return f"not checked that the service holds it: {e}"
    bundle_hash = r.receipt.bundle_hash
    try:
        held = client.receipt(bundle_hash)
    except ServiceError as e:
        if e.code != "not_found":
            raise
        raise SubmissionError(
            f"{shown(client.url)} holds no receipt of yours for bundle {bundle_hash}",
            "check that the token is the one you submitted with; if it is, keep this receipt "
            "(signed proof of the submission) and tell the operator",
        ) from None
    if held != r:
        raise SubmissionError(
            f"{shown(client.url)} holds a different receipt for bundle {bundle_hash}",
            "keep this receipt (signed proof of the submission) and tell the operator",
        )
    return f"{shown(client.url)} holds this receipt for you"


@app.command()
@user_errors
def receipt(
    path: Annotated[
        Path, typer.Option("--verify", help="The receipt JSON file to verify.", dir_okay=False)
    ],
    commitment: Annotated[
        Path | None,
        typer.Option(
            "--commitment",
            help="The cycle's public commitment.json: the receipt must be signed by its key "
            "and name its cycle and root.",
            dir_okay=False,
        ),
    ] = None,
    key: Annotated[
        str | None,
        typer.Option("--key", help="The operator's public key (base64) or fingerprint to require."),
    ] = None,
    bundle_path: Annotated[
        Path | None,
        typer.Option("--bundle", help="A bundle (directory or packed file) the receipt must name."),
    ] = None,
    to: To = None,
) -> None:
    """Verify a receipt: its signature, and its commitment, key and bundle if given.

    With --to URL: against the commitment the operator's service publishes, and, when a
    token is at hand, that the service still holds this receipt for you.
    """
    r = read_receipt(path)
    s = r.receipt
    if to is not None and commitment is not None:
        raise SubmissionError("--to and --commitment both name the commitment", "pass one of them")
    if not r.verify():
        raise SubmissionError(
            "the receipt's signature does not verify (altered receipt or forged signature)",
            "ask the operator for the receipt as issued",
        )
    if commitment is not None:
        r.check_commitment(verify_commitment(commitment))
    client = ServiceClient(to) if to is not None else None
    if client is not None:
        r.check_commitment(client.verified_commitment())
    if key is not None and key not in (r.public_key, fingerprint(r.public_key)):
        raise SubmissionError(
            f"the receipt is signed by key {fingerprint(r.public_key)}, not {shown(key)}",
            "it was not issued by that operator",
        )
    if bundle_path is not None and (actual := load_bundle(bundle_path).hash) != s.bundle_hash:
        raise SubmissionError(
            f"the receipt is for bundle {s.bundle_hash}, not {actual} ({shown(str(bundle_path))})",
            "pass the bundle exactly as submitted",
        )
    late = " (late, by operator override)" if s.late else ""
    console.print(
        f"OK: {s.name}@{s.version} (bundle {s.bundle_hash}) received by cycle {s.cycle} at "
        f"{s.received_at}{late}; signed by key {fingerprint(r.public_key)}",
        markup=False,
    )
    if client is not None:
        console.print(
            f"issued under the commitment {shown(client.url)} publishes (cycle {s.cycle}, root "
            f"{s.commitment_root})",
            markup=False,
        )
        console.print(_held_by(client, r), markup=False)
    elif commitment is None:
        console.print(
            "not checked against the cycle's commitment: pass --commitment "
            "(the cycle's public/commitment.json) or --to URL",
            markup=False,
        )
    else:
        console.print(
            f"issued under the commitment of cycle {s.cycle} (root {s.commitment_root})",
            markup=False,
        )
