"""Tests of the arm input model and the per-arm summary."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from reports._stats_arms import ArmOutcomes, summarise_arm, task_families
from reports.errors import ReportError


def _arm() -> ArmOutcomes:
    return ArmOutcomes.from_trials(
        [
            ("t1", "f", "success"),
            ("t1", "f", "invalid"),
            ("t1", "f", "critical"),
            ("t2", "f", "safe_stop"),
            ("t2", "f", "success"),
            ("t2", "f", "success"),
            ("t3", "g", "critical"),
            ("t3", "g", "invalid"),
        ]
    )


def test_from_trials_groups_by_task_in_order() -> None:
    arm = _arm()
    assert arm.tasks["t1"].outcomes == ("success", "invalid", "critical")
    assert arm.tasks["t3"].cluster == "g"
    assert (arm.tasks["t1"].valid, arm.tasks["t1"].successes) == (2, 1)


def test_from_trials_rejects_unknown_outcomes_and_split_tasks() -> None:
    with pytest.raises(ReportError, match="unknown trial outcome 'error'"):
        ArmOutcomes.from_trials([("t1", "f", "error")])
    with pytest.raises(ReportError, match="clusters"):
        ArmOutcomes.from_trials([("t1", "f", "success"), ("t1", "g", "success")])


def test_model_is_strict_and_round_trips() -> None:
    arm = _arm()
    assert ArmOutcomes.model_validate_json(arm.model_dump_json()) == arm
    with pytest.raises(ValidationError):
        ArmOutcomes.model_validate({"tasks": {"t": {"cluster": "f", "outcomes": ["won"]}}})
    with pytest.raises(ValidationError):
        ArmOutcomes.model_validate({"tasks": {}, "extra": 1})


def test_summary_counts_every_task_and_pass_k_only_paired_ones() -> None:
    summary = summarise_arm(_arm(), ["t1", "t2"])
    assert (summary.trials, summary.invalid, summary.safe_stop, summary.critical) == (8, 2, 1, 2)
    assert summary.critical_rate == pytest.approx(2 / 6)
    # t1: 1 of 2 valid, t2: 2 of 3 -> pass^1 = (1/2 + 2/3) / 2, pass^2 = (0 + 1/3) / 2.
    assert summary.pass_hat_k == pytest.approx([7 / 12, 1 / 6])


def test_task_families_must_agree_across_arms() -> None:
    other = ArmOutcomes.from_trials([("t1", "f", "success"), ("t9", "h", "failure")])
    assert task_families(_arm(), other) == {"t1": "f", "t2": "f", "t3": "g", "t9": "h"}
    moved = ArmOutcomes.from_trials([("t1", "g", "success")])
    with pytest.raises(ReportError, match="'t1' is in cluster 'f' in one arm") as caught:
        task_families(_arm(), moved)
    assert caught.value.hint is not None and "same task instances" in caught.value.hint
