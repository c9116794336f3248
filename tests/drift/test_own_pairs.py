"""Pairs written by hand before the classifier that reads them, in styles no operator produces.

Each changing pair has a preserving twin or neighbour that says the same thing in other words:
a verdict must follow what a description states, not its wording.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drift import classify, flagged, parse_tool_list

PAIRS = json.loads((Path(__file__).parent / "fixtures" / "own_pairs.json").read_text())


@pytest.mark.parametrize("case", PAIRS, ids=[p["name"] for p in PAIRS])
def test_own_pair(case: dict) -> None:
    report = classify(parse_tool_list(case["old"]), parse_tool_list(case["new"]))
    shown = [(c.tool, c.path, c.kind, c.drift_class) for c in report.changes]
    assert flagged(report) == (case["label"] == "changing"), shown
    for want in case["expect"]:
        assert any(
            (c.tool, c.path) == (want["tool"], want["path"])
            and c.drift_class in want["class"]
            and c.kind == want.get("kind", c.kind)
            for c in report.changes
        ), (want, shown)


@pytest.mark.parametrize("case", PAIRS, ids=[p["name"] for p in PAIRS])
def test_every_verdict_carries_evidence(case: dict) -> None:
    report = classify(parse_tool_list(case["old"]), parse_tool_list(case["new"]))
    assert report.changes
    for c in report.changes:
        assert c.evidence and all(e.strip() for e in c.evidence), c
