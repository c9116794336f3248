"""`vwt submissions`: start, pack, validate and submit bundles; list them; check receipts."""

from __future__ import annotations

import os
import re
import shutil
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.markup import escape
from rich.table import Table

from conditions import Cycle, fingerprint
from submissions import (
    MANIFEST_FILE,
    SUBMISSION_EVENT,
    Bundle,
    Receipt,
    SubmissionError,
    load_bundle_dir,
    read_bundle_file,
    reference_dir,
    submit,
    submitted_bundles,
    write_bundle,
)
from vwt._common import DEFAULT_HOME, Home, console, user_errors

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


BundlePath = Annotated[
    Path, typer.Argument(help="A bundle directory (with vwt-bundle.json) or a packed bundle file.")
]


def load_bundle(path: Path) -> Bundle:
    """A bundle from a directory or a packed file, validated."""
    return load_bundle_dir(path) if path.is_dir() else read_bundle_file(path)


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _print_bundle(bundle: Bundle) -> None:
    m = bundle.manifest
    console.print(f"[bold]{m.name}[/] version {escape(m.version)}", highlight=False)
    console.print(f"hash: {bundle.hash}", highlight=False)
    if m.description:
        console.print(f"description: {m.description}", highlight=False, markup=False)
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
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise SubmissionError(f"{dest} exists and is not an empty directory", "pick a new path")
    source = reference_dir(start.value)
    bundle = load_bundle_dir(source)
    dest.mkdir(parents=True, exist_ok=True)
    for rel in [MANIFEST_FILE, *(a.path for a in bundle.manifest.artifacts)]:
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / rel, dest / rel)
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


@app.command("submit")
@user_errors
def submit_cmd(path: BundlePath, home: Home = DEFAULT_HOME) -> None:
    """Accept a bundle into the open cycle; write its signed receipt to HOME/receipts/."""
    bundle = load_bundle(path)
    receipt = submit(Cycle.open(home), bundle)
    out = home / "receipts" / f"{bundle.hash}.json"
    text = receipt.model_dump_json(indent=2)
    _write_text(out, text + "\n")
    typer.echo(text)
    console.print(f"receipt written to {out}", markup=False)


@app.command("list")
@user_errors
def list_(home: Home = DEFAULT_HOME) -> None:
    """List the bundles submitted to the cycle, in submission order."""
    cycle = Cycle.open(home)
    bundles = submitted_bundles(cycle)
    entries = cycle.ledger.entries(SUBMISSION_EVENT)
    table = Table("received (UTC)", "name", "version", "hash", "artifacts")
    for bundle, entry in zip(bundles, entries, strict=True):
        kinds = ", ".join(f"{a.kind.value}:{a.name}" for a in bundle.manifest.artifacts) or "-"
        m = bundle.manifest
        table.add_row(entry.ts, m.name, escape(m.version), bundle.hash, kinds)
    console.print(table)
    console.print(f"{len(bundles)} submissions to cycle {cycle.id} (state {cycle.state})")


def _read_receipt(path: Path) -> Receipt:
    try:
        return Receipt.model_validate_json(path.read_bytes())
    except OSError as e:
        raise SubmissionError(f"cannot read receipt {path}: {e.strerror}", "check the path") from e
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise SubmissionError(
            f"{path} is not a receipt ({where}: {err['msg']})",
            "pass the receipt JSON written by `vwt submissions submit`",
        ) from None


@app.command()
@user_errors
def receipt(
    path: Annotated[Path, typer.Argument(help="A receipt JSON file.")],
    key: Annotated[
        str | None,
        typer.Option("--key", help="The operator's public key (base64) or fingerprint to require."),
    ] = None,
    bundle_path: Annotated[
        Path | None,
        typer.Option("--bundle", help="A bundle (directory or packed file) the receipt must name."),
    ] = None,
) -> None:
    """Verify a receipt's signature (and key and bundle, if given); exit 0 only if it holds."""
    r = _read_receipt(path)
    s = r.receipt
    if not r.verify():
        raise SubmissionError(
            "the receipt's signature does not verify (altered receipt or forged signature)",
            "ask the operator for the receipt as issued",
        )
    if key is not None and key not in (r.public_key, fingerprint(r.public_key)):
        raise SubmissionError(
            f"the receipt is signed by key {fingerprint(r.public_key)}, not {key}",
            "it was not issued by that operator",
        )
    if bundle_path is not None and (actual := load_bundle(bundle_path).hash) != s.bundle_hash:
        raise SubmissionError(
            f"the receipt is for bundle {s.bundle_hash}, not {actual} ({bundle_path})",
            "pass the bundle exactly as submitted",
        )
    console.print(
        f"OK: {s.name}@{s.version} (bundle {s.bundle_hash}) received by cycle {s.cycle} at "
        f"{s.received_at}; signed by key {fingerprint(r.public_key)}",
        markup=False,
    )
