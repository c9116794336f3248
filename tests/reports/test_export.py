"""Exporting a release's tables as CSV or Parquet, read back equal."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from reports import LoadedRelease, ReportError, export_release, load_release
from tests.reports.test_load import shared_release


@pytest.fixture(scope="module")
def pub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The published directory of a small release of prompt-recipe and typed-skill."""
    return shared_release(tmp_path_factory)


@pytest.fixture(scope="module")
def loaded(pub: Path) -> LoadedRelease:
    return load_release(pub)


def assert_same_tables(loaded: LoadedRelease, out: Path, fmt: str) -> None:
    """Every table read back from ``out`` equals the loaded one, values and dtypes (a CSV is
    read back with the loaded table's dtypes: CSV has none)."""
    for name, table in loaded.tables().items():
        path = out / f"{name}.{fmt}"
        if fmt == "csv":
            back = pd.read_csv(path, dtype=dict(table.dtypes))
        else:
            back = pd.read_parquet(path)
        pd.testing.assert_frame_equal(back, table)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export_round_trips(loaded: LoadedRelease, pub: Path, tmp_path: Path, fmt: str) -> None:
    written = export_release(pub, tmp_path / "out", fmt)
    assert [(p.name, n) for p, n in written] == [
        (f"{name}.{fmt}", len(table)) for name, table in loaded.tables().items()
    ]
    assert_same_tables(loaded, tmp_path / "out", fmt)


def test_export_refuses_a_non_empty_directory_unless_forced(pub: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ReportError, match="is not empty"):
        export_release(pub, out, "csv")
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    export_release(pub, out, "csv", force=True)
    assert (out / "notes.txt").read_text() == "mine" and (out / "cells.csv").is_file()


def test_export_refuses_a_bad_format_or_a_file(pub: Path, tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="unknown export format 'xlsx'") as e:
        export_release(pub, tmp_path / "out", "xlsx")
    assert e.value.hint == "use one of csv, parquet"
    (tmp_path / "file").write_text("")
    with pytest.raises(ReportError, match="is a file, not a directory"):
        export_release(pub, tmp_path / "file", "csv")
    assert not (tmp_path / "out").exists()


def test_parquet_without_pyarrow_writes_nothing(
    pub: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    with pytest.raises(ReportError, match="writing Parquet needs pyarrow") as e:
        export_release(pub, tmp_path / "out", "parquet")
    assert e.value.hint is not None and "vwt[analysis]" in e.value.hint
    assert not (tmp_path / "out").exists()
