"""Rendering a comparison of two releases for the terminal (rich), readable at 80 columns."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from reports._compare import CellMove, CellRef, ComparedRelease, RankChange, ReleaseComparison
from submissions import shown

DISJOINT_MARK = "*"
"""Shown after a move whose two gain intervals do not overlap."""
EDITED_MARK = "≠"
"""Shown after a submission whose bundle hash differs between the releases."""


def _release_line(side: str, r: ComparedRelease) -> Text:
    return Text(
        f"{side}: cycle {shown(r.cycle)}, built {shown(r.created_at)}, {r.cells} cells — "
        f"{shown(str(r.path))}"
    )


def _gain(gain: float, lo: float, hi: float) -> Text:
    return Text(f"{gain:+.2f}\n[{lo:+.2f}, {hi:+.2f}]")


def _delta(m: CellMove) -> Text:
    style = "bold" if m.disjoint else ""
    return Text(f"{m.delta:+.2f}" + (f" {DISJOINT_MARK}" if m.disjoint else ""), style=style)


def _moves_table(phase: str, moves: list[CellMove]) -> Table:
    table = Table(
        title=f"Moved cells ({phase}), largest first", box=box.SIMPLE_HEAD, title_justify="left"
    )
    table.add_column("submission\ncondition", overflow="fold")
    table.add_column("gain A", no_wrap=True, justify="right")
    table.add_column("gain B", no_wrap=True, justify="right")
    table.add_column("B − A", no_wrap=True, justify="right")
    for m in moves:
        name = shown(m.cell.submission)
        if m.cell.submission_b is not None:
            name += f" → {shown(m.cell.submission_b)}"
        name += f" {EDITED_MARK}" if m.bundle_changed else ""
        table.add_row(
            Text.assemble(name, "\n", (m.cell.condition, "dim")),
            _gain(m.a.gain, m.a.ci.lo, m.a.ci.hi),
            _gain(m.b.gain, m.b.ci.lo, m.b.ci.hi),
            _delta(m),
        )
    return table


def _rank(r: RankChange) -> Text:
    if r.rank_a == r.rank_b:
        return Text(f"{r.rank_a} = {r.rank_b}")
    arrow = "↑" if r.rank_b < r.rank_a else "↓"
    return Text(f"{r.rank_a} → {r.rank_b} {arrow}", style="bold")


def _ranks_table(phase: str, ranks: list[RankChange]) -> Table:
    table = Table(
        title=f"Ranks ({phase}): mean gain over the {ranks[0].targets} target conditions both "
        "releases share",
        box=box.SIMPLE_HEAD,
        title_justify="left",
    )
    table.add_column("submission", overflow="fold")
    table.add_column("rank A → B", no_wrap=True)
    table.add_column("mean gain A", no_wrap=True, justify="right")
    table.add_column("mean gain B", no_wrap=True, justify="right")
    for r in ranks:
        table.add_row(
            shown(r.submission), _rank(r), f"{r.mean_gain_a:+.3f}", f"{r.mean_gain_b:+.3f}"
        )
    return table


def _only(side: str, refs: tuple[CellRef, ...]) -> list[Text]:
    if not refs:
        return []
    lines = [Text(f"Only in {side} ({len(refs)} cells):", style="bold")]
    lines += [
        Text(f"  {r.phase:8} {shown(r.submission)} — {r.condition}", overflow="fold") for r in refs
    ]
    return lines


def _renamed(c: ReleaseComparison) -> list[Text]:
    how = {"map": "as --map says", "content": "the same bundle under another name and version"}
    return [Text(f"{shown(r.a)} in A is {shown(r.b)} in B ({how[r.by]})") for r in c.renamed]


def _edited(c: ReleaseComparison) -> list[Text]:
    same = {r.a for r in c.renamed if r.by == "content"}
    pairs = sorted({(m.cell.submission, m.a.bundle_hash, m.b.bundle_hash) for m in c.moves})
    return [
        Text(f"{EDITED_MARK} {shown(s)}: bundle {a[:12]}… in A, {b[:12]}… in B (edited)")
        for s, a, b in pairs
        if a != b and s not in same
    ]


def render_comparison(c: ReleaseComparison, console: Console) -> None:
    """Print the releases, the summary, the moved cells per phase, ranks, unmatched cells."""
    console.print(_release_line("A", c.a), highlight=False)
    console.print(_release_line("B", c.b), highlight=False)
    moved = c.moved
    disjoint = sum(m.disjoint for m in moved)
    renamed = f", {len(c.renamed)} renamed" if c.renamed else ""
    console.print(
        f"{len(c.moves)} cells in both (matched on phase, submission{renamed} and condition "
        "content): "
        f"{len(moved)} moved, {disjoint} of them to an interval that does not overlap the "
        f"other ({DISJOINT_MARK}); {len(c.only_a)} only in A, {len(c.only_b)} only in B",
        highlight=False,
    )
    for line in [*_renamed(c), *_edited(c)]:
        console.print(line)
    for phase in ("frozen", "adapted"):
        in_phase = [m for m in moved if m.cell.phase == phase]
        if in_phase:
            console.print(_moves_table(phase, in_phase))
        ranks = [r for r in c.ranks if r.phase == phase]
        if ranks:
            console.print(_ranks_table(phase, ranks))
    for line in [*_only("A", c.only_a), *_only("B", c.only_b)]:
        console.print(line)
