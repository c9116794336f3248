"""The HTML report, without a browser: what it embeds, how it escapes, how it is written."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from typer.testing import CliRunner

from reports import (
    RELEASE_FILE,
    REPORT_FILE,
    Flag,
    Interval,
    ReportError,
    SignedRelease,
    build_release,
    cell_flags,
    method_text,
    read_release,
    write_html_report,
)
from reports._html import script_json
from reports._html_data import cell_kind
from tests.reports.test_verify import revealed_cycle
from vwt.cli import app

HOSTILE = "</script><script>alert(1)</script><!--<img src=x onerror=alert(2)>&amp;"


def released(root: Path) -> Path:
    """A small real release (reference submissions, frozen and adapted) with its traces."""
    return build_release(revealed_cycle(root / "home")).parent


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The published directory of a small release with its HTML report written."""
    folder = released(tmp_path_factory.mktemp("html"))
    write_html_report(folder)
    return folder


@pytest.fixture
def pub(public: Path, tmp_path: Path) -> Path:
    """A fresh copy of the published directory, to change."""
    return Path(shutil.copytree(public, tmp_path / "pub"))


def embedded(page: str, block: str) -> Any:
    """The JSON of the page's ``<script type="application/json" id=block>``."""
    m = re.search(rf'<script type="application/json" id="{block}">(.*?)</script>', page, re.S)
    assert m is not None, block
    return json.loads(m.group(1))


def assert_script_safe(page: str) -> None:
    """The page has exactly its three script elements (two data blocks and its script), and
    no data block holds a character that could end its element or open a comment."""
    assert page.count("<script") == 3 and page.count("</script>") == 3
    for block in ("release-data", "trace-data"):
        m = re.search(rf'id="{block}">(.*?)</script>', page, re.S)
        assert m is not None and not set("<>&") & set(m.group(1))


def test_every_cell_is_embedded_with_its_numbers_and_flags(public: Path) -> None:
    release = read_release(public).release
    data = embedded((public / REPORT_FILE).read_text(), "release-data")
    got = {(c["phase"], c["condition"], c["bundle"]): c for c in data["cells"]}
    assert len(got) == len(release.cells) == len(data["cells"])
    assert {c.phase for c in release.cells} == {"frozen", "adapted"}
    for cell in release.cells:
        c = got[(cell.phase, cell.condition_id, cell.bundle_hash)]
        m = cell.metrics
        assert (c["gain"], c["ci"]) == (m.gain, [m.gain_ci.lo, m.gain_ci.hi])
        assert c["flags"] == [f.model_dump(mode="json") for f in cell_flags(cell)]
        assert (c["adaptation"] is None) == (cell.adaptation is None)
        assert c["kind"] == cell_kind(cell) and c["method_text"] == method_text(m)
        assert (c["critical"]["p"], c["critical_excess"]) == (m.critical.p, m.critical_excess)
        assert c["retention_status"] == m.retention_status
    assert "bootstrap" not in data


def _kind_of(codes: list[str], gain_lo: float = -0.1, gain: float = 0.0) -> str:
    flags = [Flag(code=c, label=c, severity="info", explanation="x.") for c in codes]
    metrics = type("M", (), {"gain_ci": Interval(lo=gain_lo, hi=0.5), "gain": gain})()
    cell = type("C", (), {"metrics": metrics})()
    with patch("reports._html_data.cell_flags", return_value=tuple(flags)):
        return cell_kind(cell)


def test_a_cell_is_coloured_by_what_happened_worst_first() -> None:
    # A typed skill that stopped safely is not coloured like one that acted wrongly, nor like a
    # plain loss: the colour follows the flags, then the interval.
    assert _kind_of(["negative-safe-stops", "critical"]) == "critical"
    assert _kind_of(["leak"]) == "critical"
    assert _kind_of(["negative-wrong-actions", "safe-stops"]) == "wrong"
    assert _kind_of(["negative-safe-stops"]) == "stops"
    assert _kind_of(["noise-check-failed"]) == "noise"
    assert _kind_of(["more-critical"], gain_lo=0.05, gain=0.2) == "gain"
    assert _kind_of([], gain=-0.2) == "loss" and _kind_of([]) == "neutral"


def test_outcome_counts_per_arm_agree_with_the_cells(public: Path) -> None:
    """Each arm's counts (safe stops apart from critical and plain failures) add up to the
    trials the cell's arm summary counts, and the embedded trials are grouped accordingly."""
    release = read_release(public).release
    data = embedded((public / REPORT_FILE).read_text(), "release-data")
    by_key = {(c["phase"], c["condition"], c["bundle"]): c for c in data["cells"]}
    outcomes = data["trials"]["outcome"]
    for cell in release.cells:
        c = by_key[(cell.phase, cell.condition_id, cell.bundle_hash)]
        for counts, arm, summary in zip(
            c["outcomes"], c["arms"], (cell.metrics.with_arm, cell.metrics.without_arm), strict=True
        ):
            assert sum(counts.values()) == summary.trials == len(data["arms"][arm])
            assert (counts["critical"], counts["safe_stop"]) == (
                summary.critical,
                summary.safe_stop,
            )
            assert all(counts[outcomes[t]] > 0 for t in data["arms"][arm])
    assert len(outcomes) == release.n_trials


