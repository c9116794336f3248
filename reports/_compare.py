"""Two releases side by side: cells matched by content, how far each moved, changes of rank.

Cells match on phase, submission and the condition's content: target ids are keyed per cycle,
so the same condition has another id in every cycle, but the same canonical JSON
(``Condition.id`` of it is the ``content`` below). A submission of A is the one of B with the
same name@version, unless the caller maps it to another (a renamed bundle); one that neither
names nor a map pairs is paired with the submission of B holding the same bundle apart from its
name and version (read from the releases' published artifacts), when exactly one does.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from statistics import fmean
from typing import Literal

import rfc8785
from pydantic import BaseModel, ConfigDict, Field

from drift import capped_bytes
from reports._cell import Interval
from reports._load import check_cells_conditions
from reports._matrix import Cell
from reports._published import artifact_name
from reports._release import RELEASE_FILE, ReleaseStatement
from reports._render import condition_label
from reports._verify import read_release
from reports.errors import ReportError
from submissions import MAX_BUNDLE_BYTES, shown

TOLERANCE = 1e-9
"""Gains closer than this are equal (means of small-integer ratios computed in floats)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ComparedRelease(_Frozen):
    """One of the two releases compared."""

    path: Path = Field(description="Its release.json.")
    cycle: str = Field(description="Cycle id.")
    created_at: str = Field(description="When it was built (RFC 3339).")
    cells: int = Field(description="Cells in its matrix.")


class CellRef(_Frozen):
    """A cell, named so that it can be found in either release."""

    phase: str = Field(description="'frozen' or 'adapted'.")
    submission: str = Field(description="name@version of the submission (in A if in both).")
    submission_b: str | None = Field(
        default=None, description="Its name@version in B where that differs (renamed)."
    )
    condition: str = Field(description="Condition label (what differs from the source).")
    content: str = Field(
        description="Public id of the condition's canonical JSON: the same in every cycle."
    )


class SideGain(_Frozen):
    """A cell's gain in one release."""

    condition_id: str = Field(description="The condition's id in that release.")
    bundle_hash: str = Field(description="Bundle hash of the submission in that release.")
    gain: float = Field(description="Gain (score with - score without).")
    ci: Interval = Field(description="The gain's interval.")
    negative_transfer: bool | None = Field(description="Negative transfer decided by BH.")


class CellMove(_Frozen):
    """A cell present in both releases, and how its gain moved from A to B."""

    cell: CellRef = Field(description="Which cell.")
    a: SideGain = Field(description="Its gain in release A.")
    b: SideGain = Field(description="Its gain in release B.")
    delta: float = Field(description="Gain in B - gain in A.")
    disjoint: bool = Field(description="The two gain intervals do not overlap.")
    bundle_changed: bool = Field(description="The submission's bundle hash differs (an edit).")


class RankChange(_Frozen):
    """A submission's rank in one phase of each release."""

    phase: str = Field(description="'frozen' or 'adapted'.")
    submission: str = Field(description="name@version.")
    rank_a: int = Field(description="Rank in A (1 = highest mean gain; ties share a rank).")
    rank_b: int = Field(description="Rank in B.")
    mean_gain_a: float = Field(description="Mean gain over the shared target cells in A.")
    mean_gain_b: float = Field(description="Mean gain over the same cells in B.")
    targets: int = Field(description="Target conditions the means are over.")


class Renamed(_Frozen):
    """A submission of A paired with one of B under another name@version."""

    a: str = Field(description="name@version in A.")
    b: str = Field(description="name@version in B.")
    by: Literal["map", "content"] = Field(
        description="'map': the caller said so; 'content': B holds the same bundle apart from "
        "its name and version."
    )


class ReleaseComparison(_Frozen):
    """Release B against release A."""

    a: ComparedRelease = Field(description="Release A.")
    b: ComparedRelease = Field(description="Release B.")
    renamed: tuple[Renamed, ...] = Field(
        default=(), description="Submissions paired under another name, by name in A."
    )
    moves: tuple[CellMove, ...] = Field(
        description="Every cell in both releases, largest |delta| first."
    )
    only_a: tuple[CellRef, ...] = Field(description="Cells only release A has.")
    only_b: tuple[CellRef, ...] = Field(description="Cells only release B has.")
    ranks: tuple[RankChange, ...] = Field(
        description="Per phase, every submission with cells in both releases, by its rank in B; "
        "ranked by mean gain over the target conditions (by content) that both releases list and "
        "every ranked submission has a cell for in both."
    )

    @property
    def moved(self) -> tuple[CellMove, ...]:
        """The cells whose gain changed."""
        return tuple(m for m in self.moves if abs(m.delta) > TOLERANCE)


_Key = tuple[str, str, str]
"""phase, submission (its name@version in B when paired), condition content."""


def _label(name: str, version: str) -> str:
    return f"{name}@{version}"


