"""The real-drift yardstick: labelled pairs of real tool lists, split into a tune and a report half.

The pairs live outside the repository (``shared/realdrift`` beside the checkout) and are never
copied into it. The split is decided by a hash of each pair's name alone, so it is fixed before
anyone looks at a label, and a pair keeps its half when others are added.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from drift._diff import classify
from drift._report import DiffReport
from drift._tools import ToolSet, load_tool_list

Half = Literal["tune", "report"]
ENV_DIR = "VWT_REALDRIFT_DIR"
"""Environment variable naming the yardstick folder (overrides the search beside the repo)."""


def half_of(name: str) -> Half:
    """The half a pair belongs to: 'tune' when the first byte of SHA-256(name) is even."""
    return "tune" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "report"


def find_yardstick(start: Path) -> Path | None:
    """``$VWT_REALDRIFT_DIR``, else the first ``shared/realdrift`` in ``start``'s parents."""
    if os.environ.get(ENV_DIR):
        folder = Path(os.environ[ENV_DIR])
        return folder if (folder / "expected.json").is_file() else None
    for parent in start.resolve().parents:
        folder = parent / "shared" / "realdrift"
        if (folder / "expected.json").is_file():
            return folder
    return None


@dataclass(frozen=True)
class RealPair:
    """One labelled pair of real tool lists."""

    name: str
    label: Literal["preserving", "changing"]
    old: ToolSet
    new: ToolSet
    visibility: str | None
    """Where a reader of ``tools/list`` can see the change ('schema', 'description', 'none'),
    when the yardstick says."""


def load_pairs(folder: Path, half: Half | None = None) -> list[RealPair]:
    """The pairs of ``folder`` (all, or one half), sorted by name."""
    expected: dict[str, str] = json.loads((folder / "expected.json").read_text())
    kinds_file = folder / "kinds.json"
    kinds = json.loads(kinds_file.read_text()) if kinds_file.is_file() else {}
    out = []
    for name in sorted(expected):
        if half is not None and half_of(name) != half:
            continue
        label = expected[name]
        if label not in ("preserving", "changing"):
            raise ValueError(f"{folder / 'expected.json'}: {name}: label {label!r}")
        kind = kinds.get(name)
        out.append(
            RealPair(
                name=name,
                label=label,  # type: ignore[arg-type]
                old=load_tool_list(folder / f"{name}.old.json"),
                new=load_tool_list(folder / f"{name}.new.json"),
                visibility=kind.get("visibility") if isinstance(kind, dict) else None,
            )
        )
    return out


def flagged(report: DiffReport) -> bool:
    """Whether a report asks for attention: any change labelled 'changing' or 'unknown'."""
    return any(c.drift_class != "preserving" for c in report.changes)


@dataclass(frozen=True)
class Score:
    """How a classifier did on a set of real pairs, with 'unknown' counted as a flag."""

    changing: int
    changing_flagged: int
    preserving: int
    preserving_flagged: int
    silent: int
    """Changing pairs whose change no reader of the schema can see (visibility 'none')."""
    described: int
    """Changing pairs whose change is stated only in a description."""
    with_visibility: int
    """Changing pairs whose visibility the yardstick records."""
    missed: tuple[str, ...]
    """Changing pairs not flagged."""
    false_flags: tuple[str, ...]
    """Preserving pairs flagged."""

    @property
    def recall(self) -> float:
        """Share of changing pairs flagged (changing or unknown)."""
        return self.changing_flagged / self.changing if self.changing else 1.0

    @property
    def false_flag_rate(self) -> float:
        """Share of preserving pairs flagged."""
        return self.preserving_flagged / self.preserving if self.preserving else 0.0


def score(pairs: list[RealPair]) -> Score:
    """Classify every pair and count flags against the labels."""
    missed, false_flags = [], []
    for pair in pairs:
        hit = flagged(classify(pair.old, pair.new))
        if pair.label == "changing" and not hit:
            missed.append(pair.name)
        if pair.label == "preserving" and hit:
            false_flags.append(pair.name)
    changing = [p for p in pairs if p.label == "changing"]
    preserving = len(pairs) - len(changing)
    return Score(
        changing=len(changing),
        changing_flagged=len(changing) - len(missed),
        preserving=preserving,
        preserving_flagged=len(false_flags),
        silent=sum(p.visibility == "none" for p in changing),
        described=sum(p.visibility == "description" for p in changing),
        with_visibility=sum(p.visibility is not None for p in changing),
        missed=tuple(missed),
        false_flags=tuple(false_flags),
    )
