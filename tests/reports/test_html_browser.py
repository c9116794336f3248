"""The HTML report in a real headless browser: Debian's Chromium, driven by Playwright.

Skips (saying how to install) without Playwright or a chromium binary; no browser is ever
downloaded. ``VWT_CHROMIUM`` names another chromium binary. ``VWT_UPDATE_SCREENSHOT=1``
rewrites docs/report.png and docs/report-matrix.png from the release at
``VWT_SCREENSHOT_RELEASE`` (a release directory; default the test's own small release).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reports import REPORT_FILE, Cell, cell_flags, read_release, write_html_report
from reports._html_data import cell_kind
from tests.reports.test_html import HOSTILE, released

pytestmark = pytest.mark.slow

playwright_api = pytest.importorskip(
    "playwright.sync_api",
    reason="needs Playwright for Python: pip install -e '.[dev]' (it drives the system chromium)",
)
CHROMIUM = os.environ.get("VWT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).is_file():
    pytest.skip(
        f"needs Debian's chromium at {CHROMIUM}: run scripts/browser-setup.sh (apt-get install "
        "chromium), or set VWT_CHROMIUM to a chromium binary",
        allow_module_level=True,
    )

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "report.png"
MATRIX_SCREENSHOT = SCREENSHOT.with_name("report-matrix.png")

Page = Any


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real release with its traces and its HTML report."""
    folder = released(tmp_path_factory.mktemp("browser"))
    write_html_report(folder)
    return folder


