"""``--json``: stdout carries the one JSON document and nothing else.

Ray's driver prints its workers' output and its own notices ("(raylet) A worker died…") to
``sys.stdout`` from background threads, and libraries may print there too. Once a command is
asked for JSON, everything else written to stdout goes to stderr, and the document goes to
the stdout the command started with.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Any, TextIO

import typer

_document: TextIO | None = None
"""Where :func:`emit_json` writes: the original stdout, while ``--json`` is in force."""


def _real_stdout() -> bool:
    try:
        return sys.stdout.fileno() == 1 and sys.stdout is sys.__stdout__
    except (AttributeError, OSError, ValueError):
        return False


def _json_mode(value: bool) -> bool:
    """The ``--json`` option's callback: with ``value``, route stdout to stderr from now on."""
    global _document
    if not value:
        _document = None
        return value
    sys.stdout.flush()
    if _real_stdout():
        # a process of its own (the CLI): file descriptor 1 too, for what children and C code
        # write, and for good (Ray's threads keep printing until the process ends)
        _document = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)
        sys.stdout = sys.stderr
    else:
        # called in-process (a test's CliRunner), which restores sys.stdout afterwards
        _document = sys.stdout
        sys.stdout = sys.stderr
    return value


AsJson = Annotated[
    bool,
    typer.Option(
        "--json", help="Print one JSON object on stdout instead of text.", callback=_json_mode
    ),
]
"""The --json flag of every command with machine-readable output."""


def emit_json(data: Any, indent: int | None = 2) -> None:
    """Write ``data`` as the command's JSON document on its stdout (see the module doc)."""
    stream = _document or sys.stdout
    stream.write(json.dumps(data, indent=indent) + "\n")
    stream.flush()
