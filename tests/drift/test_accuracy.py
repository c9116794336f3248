"""Classifier accuracy on the hand-written fixture set and on the real-drift yardstick.

The yardstick (``shared/realdrift`` beside the checkout, or ``$VWT_REALDRIFT_DIR``) is split by
a hash of each pair's name: the classifier is tuned on the tune half only, and the report half
is the measurement. 'unknown' counts as a flag: a reader is told to look.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drift import classify, find_yardstick, half_of, load_pairs, parse_tool_list, score

ROOT = Path(__file__).resolve().parents[2]
CASES = json.loads((Path(__file__).parent / "fixtures" / "handwritten.json").read_text())


def _yardstick() -> Path:
    folder = find_yardstick(ROOT)
    if folder is None:
        pytest.skip("real-drift pairs not found beside the repo (set VWT_REALDRIFT_DIR)")
    return folder


def test_fixture_set_is_large_and_labelled() -> None:
    assert len(CASES) >= 15
    assert {c["label"] for c in CASES} == {"preserving", "changing"}
    assert all(c["expect"] and c["why"] for c in CASES)


def test_handwritten_accuracy(capsys: pytest.CaptureFixture[str]) -> None:
    pairs_right = changes_right = changes = 0
    misses = []
    for case in CASES:
        report = classify(parse_tool_list(case["old"]), parse_tool_list(case["new"]))
        # 'unknown' is right for a pair only where every expected change is unknown
        unknown = report.label() == "unknown" and all(
            w["class"] == "unknown" for w in case["expect"]
        )
        pairs_right += report.label() == case["label"] or unknown
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


def test_split_is_by_name_alone() -> None:
    # First bytes of SHA-256: "a" 0xca, "d" 0x18 (even: tune); "e" 0x3f, "f" 0x25 (odd: report).
    assert [half_of(n) for n in ("a", "d", "e", "f")] == ["tune", "tune", "report", "report"]


def test_yardstick_halves_are_both_substantial() -> None:
    folder = _yardstick()
    tune, report = load_pairs(folder, "tune"), load_pairs(folder, "report")
    assert len(tune) + len(report) == len(load_pairs(folder))
    assert min(len(tune), len(report)) >= len(load_pairs(folder)) // 3


def test_realdrift_tune_half(capsys: pytest.CaptureFixture[str]) -> None:
    got = score(load_pairs(_yardstick(), "tune"))
    with capsys.disabled():
        print(
            f"\nreal drift, tune half: changing flagged {got.changing_flagged}/{got.changing}, "
            f"preserving flagged {got.preserving_flagged}/{got.preserving}; "
            f"missed {list(got.missed)}, false flags {list(got.false_flags)}"
        )
    assert got.recall >= 0.75 and got.false_flag_rate <= 0.25


@pytest.mark.xfail(
    strict=True,
    reason="issue 23's target is not met on the report half: scored once after the second "
    "round of tuning (the tune halves only), 5/7 changing pairs flagged and 2/5 preserving "
    "pairs falsely flagged (docs/drift.md); strict, so meeting it fails here until this mark "
    "is removed",
)
def test_realdrift_report_half(capsys: pytest.CaptureFixture[str]) -> None:
    got = score(load_pairs(_yardstick(), "report"))
    with capsys.disabled():
        print(
            f"\nreal drift, report half: changing flagged {got.changing_flagged}/{got.changing} "
            f"= {got.recall:.2f}, preserving flagged {got.preserving_flagged}/{got.preserving} "
            f"= {got.false_flag_rate:.2f}; missed {list(got.missed)}, "
            f"false flags {list(got.false_flags)}"
        )
    assert got.recall >= 0.75 and got.false_flag_rate <= 0.25
