"""Comparing two releases: cells matched by condition content across cycles, moves, ranks."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from reports import (
    RELEASE_FILE,
    ReleaseComparison,
    ReportError,
    compare_releases,
    read_release,
    render_comparison,
)
from submissions import Bundle, reference_bundles
from tests._shared import built_once
from tests.reports.test_load import shared_release, small_release

Json = dict[str, Any]
Key = tuple[str, str, str]


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two small releases of two cycles with different seeds: prompt-recipe and typed-skill
    in A, typed-skill and retrieved-trajectories in B."""
    a = shared_release(tmp_path_factory)
    b = shared_release(
        tmp_path_factory,
        cycle_id="compare-b",
        submissions=("typed-skill", "retrieved-trajectories"),
        seed=7,
    )
    return a, b


def _renamed(name: str, new: str, **manifest: str) -> Bundle:
    """Reference bundle ``name`` renamed ``new`` (version 1), its manifest otherwise edited
    by ``manifest``, its artifacts untouched."""
    bundle = next(b for b in reference_bundles() if b.manifest.name == name)
    data = bundle.model_dump(mode="json")
    data["manifest"].update(name=new, **manifest)
    return Bundle.model_validate(data)


def renamed_release(factory: pytest.TempPathFactory) -> Path:
    """A release of another cycle (same spec as the shared one) whose submissions are the
    shared release's two, renamed: typed-skill as contract-skill (nothing else changed),
    prompt-recipe as recipe-two with its description reworded. Built once per test session
    (``built_once``)."""
    bundles = (
        _renamed("typed-skill", "contract-skill"),
        _renamed("prompt-recipe", "recipe-two", description="The recipe, described anew."),
    )
    return built_once(
        factory,
        "release-compare-renamed",
        lambda d: small_release(
            d / "home", cycle_id="compare-renamed", submissions=(), bundles=bundles
        ),
    )


@pytest.fixture(scope="module")
def renamed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """See renamed_release."""
    return renamed_release(tmp_path_factory)


def _by_content(pub: Path) -> dict[Key, Json]:
    """Each cell of a release by (phase, submission, canonical JSON of its condition)."""
    r = read_release(pub).release
    canonical = {c.id: c.condition.canonical().decode() for c in r.conditions}
    return {
        (c.phase, c.submission, canonical[c.condition_id]): c.model_dump(mode="json")
        for c in r.cells
    }


def _key(content_ids: dict[str, str], m: Any) -> Key:
    return (m.cell.phase, m.cell.submission, content_ids[m.cell.content])


def _content_ids(*pubs: Path) -> dict[str, str]:
    """Canonical JSON by public content id, over the conditions of ``pubs``."""
    return {
        c.condition.id: c.condition.canonical().decode()
        for pub in pubs
        for c in read_release(pub).release.conditions
    }


def test_cells_match_on_condition_content_across_cycles(releases: tuple[Path, Path]) -> None:
    a, b = releases
    cells_a, cells_b = _by_content(a), _by_content(b)
    c = compare_releases(a, b)
    ids = _content_ids(a, b)
    matched = {_key(ids, m) for m in c.moves}
    assert matched == cells_a.keys() & cells_b.keys()
    assert {m.cell.submission for m in c.moves} == {"typed-skill@1"}
    assert {(r.phase, r.submission, ids[r.content]) for r in c.only_a} == (
        cells_a.keys() - cells_b.keys()
    )
    assert {r.submission for r in c.only_a} == {"prompt-recipe@1"}
    assert {r.submission for r in c.only_b} == {"retrieved-trajectories@1"}
    targets = [m for m in c.moves if m.cell.condition != "source"]
    assert targets and all(m.a.condition_id != m.b.condition_id for m in targets)
    assert not any(m.bundle_changed for m in c.moves)


def test_each_move_is_gain_b_minus_gain_a_with_both_intervals(
    releases: tuple[Path, Path],
) -> None:
    a, b = releases
    cells_a, cells_b = _by_content(a), _by_content(b)
    c = compare_releases(a, b)
    ids = _content_ids(a, b)
    for m in c.moves:
        ma, mb = cells_a[_key(ids, m)]["metrics"], cells_b[_key(ids, m)]["metrics"]
        assert (m.a.gain, m.b.gain, m.delta) == (ma["gain"], mb["gain"], mb["gain"] - ma["gain"])
        assert (m.a.ci.lo, m.b.ci.hi) == (ma["gain_ci"]["lo"], mb["gain_ci"]["hi"])
        apart = (
            ma["gain_ci"]["hi"] < mb["gain_ci"]["lo"] or mb["gain_ci"]["hi"] < ma["gain_ci"]["lo"]
        )
        assert m.disjoint == apart
    assert [abs(m.delta) for m in c.moves] == sorted((abs(m.delta) for m in c.moves), reverse=True)
    assert c.moved == tuple(m for m in c.moves if m.delta != 0)