@pytest.fixture(scope="module")
def browser(public: Path) -> Iterator[Any]:
    """Chromium, headless; started after the release is built (Playwright's sync API keeps an
    event loop running, where running trials needs to start its own)."""
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def open_report(browser: Any, report: Path, errors: list[str]) -> Page:
    """A new page showing ``report``; console errors, page errors and any dialog (which
    only injected script would open) go to ``errors``."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.on(
        "console",
        lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))

    def on_dialog(dialog: Any) -> None:
        errors.append(f"dialog: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(report.as_uri())
    page.wait_for_selector("#matrix button.cell", state="attached")
    return page


@pytest.fixture
def page(browser: Any, public: Path) -> Iterator[Page]:
    errors: list[str] = []
    p = open_report(browser, public / REPORT_FILE, errors)
    yield p
    p.close()
    assert errors == []


def test_loads_offline_without_errors(browser: Any, public: Path) -> None:
    errors: list[str] = []
    requests: list[str] = []
    page = browser.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: requests.append(r.url))
    page.goto((public / REPORT_FILE).as_uri())
    page.wait_for_selector("#matrix button.cell", state="attached")
    assert errors == []
    assert requests == [(public / REPORT_FILE).as_uri()]
    assert page.locator("#critical-panel").is_visible()
    page.close()


def test_the_matrix_has_every_cell_with_its_gain(page: Page, public: Path) -> None:
    cells = read_release(public).release.cells
    shown = page.eval_on_selector_all(
        "#matrix button.cell",
        """bs => bs.map(b => ({gain: b.dataset.gain, text: b.querySelector('.gain').textContent,
            condition: b.closest('tr').dataset.condition, phase: b.closest('td').dataset.phase,
            bundle: b.closest('td').dataset.bundle}))""",
    )
    assert len(shown) == len(cells)
    want = {(c.phase, c.condition_id, c.bundle_hash): c.metrics.gain for c in cells}
    got = {(s["phase"], s["condition"], s["bundle"]): s for s in shown}
    assert got.keys() == want.keys()
    for key, gain in want.items():
        assert float(got[key]["gain"]) == gain
        assert abs(float(got[key]["text"].replace("−", "-")) - gain) <= 0.005 + 1e-9


def test_flags_are_explained_on_hover(page: Page, public: Path) -> None:
    cells = read_release(public).release.cells
    retention = {"retention-identical", "unstable", "no-retention"}  # the cell's ret line says it
    flagged = next(i for i, c in enumerate(cells) if {f.code for f in cell_flags(c)} - retention)
    badges = page.locator(f'button.cell[data-cell="{flagged}"] .flag')
    flags = [f for f in cell_flags(cells[flagged]) if f.code not in retention]
    assert badges.count() == len(flags)
    for i, f in enumerate(flags):
        assert badges.nth(i).get_attribute("title") == f.explanation
        assert badges.nth(i).text_content() == f.label


def test_cells_are_coloured_by_what_happened_and_show_retention(page: Page, public: Path) -> None:
    cells = read_release(public).release.cells
    shown = page.eval_on_selector_all(
        "#matrix button.cell",
        """bs => bs.map(b => ({i: +b.dataset.cell, cls: b.closest('td').className,
            bg: getComputedStyle(b.closest('td')).backgroundColor, text: b.textContent}))""",
    )
    colours: dict[str, set[str]] = {}
    for s in shown:
        cell = cells[s["i"]]
        kind = cell_kind(cell)
        assert s["cls"].split()[0] == f"kind-{kind}"
        colours.setdefault(kind, set()).add(s["bg"])
        m = cell.metrics
        if m.retention is not None:
            assert f"ret {m.retention.value:.2f}" in s["text"]
        elif m.retention_status == "unstable":
            assert "ret unstable" in s["text"]
        if m.with_arm.critical or m.without_arm.critical:
            assert f"crit {m.with_arm.critical}/{m.without_arm.critical}" in s["text"]
    assert len(colours) >= 2, colours
    # the button lets its cell's colour through
    assert page.eval_on_selector(
        "#matrix button.cell", "b => getComputedStyle(b).backgroundColor"
    ) in ("rgba(0, 0, 0, 0)", "transparent")
    # one colour per kind (a gain of 0.25 or more is a deeper green), never shared by two kinds
    seen = [c for kind, found in colours.items() if kind != "gain" for c in found]
    assert len(seen) == len(set(seen)) and not set(seen) & colours.get("gain", set())
    legend = page.locator("#legend .swatch[class*='kind-']")
    assert legend.count() == 7


def test_the_condition_column_stays_in_view_when_the_matrix_scrolls(
    browser: Any, public: Path
) -> None:
    errors: list[str] = []
    page = open_report(browser, public / REPORT_FILE, errors)
    page.set_viewport_size({"width": 700, "height": 900})
    wrap = page.locator("#matrix-wrap")
    assert page.evaluate(
        "document.getElementById('matrix-wrap').scrollWidth > "
        "document.getElementById('matrix-wrap').clientWidth"
    )
    before = page.locator("#matrix tbody th.cond").first.bounding_box()
    page.evaluate("document.getElementById('matrix-wrap').scrollLeft = 400")
    after = page.locator("#matrix tbody th.cond").first.bounding_box()
    box = wrap.bounding_box()
    assert before and after and box
    assert after["x"] == pytest.approx(before["x"], abs=1) == pytest.approx(box["x"], abs=2)
    # the cells did move under it
    first = page.locator("#matrix tbody td").first.bounding_box()
    assert first and first["x"] < before["x"] + before["width"]
    page.close()
    assert errors == []


def visible_cells(page: Page) -> int:
    return int(
        page.eval_on_selector_all(
            "#matrix button.cell", "bs => bs.filter(b => b.offsetParent).length"
        )
    )


def test_filters_hide_what_they_should(page: Page, public: Path) -> None:
    release = read_release(public).release
    cells = release.cells
    varied = {c.id: c.varied for c in release.conditions}
    assert visible_cells(page) == len(cells)
    page.locator('input[data-filter="axis"][value="tool_interface"]').uncheck()
    kept = [c for c in cells if varied[c.condition_id] != ("tool_interface",)]
    assert len(kept) < len(cells) and visible_cells(page) == len(kept)
    page.locator('input[data-filter="phase"][value="adapted"]').uncheck()
    kept = [c for c in kept if c.phase == "frozen"]
    assert visible_cells(page) == len(kept)
    bundle = release.submissions[0].bundle_hash
    page.locator(f'input[data-filter="submission"][value="{bundle}"]').uncheck()
    kept = [c for c in kept if c.bundle_hash != bundle]
    assert visible_cells(page) == len(kept)
    page.locator('input[data-filter="axis"][value="tool_interface"]').check()
    assert visible_cells(page) == sum(
        c.phase == "frozen" and c.bundle_hash != bundle for c in cells
    )


def test_filters_are_in_the_address(browser: Any, public: Path) -> None:
    """#axis=…&phase=… opens the report filtered; changing a filter rewrites the address."""
    release = read_release(public).release
    varied = {c.id: c.varied for c in release.conditions}
    errors: list[str] = []
    page = browser.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto((public / REPORT_FILE).as_uri() + "#axis=tool_interface&phase=frozen")
    page.wait_for_selector("#matrix button.cell", state="attached")
    want = [
        c
        for c in release.cells
        if c.phase == "frozen" and "tool_interface" in varied[c.condition_id]
    ]
    assert 0 < len(want) == visible_cells(page)
    assert not page.locator('input[data-filter="phase"][value="adapted"]').is_checked()
    page.locator('input[data-filter="phase"][value="adapted"]').check()
    assert page.evaluate("location.hash") == "#axis=tool_interface"
    page.close()
    assert errors == []


def trace_tool_names(public: Path, sha: str) -> list[str]:
    messages = json.loads(gzip.decompress((public / "traces" / f"{sha}.json.gz").read_bytes()))
    return [c["function"]["name"] for m in messages for c in m.get("tool_calls") or []]


def drill_cell(cells: tuple[Cell, ...]) -> int:
    """A cell whose artifacts caused critical failures, else any cell."""
    return next((i for i, c in enumerate(cells) if c.metrics.with_arm.critical), 0)


