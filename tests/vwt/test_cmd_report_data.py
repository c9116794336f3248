"""`vwt report export` and `vwt report compare`, through the CLI."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from reports import RELEASE_FILE, ReleaseComparison, load_release
from tests.reports.test_compare import renamed_release
from tests.reports.test_load import shared_release
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str, width: int = 250) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": str(width)})
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def pub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The published directory of a small release of prompt-recipe and typed-skill."""
    return shared_release(tmp_path_factory)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export_writes_the_four_tables_and_says_so(pub: Path, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / "tables"
    code, text = vwt("report", "export", str(pub), "--format", fmt, "-o", str(out))
    assert code == 0, text
    loaded = load_release(pub)
    for name, table in loaded.tables().items():
        assert f"wrote {out / name}.{fmt} ({len(table)} rows)" in text
        read = pd.read_csv if fmt == "csv" else pd.read_parquet
        assert len(read(out / f"{name}.{fmt}")) == len(table)
    assert "not verified here" in text


def test_export_refuses_a_non_empty_directory_unless_forced(pub: Path, tmp_path: Path) -> None:
    out = tmp_path / "tables"
    assert vwt("report", "export", str(pub), "-o", str(out))[0] == 0
    code, text = vwt("report", "export", str(pub), "-o", str(out))
    assert code == 2 and "is not empty" in text and "--force" in text
    code, text = vwt("report", "export", str(pub), "-o", str(out), "--force")
    assert code == 0 and "cells.csv" in text


def test_export_refuses_a_bad_format_writing_nothing(pub: Path, tmp_path: Path) -> None:
    code, text = vwt("report", "export", str(pub), "-f", "xlsx", "-o", str(tmp_path / "t"))
    assert code == 2 and "unknown export format 'xlsx'" in text and "csv, parquet" in text
    assert not (tmp_path / "t").exists()


def test_export_without_pandas_says_how_to_install_it(
    pub: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    code, text = vwt("report", "export", str(pub), "-o", str(tmp_path / "t"))
    assert code == 2 and "needs pandas, which is not installed" in text
    assert "pip install 'vwt[analysis]'" in text and not (tmp_path / "t").exists()


def test_export_of_a_missing_release(tmp_path: Path) -> None:
    code, text = vwt("report", "export", str(tmp_path / "nowhere"), "-o", str(tmp_path / "t"))
    assert code == 2 and "cannot read release" in text and not (tmp_path / "t").exists()


def _with_first_cell_moved(pub: Path, tmp_path: Path) -> Path:
    """A copy of ``pub`` whose first target cell's gain and interval are raised by 2 (3 when
    its interval is 2 wide: which target comes first follows the secret leaf order, so the
    cell differs between builds; either way the new interval does not overlap the old)."""
    copy = Path(shutil.copytree(pub, tmp_path / "moved"))
    data = json.loads((copy / RELEASE_FILE).read_text())
    source = data["release"]["conditions"][0]["id"]
    cell = next(c for c in data["release"]["cells"] if c["condition_id"] != source)
    m = cell["metrics"]
    shift = 2 if m["gain_ci"]["hi"] - m["gain_ci"]["lo"] < 2 else 3
    m["gain"] += shift
    m["gain_ci"] = {"lo": m["gain_ci"]["lo"] + shift, "hi": m["gain_ci"]["hi"] + shift}
    (copy / RELEASE_FILE).write_text(json.dumps(data))
    return copy


def test_compare_shows_the_moved_cell_at_80_columns(pub: Path, tmp_path: Path) -> None:
    code, text = vwt(
        "report", "compare", str(pub), str(_with_first_cell_moved(pub, tmp_path)), width=80
    )
    assert code == 0, text
    words = " ".join(text.split())
    assert "1 moved, 1 of them to an interval that does not overlap the other" in words
    assert "Moved cells" in text and " *" in text and "not verified here" in text
    assert max(len(line) for line in text.splitlines()) <= 80


def test_compare_json(pub: Path, tmp_path: Path) -> None:
    code, text = vwt(
        "report", "compare", str(pub), str(_with_first_cell_moved(pub, tmp_path)), "--json"
    )
    assert code == 0, text
    c = ReleaseComparison.model_validate_json(text)
    assert len(c.moved) == 1 and c.moved[0].disjoint
    assert any(c.moved[0].delta == pytest.approx(shift) for shift in (2, 3))
    assert len(c.moves) == len(load_release(pub).cells)


def test_compare_a_missing_release(pub: Path, tmp_path: Path) -> None:
    code, text = vwt("report", "compare", str(pub), str(tmp_path / "nowhere"))
    assert code == 2 and "cannot read release" in text


def test_compare_map_pairs_renamed_bundles(
    pub: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    renamed = str(renamed_release(tmp_path_factory))
    code, text = vwt("report", "compare", str(pub), renamed, "--json")
    assert code == 0, text
    assert [r.b for r in ReleaseComparison.model_validate_json(text).renamed] == [
        "contract-skill@1"
    ]
    args = ("report", "compare", str(pub), renamed, "--map", "prompt-recipe@1=recipe-two@1")
    code, text = vwt(*args, "--json")
    assert code == 0, text
    c = ReleaseComparison.model_validate_json(text)
    assert not c.only_a and not c.only_b and len(c.renamed) == 2
    code, text = vwt(*args, width=80)
    assert code == 0 and "prompt-recipe@1 in A is recipe-two@1 in B (as --map says)" in text


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("prompt-recipe@1", "--map prompt-recipe@1 is not OLD=NEW"),
        ("=recipe-two@1", "--map =recipe-two@1 is not OLD=NEW"),
        ("a@1=b@1=c@1", "--map a@1=b@1=c@1 is not OLD=NEW"),
    ],
)
def test_compare_refuses_a_malformed_map(pub: Path, given: str, message: str) -> None:
    code, text = vwt("report", "compare", str(pub), str(pub), "--map", given)
    assert code == 2 and f"error: {message}" in text and "hint: write --map NAME@VERSION" in text


def test_compare_refuses_one_submission_mapped_twice(pub: Path) -> None:
    code, text = vwt(
        "report", "compare", str(pub), str(pub), "--map", "a@1=b@1", "--map", "a@1=c@1"
    )
    assert code == 2 and "error: --map names a@1 twice" in text