def _edited(pub: Path, tmp_path: Path, edit: Callable[[Json], None]) -> Path:
    """A copy of the published release with its statement edited (compare checks nothing)."""
    copy = Path(shutil.copytree(pub, tmp_path / "edited"))
    data = json.loads((copy / RELEASE_FILE).read_text())
    edit(data["release"])
    (copy / RELEASE_FILE).write_text(json.dumps(data))
    return copy


def _lift(submission: str, by: float) -> Callable[[Json], None]:
    """Raise every target gain (and interval) of ``submission`` by ``by``."""

    def edit(statement: Json) -> None:
        source = statement["conditions"][0]["id"]
        for cell in statement["cells"]:
            if cell["submission"] == submission and cell["condition_id"] != source:
                m = cell["metrics"]
                m["gain"] += by
                m["gain_ci"] = {"lo": m["gain_ci"]["lo"] + by, "hi": m["gain_ci"]["hi"] + by}

    return edit


def test_a_moved_cell_and_a_change_of_rank(releases: tuple[Path, Path], tmp_path: Path) -> None:
    a = releases[0]
    before = compare_releases(a, a)
    assert not before.moved and not before.only_a and not before.only_b
    frozen = {r.submission: r for r in before.ranks if r.phase == "frozen"}
    assert all(r.rank_a == r.rank_b for r in before.ranks)
    last = max(frozen.values(), key=lambda r: r.rank_a).submission
    first = min(frozen.values(), key=lambda r: r.rank_a).submission
    assert last != first
    c = compare_releases(a, _edited(a, tmp_path, _lift(last, 3.0)))
    assert c.moved and {m.cell.submission for m in c.moved} == {last}
    assert all(m.delta == pytest.approx(3.0) and m.disjoint for m in c.moved)
    assert all(m.cell.condition != "source" for m in c.moved)
    ranks = {(r.phase, r.submission): r for r in c.ranks}
    assert (ranks[("frozen", last)].rank_a, ranks[("frozen", last)].rank_b) == (2, 1)
    assert (ranks[("frozen", first)].rank_a, ranks[("frozen", first)].rank_b) == (1, 2)
    assert ranks[("frozen", last)].mean_gain_b == pytest.approx(
        ranks[("frozen", last)].mean_gain_a + 3.0
    )
    assert c.ranks[0].phase == "frozen" and c.ranks[0].submission == last


def test_a_changed_bundle_hash_is_said(releases: tuple[Path, Path], tmp_path: Path) -> None:
    a = releases[0]

    def rehash(statement: Json) -> None:
        for cell in statement["cells"]:
            if cell["submission"] == "typed-skill@1":
                cell["bundle_hash"] = "f" * 64

    c = compare_releases(a, _edited(a, tmp_path, rehash))
    changed = {m.cell.submission for m in c.moves if m.bundle_changed}
    assert changed == {"typed-skill@1"} and not c.only_a and not c.only_b
    text = _rendered(c, 80)
    assert "≠ typed-skill@1: bundle" in text and "ffffffffffff… in B (edited)" in text


def assert_fits(text: str, width: int) -> None:
    """No line of ``text`` is wider than ``width`` and nothing was cut short with '…'."""
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width, max(lines, key=len)
    assert "…" not in text.replace("… in A", "").replace("… in B", "")


def _rendered(c: ReleaseComparison, width: int) -> str:
    console = Console(width=width, record=True)
    render_comparison(c, console)
    return console.export_text()