def _same_bundle_key(folder: Path, bundle_hash: str) -> str | None:
    """SHA-256 of the published bundle ``bundle_hash`` without its name and version; None when
    its artifact file is absent, unreadable or not that bundle."""
    data, problem = capped_bytes(folder / artifact_name(bundle_hash), MAX_BUNDLE_BYTES)
    if problem is not None or hashlib.sha256(data).hexdigest() != bundle_hash:
        return None
    try:
        bundle = json.loads(data)
        del bundle["manifest"]["name"], bundle["manifest"]["version"]
    except (ValueError, TypeError, KeyError):
        return None
    return hashlib.sha256(rfc8785.dumps(bundle)).hexdigest()


def _check_map(renamed: Mapping[str, str], in_a: list[str], in_b: list[str]) -> None:
    for old, new in renamed.items():
        for label, side, listed in ((old, "A", in_a), (new, "B", in_b)):
            if label not in listed:
                raise ReportError(
                    f"--map {shown(old)}={shown(new)}: release {side} has no submission "
                    f"{shown(label)}",
                    f"release {side}'s submissions: {', '.join(shown(s) for s in listed)}",
                )
    targets = list(renamed.values())
    twice = next((t for t in targets if targets.count(t) > 1), None)
    if twice is not None:
        raise ReportError(
            f"--map names {shown(twice)} of release B for two submissions of A",
            "map each submission of A to a different one of B",
        )


def _unpaired_keys(r: ReleaseStatement, folder: Path, paired: set[str]) -> dict[str, str | None]:
    """name@version → same-bundle key, for the submissions not in ``paired`` (None: a name
    with two bundles, or a bundle whose artifact cannot be read)."""
    hashes: dict[str, set[str]] = defaultdict(set)
    for s in r.submissions:
        hashes[_label(s.name, s.version)].add(s.bundle_hash)
    return {
        label: _same_bundle_key(folder, next(iter(h))) if len(h) == 1 else None
        for label, h in hashes.items()
        if label not in paired
    }


def _pairing(
    ra: ReleaseStatement, rb: ReleaseStatement, dirs: tuple[Path, Path], renamed: Mapping[str, str]
) -> tuple[dict[str, str], list[Renamed]]:
    """name@version in A → in B, for the submissions paired; and those paired under another
    name."""
    in_a = list(dict.fromkeys(_label(s.name, s.version) for s in ra.submissions))
    in_b = list(dict.fromkeys(_label(s.name, s.version) for s in rb.submissions))
    _check_map(renamed, in_a, in_b)
    pairs = dict(renamed)
    for label in in_a:
        if label not in pairs and label in in_b and label not in pairs.values():
            pairs[label] = label
    keys_a = _unpaired_keys(ra, dirs[0], set(pairs))
    keys_b = _unpaired_keys(rb, dirs[1], set(pairs.values()))
    found = [Renamed(a=old, b=new, by="map") for old, new in renamed.items()]
    for label, key in keys_a.items():
        same_a = [a for a, k in keys_a.items() if k == key]
        same_b = [b for b, k in keys_b.items() if k == key]
        if key is not None and len(same_a) == 1 and len(same_b) == 1:
            pairs[label] = same_b[0]
            found.append(Renamed(a=label, b=same_b[0], by="content"))
    return pairs, sorted(found, key=lambda r: r.a)


def _cells(
    r: ReleaseStatement, side: str, pairs: Mapping[str, str]
) -> dict[_Key, list[tuple[CellRef, Cell]]]:
    """The cells of one side by key; ``pairs`` gives A's submissions their B name (A side) or
    says which of B's are paired (B side)."""
    source = r.conditions[0].condition
    by_id = {c.id: c for c in r.conditions}
    paired_b = {b: a for a, b in pairs.items()}
    out: dict[_Key, list[tuple[CellRef, Cell]]] = defaultdict(list)
    for cell in r.cells:
        c = by_id[cell.condition_id]
        name_a: str | None = cell.submission
        name_b: str | None = cell.submission
        if side == "A":
            name_b = pairs.get(cell.submission)
        else:
            name_a = paired_b.get(cell.submission)
        ref = CellRef(
            phase=cell.phase,
            submission=name_a or cell.submission,
            submission_b=name_b if name_a is not None and name_b != name_a else None,
            condition=condition_label(c, source),
            content=c.condition.id,
        )
        # an unpaired submission is keyed apart: it cannot meet a paired one of the same name
        who = name_b if name_a is not None and name_b is not None else f"{side}:{cell.submission}"
        out[(cell.phase, who, ref.content)].append((ref, cell))
    return out


def _side(cell: Cell) -> SideGain:
    m = cell.metrics
    return SideGain(
        condition_id=cell.condition_id,
        bundle_hash=cell.bundle_hash,
        gain=m.gain,
        ci=m.gain_ci,
        negative_transfer=m.negative_transfer,
    )


