"""The self-contained HTML report of a release: one file that opens offline.

The page is a template with its CSS and script inlined (``reports/html/``), and the release's
data embedded as JSON in ``<script type="application/json">`` blocks: the matrix, every trial
and every published trace (gzip, base64; decompressed by the page when a trace is opened). A
release is untrusted input: the data is escaped for the script element here, and the page
inserts every text with ``textContent``.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from reports._html_data import report_data, report_traces
from reports._publish import publish_files
from reports._trials import release_trials
from reports._verify import read_release

REPORT_FILE = "report.html"
"""The report's default name, next to ``release.json``."""

_ASSETS = resources.files("reports") / "html"
_MARKER = re.compile(r"@@(TITLE|CSS|JS|DATA|TRACES)@@")


class HtmlReport(BaseModel):
    """What ``write_html_report`` wrote."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path = Field(description="The report written.")
    bytes: int = Field(description="Its size in bytes.")
    cells: int = Field(description="Cells of the matrix in it.")
    trials: int = Field(description="Trial records in it.")
    traces: int = Field(description="Distinct traces embedded.")
    missing_traces: int = Field(description="Distinct traces the release does not publish.")

    def summary(self) -> str:
        """One line: where the report is, its size and what it holds."""
        missing = (
            f"; {self.missing_traces} traces not published with the release (marked absent)"
            if self.missing_traces
            else ""
        )
        return (
            f"{self.path} ({self.bytes / 1e6:.1f} MB: {self.cells} cells, {self.trials} trials, "
            f"{self.traces} traces{missing}); one file, opens offline in a browser"
        )


def script_json(value: Any) -> str:
    """``value`` as JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` at all
    (each is written as a JSON unicode escape, which parses to the same string)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_html(title: str, data: dict[str, Any], traces: dict[str, str]) -> str:
    """The page: the template with its CSS, script and the two data blocks inlined."""
    page = (_ASSETS / "report.html").read_text(encoding="utf-8")
    parts = {
        "TITLE": html.escape(title),
        "CSS": (_ASSETS / "report.css").read_text(encoding="utf-8"),
        "JS": (_ASSETS / "report.js").read_text(encoding="utf-8"),
        "DATA": script_json(data),
        "TRACES": script_json(traces),
    }
    # one pass: text put in is never searched for markers again
    return _MARKER.sub(lambda m: parts[m.group(1)], page)


def write_html_report(release: Path, out: Path | None = None) -> HtmlReport:
    """Write the HTML report of the release at ``release`` (its ``release.json`` or directory)
    to ``out`` (default: ``report.html`` beside the release), atomically.

    Reads the release, its trials file (which must match the hash the release pins) and its
    published traces; verifies nothing else (`vwt report verify` does). A trace whose file is
    absent is reported so on its trial. Raises ReportError on a missing or malformed release.
    """
    signed = read_release(release)
    folder = (release if release.is_dir() else release.parent).resolve()
    records = release_trials(release).records
    data = report_data(signed, records)
    traces = report_traces(folder, records)
    page = render_html(f"vwt release {signed.release.cycle}", data, traces).encode("utf-8")
    target = out if out is not None else folder / REPORT_FILE
    publish_files(
        [(target, page)],
        f"make room (or permission) in {target.parent}, or write the report elsewhere: "
        f"vwt report html {release} -o ./{REPORT_FILE}",
    )
    n_traces = len({r.trace_sha256 for r in records})
    return HtmlReport(
        path=target,
        bytes=len(page),
        cells=len(signed.release.cells),
        trials=len(records),
        traces=len(traces),
        missing_traces=n_traces - len(traces),
    )