def test_rendered_at_80_columns(releases: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = releases
    edited = _edited(a, tmp_path, _lift(max(_ranked(a), key=_ranked(a).get), 3.0))
    text = _rendered(compare_releases(a, edited), 80)
    assert_fits(text, 80)
    assert "Moved cells (frozen), largest first" in text and "rank A → B" in text
    assert "2 → 1 ↑" in text and "+3.00 *" in text
    text = _rendered(compare_releases(a, b), 80)
    assert_fits(text, 80)
    assert "Only in A" in text and "prompt-recipe@1" in text and "Only in B" in text


def _ranked(pub: Path) -> dict[str, int]:
    """Frozen rank of each submission."""
    return {r.submission: r.rank_a for r in compare_releases(pub, pub).ranks if r.phase == "frozen"}


def test_a_missing_or_inconsistent_release(releases: tuple[Path, Path], tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="cannot read release"):
        compare_releases(releases[0], tmp_path / "nowhere")

    def unlist(statement: Json) -> None:
        statement["conditions"] = statement["conditions"][1:]

    with pytest.raises(ReportError, match="does not list its source condition first"):
        compare_releases(releases[0], _edited(releases[0], tmp_path, unlist))


def _cells_of(cells: dict[Key, Json], submission: str) -> set[tuple[str, str]]:
    return {(phase, content) for phase, s, content in cells if s == submission}


def test_a_renamed_bundle_finds_its_cells_by_content(
    releases: tuple[Path, Path], renamed: Path
) -> None:
    a = releases[0]
    cells_a, cells_b = _by_content(a), _by_content(renamed)
    ids = _content_ids(a, renamed)
    c = compare_releases(a, renamed)
    assert [(r.a, r.b, r.by) for r in c.renamed] == [
        ("typed-skill@1", "contract-skill@1", "content")
    ]
    common = _cells_of(cells_a, "typed-skill@1") & _cells_of(cells_b, "contract-skill@1")
    assert common and common == _cells_of(cells_a, "typed-skill@1")
    typed = [m for m in c.moves if m.cell.submission == "typed-skill@1"]
    assert {(m.cell.phase, ids[m.cell.content]) for m in typed} == common
    assert {m.cell.submission_b for m in typed} == {"contract-skill@1"}
    for m in typed:
        b = cells_b[(m.cell.phase, "contract-skill@1", ids[m.cell.content])]
        assert (m.b.gain, m.b.bundle_hash) == (b["metrics"]["gain"], b["bundle_hash"])
    # the reworded recipe is another bundle: nothing pairs it without a map
    assert {r.submission for r in c.only_a} == {"prompt-recipe@1"}
    assert {r.submission for r in c.only_b} == {"recipe-two@1"}
    text = _rendered(c, 80)
    assert "typed-skill@1 in A is contract-skill@1 in B (the same bundle under another" in text
    assert "(edited)" not in text  # a new name is no edit


def test_map_pairs_a_renamed_and_edited_bundle(releases: tuple[Path, Path], renamed: Path) -> None:
    a = releases[0]
    cells_a, cells_b = _by_content(a), _by_content(renamed)
    c = compare_releases(a, renamed, {"prompt-recipe@1": "recipe-two@1"})
    assert [(r.a, r.b, r.by) for r in c.renamed] == [
        ("prompt-recipe@1", "recipe-two@1", "map"),
        ("typed-skill@1", "contract-skill@1", "content"),
    ]
    assert not c.only_a and not c.only_b
    assert len(c.moves) == len(cells_a) == len(cells_b)
    recipe = [m for m in c.moves if m.cell.submission == "prompt-recipe@1"]
    assert recipe and all(
        m.cell.submission_b == "recipe-two@1" and m.bundle_changed for m in recipe
    )
    assert "≠ prompt-recipe@1: bundle" in _rendered(c, 80)
    # a map wins over content: typed-skill compared with the recipe leaves two unpaired
    crossed = compare_releases(a, renamed, {"typed-skill@1": "recipe-two@1"})
    assert [(r.a, r.b) for r in crossed.renamed] == [("typed-skill@1", "recipe-two@1")]
    assert {r.submission for r in crossed.only_a} == {"prompt-recipe@1"}
    assert {r.submission for r in crossed.only_b} == {"contract-skill@1"}


def test_without_the_published_artifacts_nothing_pairs_by_content(
    releases: tuple[Path, Path], renamed: Path, tmp_path: Path
) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(renamed / RELEASE_FILE, alone / RELEASE_FILE)
    c = compare_releases(releases[0], alone)
    assert not c.renamed and not c.moves
    assert {r.submission for r in c.only_b} == {"contract-skill@1", "recipe-two@1"}


@pytest.mark.parametrize(
    ("renames", "message", "hint"),
    [
        ({"typed@1": "contract-skill@1"}, "release A has no submission typed@1", "typed-skill@1"),
        ({"typed-skill@1": "x@1"}, "release B has no submission x@1", "contract-skill@1"),
        (
            {"typed-skill@1": "recipe-two@1", "prompt-recipe@1": "recipe-two@1"},
            "--map names recipe-two@1 of release B for two submissions of A",
            "a different one",
        ),
    ],
)
def test_a_map_naming_what_is_not_there_is_refused(
    releases: tuple[Path, Path], renamed: Path, renames: dict[str, str], message: str, hint: str
) -> None:
    with pytest.raises(ReportError) as err:
        compare_releases(releases[0], renamed, renames)
    assert message in str(err.value) and err.value.hint is not None and hint in err.value.hint