def _move(ref: CellRef, a: Cell, b: Cell) -> CellMove:
    ia, ib = a.metrics.gain_ci, b.metrics.gain_ci
    return CellMove(
        cell=ref,
        a=_side(a),
        b=_side(b),
        delta=b.metrics.gain - a.metrics.gain,
        disjoint=ia.hi < ib.lo - TOLERANCE or ib.hi < ia.lo - TOLERANCE,
        bundle_changed=a.bundle_hash != b.bundle_hash,
    )


def _pairs(
    a: list[tuple[CellRef, Cell]], b: list[tuple[CellRef, Cell]]
) -> tuple[list[CellMove], list[CellRef], list[CellRef]]:
    """Match one key's cells: one each, whatever their bundles; else by equal bundle hash."""
    if len(a) == 1 and len(b) == 1:
        return [_move(a[0][0], a[0][1], b[0][1])], [], []
    b_by_hash = {cell.bundle_hash: (ref, cell) for ref, cell in b}
    moves = [
        _move(ref, cell, b_by_hash[cell.bundle_hash][1])
        for ref, cell in a
        if cell.bundle_hash in b_by_hash
    ]
    a_hashes = {cell.bundle_hash for _, cell in a}
    only_a = [ref for ref, cell in a if cell.bundle_hash not in b_by_hash]
    only_b = [ref for ref, cell in b if cell.bundle_hash not in a_hashes]
    return moves, only_a, only_b


def _ranks(gains: dict[str, list[float]]) -> dict[str, int]:
    """Competition ranks (1 2 2 4) of submissions by mean gain, highest first."""
    means = {s: fmean(g) for s, g in gains.items()}
    return {s: 1 + sum(other > m + TOLERANCE for other in means.values()) for s, m in means.items()}


def _rank_changes(moves: list[CellMove], targets: set[str]) -> list[RankChange]:
    """Ranks per phase over the target conditions every compared submission has in both."""
    out = []
    for phase in ("frozen", "adapted"):
        cells = [m for m in moves if m.cell.phase == phase and m.cell.content in targets]
        per_submission: dict[str, set[str]] = defaultdict(set)
        for m in cells:
            per_submission[m.cell.submission].add(m.cell.content)
        shared = set.intersection(*per_submission.values()) if per_submission else set()
        ga: dict[str, list[float]] = defaultdict(list)
        gb: dict[str, list[float]] = defaultdict(list)
        for m in cells:
            if m.cell.content in shared:
                ga[m.cell.submission].append(m.a.gain)
                gb[m.cell.submission].append(m.b.gain)
        ra, rb = _ranks(ga), _ranks(gb)
        out += sorted(
            (
                RankChange(
                    phase=phase,
                    submission=s,
                    rank_a=ra[s],
                    rank_b=rb[s],
                    mean_gain_a=fmean(ga[s]),
                    mean_gain_b=fmean(gb[s]),
                    targets=len(shared),
                )
                for s in ga
            ),
            key=lambda r: (r.rank_b, r.submission),
        )
    return out


def compare_releases(
    a_path: Path, b_path: Path, renamed: Mapping[str, str] | None = None
) -> ReleaseComparison:
    """Compare release B with release A (each a release.json or its directory); reads both,
    verifies neither. ``renamed`` maps submissions of A (name@version) to those of B they are
    to be compared with; see the module for the other pairings."""
    ra, rb = read_release(a_path).release, read_release(b_path).release
    check_cells_conditions(ra, a_path)
    check_cells_conditions(rb, b_path)
    dirs = (_folder(a_path), _folder(b_path))
    pairs, found = _pairing(ra, rb, dirs, renamed or {})
    ca, cb = _cells(ra, "A", pairs), _cells(rb, "B", pairs)
    moves: list[CellMove] = []
    only_a: list[CellRef] = []
    only_b: list[CellRef] = []
    for key in sorted(ca.keys() | cb.keys()):
        m, oa, ob = _pairs(ca.get(key, []), cb.get(key, []))
        moves += m
        only_a += oa
        only_b += ob
    targets = set.intersection(
        *({c.condition.id for c in r.conditions if c.role == "target"} for r in (ra, rb))
    )
    return ReleaseComparison(
        a=_compared(a_path, ra),
        b=_compared(b_path, rb),
        renamed=tuple(found),
        moves=tuple(sorted(moves, key=lambda m: -abs(m.delta))),
        only_a=tuple(only_a),
        only_b=tuple(only_b),
        ranks=tuple(_rank_changes(moves, targets)),
    )


def _folder(path: Path) -> Path:
    return path if path.is_dir() else path.parent


def _compared(path: Path, r: ReleaseStatement) -> ComparedRelease:
    return ComparedRelease(
        path=path / RELEASE_FILE if path.is_dir() else path,
        cycle=r.cycle,
        created_at=r.created_at,
        cells=len(r.cells),
    )
