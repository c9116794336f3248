"""Writing a loaded release's tables to files: CSV, or Parquet (pyarrow)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from reports._load import load_release, optional_module
from reports.errors import ReportError

ExportFormat = Literal["csv", "parquet"]
"""File format of exported tables."""

EXPORT_FORMATS: tuple[str, ...] = get_args(ExportFormat)


def export_release(
    path: Path, out: Path, fmt: str, *, force: bool = False
) -> list[tuple[Path, int]]:
    """Write the tables of the release at ``path`` (cells, trials, conditions, submissions, as
    ``load_release`` reads them, unverified) into directory ``out`` as ``<table>.csv`` or
    ``<table>.parquet``; returns each file written with its rows.

    Refuses (``ReportError``, nothing written) an unknown format, Parquet without pyarrow, an
    unreadable release, and an ``out`` that is a file or a non-empty directory unless ``force``
    (which overwrites the four files and leaves anything else in ``out`` alone).
    """
    if fmt not in EXPORT_FORMATS:
        raise ReportError(
            f"unknown export format {fmt!r}", f"use one of {', '.join(EXPORT_FORMATS)}"
        )
    if fmt == "parquet":
        optional_module("pyarrow", "writing Parquet")
    if out.exists() and not out.is_dir():
        raise ReportError(f"{out} is a file, not a directory", "give another -o DIR")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise ReportError(
            f"{out} is not empty", "give an empty or new -o DIR, or --force to overwrite the tables"
        )
    loaded = load_release(path)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in loaded.tables().items():
        path = out / f"{name}.{fmt}"
        if fmt == "csv":
            table.to_csv(path, index=False)
        else:
            table.to_parquet(path, index=False)
        written.append((path, len(table)))
    return written
