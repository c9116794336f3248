"""Classifier accuracy on the hand-written fixture set and on the real-drift yardstick."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from drift import classify, load_tool_list, parse_tool_list

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((Path(__file__).parent / "fixtures" / "handwritten.json").read_text())


def _realdrift_dir() -> Path:
    return Path(os.environ.get("VWT_REALDRIFT_DIR", ROOT.parent / "shared" / "realdrift"))


def test_fixture_set_is_large_and_labelled() -> None:
    assert len(CASES) >= 15
    assert {c["label"] for c in CASES} == {"preserving", "changing"}
    assert all(c["expect"] and c["why"] for c in CASES)


def test_handwritten_accuracy(capsys: pytest.CaptureFixture[str]) -> None:
    pairs_right = changes_right = changes = 0
    misses = []
    for case in CASES:
        report = classify(parse_tool_list(case["old"]), parse_tool_list(case["new"]))
        pairs_right += report.label() == case["label"]
        for want in case["expect"]:
            changes += 1
            hit = any(
                (c.tool, c.path, c.drift_class) == (want["tool"], want["path"], want["class"])
                for c in report.changes
            )
            changes_right += hit
            if not hit:
                misses.append(case["name"])
    pair_acc, change_acc = pairs_right / len(CASES), changes_right / changes
    with capsys.disabled():
        print(
            f"\nhand-written fixtures: pair accuracy {pairs_right}/{len(CASES)} = {pair_acc:.3f}; "
            f"per-change accuracy {changes_right}/{changes} = {change_acc:.3f}; misses: {misses}"
        )
    assert pair_acc >= 0.85 and change_acc >= 0.85


def test_realdrift_accuracy(capsys: pytest.CaptureFixture[str]) -> None:
    folder = _realdrift_dir()
    if not (folder / "expected.json").is_file():
        pytest.skip(f"real-drift pairs not found at {folder} (set VWT_REALDRIFT_DIR)")
    expected = json.loads((folder / "expected.json").read_text())
    wrong = []
    for name, label in expected.items():
        report = classify(
            load_tool_list(folder / f"{name}.old.json"), load_tool_list(folder / f"{name}.new.json")
        )
        if report.label() != label:
            wrong.append(name)
    right = len(expected) - len(wrong)
    with capsys.disabled():
        print(
            f"\nreal drift: pair accuracy {right}/{len(expected)} = "
            f"{right / len(expected):.3f}; wrong: {wrong}"
        )
    assert right / len(expected) >= 0.75