def test_a_cell_opens_its_tasks_and_a_trial_its_trace(page: Page, public: Path) -> None:
    release = read_release(public).release
    i = drill_cell(release.cells)
    cell = release.cells[i]
    page.locator(f'button.cell[data-cell="{i}"]').click()
    panel = page.locator("#cell-panel")
    assert panel.is_visible()
    assert page.locator("#cell-body table.tasks tbody tr").count() == cell.metrics.n_tasks
    chips = page.locator("#cell-body button.chip")
    trials = cell.metrics.with_arm.trials + cell.metrics.without_arm.trials
    assert chips.count() == trials
    counts = page.locator("#cell-body table.outcomes tbody tr").first
    assert counts.locator(".o-count-critical").text_content() == str(cell.metrics.with_arm.critical)
    records = {
        json.loads(line)["key"]: json.loads(line)
        for line in (public / "trials.jsonl").read_text().splitlines()
    }
    for n in range(chips.count()):
        chip = chips.nth(n)
        chip.click()
        key = page.locator("#trace-body code").first.text_content()
        names = trace_tool_names(public, records[key]["trace_sha256"])
        if names:
            break
    else:
        pytest.fail("no trial of the cell made a tool call")
    page.wait_for_selector("#trace-body .toolcall .name")
    shown = page.locator("#trace-body .toolcall .name").all_text_contents()
    assert shown == names
    record = records[key]
    body = page.locator("#trace-body").text_content() or ""
    for reason in record["verifier_reasons"]:
        assert reason in body
    for flag in record["critical"]:
        assert flag["operator"] in body


def test_an_absent_trace_is_said_so(browser: Any, public: Path, tmp_path: Path) -> None:
    pub = Path(shutil.copytree(public, tmp_path / "pub"))
    shutil.rmtree(pub / "traces")
    write_html_report(pub)
    errors: list[str] = []
    page = open_report(browser, pub / REPORT_FILE, errors)
    page.locator("#matrix button.cell").first.click()
    page.locator("#cell-body button.chip").first.click()
    assert "trace is not published with the release" in (
        page.locator("#trace-body .absent").text_content() or ""
    )
    page.close()
    assert errors == []


def test_hostile_names_show_as_text(browser: Any, public: Path, tmp_path: Path) -> None:
    """Names that try to inject markup or script appear as the text they are, run nothing."""
    pub = Path(shutil.copytree(public, tmp_path / "pub"))
    data = json.loads((pub / "release.json").read_text())
    data["release"]["cycle"] = HOSTILE
    data["release"]["submissions"][0]["name"] = HOSTILE
    (pub / "release.json").write_text(json.dumps(data))
    write_html_report(pub)
    errors: list[str] = []
    page = open_report(browser, pub / REPORT_FILE, errors)
    page.locator("#matrix button.cell").first.click()
    assert page.locator("#title").text_content() == f"Release of cycle {HOSTILE}"
    assert f"{HOSTILE}@" in (page.locator("#matrix thead").text_content() or "")
    assert page.locator("img").count() == 0 and page.locator("script").count() == 3
    page.close()
    assert errors == []


def png_size_and_colours(png: bytes) -> tuple[int, int, int]:
    """Width, height and the number of distinct byte values of the (filtered) pixel data."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    pos, idat = 8, b""
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        if png[pos + 4 : pos + 8] == b"IDAT":
            idat += png[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return width, height, len(set(zlib.decompress(idat)))


def test_screenshot_of_the_matrix(browser: Any, public: Path, tmp_path: Path) -> None:
    """The matrix renders at a real size and is not blank; with VWT_UPDATE_SCREENSHOT=1 the
    README's screenshot and docs/report-matrix.png are rewritten (from VWT_SCREENSHOT_RELEASE if
    set)."""
    update = os.environ.get("VWT_UPDATE_SCREENSHOT") == "1"
    source = Path(os.environ.get("VWT_SCREENSHOT_RELEASE") or public) if update else public
    report = public / REPORT_FILE
    if source != public:
        report = write_html_report(source, tmp_path / REPORT_FILE).path
    errors: list[str] = []
    page = open_report(browser, report, errors)
    shot = page.locator("#matrix").screenshot()
    width, height, colours = png_size_and_colours(shot)
    assert width >= 800 and height >= 300 and colours > 50
    if update:
        page.set_viewport_size({"width": 1500, "height": 1400})
        page.evaluate("window.scrollTo(0, 0)")
        SCREENSHOT.write_bytes(page.screenshot())
        # the matrix alone, scrolled sideways: colours, legend and the condition column in view
        page.set_viewport_size({"width": 1100, "height": 1400})
        page.evaluate("document.getElementById('matrix-wrap').scrollLeft = 600")
        MATRIX_SCREENSHOT.write_bytes(page.locator("#matrix-section").screenshot())
    page.close()
    assert errors == []