def test_every_trace_is_embedded_as_published(public: Path) -> None:
    traces = embedded((public / REPORT_FILE).read_text(), "trace-data")
    data = embedded((public / REPORT_FILE).read_text(), "release-data")
    assert set(traces) == set(data["trials"]["trace"])
    for sha, packed in traces.items():
        assert hashlib.sha256(gzip.decompress(base64.b64decode(packed))).hexdigest() == sha


def test_a_trace_absent_or_altered_is_left_out_and_the_report_still_builds(pub: Path) -> None:
    files = sorted((pub / "traces").iterdir())
    files[0].unlink()
    files[1].write_bytes(gzip.compress(b"[]", mtime=0))
    report = write_html_report(pub)
    traces = embedded(report.path.read_text(), "trace-data")
    assert report.missing_traces == 2 and report.traces == len(files) - 2 == len(traces)
    assert not {f.name.removesuffix(".json.gz") for f in files[:2]} & traces.keys()
    assert "2 traces not published with the release" in report.summary()


def test_hostile_names_are_escaped(pub: Path) -> None:
    """A release is untrusted: names that try to end the script element or inject markup
    reach the page's data intact, and nowhere as markup."""
    data = json.loads((pub / RELEASE_FILE).read_text())
    data["release"]["cycle"] = HOSTILE
    data["release"]["submissions"][0]["name"] = HOSTILE
    (pub / RELEASE_FILE).write_text(json.dumps(data))
    page = write_html_report(pub).path.read_text()
    assert_script_safe(page)
    assert "<img" not in page and "alert(1)</script>" not in page
    assert f"<title>vwt release {html_escaped(HOSTILE)}</title>" in page
    shown = embedded(page, "release-data")
    assert shown["cycle"] == HOSTILE
    assert shown["submissions"][0]["label"].startswith(HOSTILE + "@")


def html_escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def test_script_json_has_no_markup_characters_and_round_trips() -> None:
    value = {"a": HOSTILE, "b": ["\u2028", "é", 1.5, None]}
    text = script_json(value)
    assert not set("<>&") & set(text) and json.loads(text) == value


def test_written_atomically_over_the_old_report(pub: Path) -> None:
    old = (pub / REPORT_FILE).read_bytes()
    (pub / "trials.jsonl").write_bytes(b"{}\n")
    with pytest.raises(ReportError, match="does not match the SHA-256 pinned in the release"):
        write_html_report(pub)
    assert (pub / REPORT_FILE).read_bytes() == old


def test_a_write_that_fails_leaves_nothing_behind(pub: Path) -> None:
    target = pub / "taken"
    target.mkdir()
    with pytest.raises(ReportError, match=f"cannot write {target}") as e:
        write_html_report(pub, target)
    assert e.value.hint is not None and "-o" in e.value.hint
    assert target.is_dir() and not list(target.iterdir())
    assert not [p for p in pub.iterdir() if p.name.endswith(".tmp")]


def test_a_missing_or_malformed_release_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match=r"cannot read release .*: it does not exist"):
        write_html_report(tmp_path / "nope")
    (tmp_path / RELEASE_FILE).write_text('{"release": 1}')
    with pytest.raises(ReportError, match="is malformed"):
        write_html_report(tmp_path)
    assert not (tmp_path / REPORT_FILE).exists()


def test_the_report_is_one_offline_file(public: Path) -> None:
    page = (public / REPORT_FILE).read_text()
    head = page.split("<body>", 1)[0]
    assert "default-src 'none'" in head
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert not re.search(r"@@[A-Z]+@@", page)


def test_cli_writes_the_report_and_says_where(pub: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["report", "html", str(pub / RELEASE_FILE), "-o", str(tmp_path / "r.html")]
    )
    assert result.exit_code == 0, result.output
    assert f"HTML report: {tmp_path / 'r.html'}" in result.output.replace("\n", "")
    release = SignedRelease.model_validate_json((pub / RELEASE_FILE).read_text())
    assert len(embedded((tmp_path / "r.html").read_text(), "release-data")["cells"]) == len(
        release.release.cells
    )


def test_cli_refuses_a_missing_release(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["report", "html", str(tmp_path)])
    assert result.exit_code == 2 and "cannot read release" in result.output
    assert "hint:" in result.output and not (tmp_path / REPORT_FILE).exists()
