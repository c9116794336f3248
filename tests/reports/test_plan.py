"""`plan_cycle`: what a spec's cells can detect and what its trials take, from the spec alone or
from a pilot's trials; changing what the spec or pilot says changes the plan."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from benchmark import Usage, default_cycle_spec_path, model_price
from conditions import CycleSpec
from reports import DEFAULT_BASELINE, ReportError, plan_cycle
from runner import SIM_TRIAL_USAGE, TrialStore
from tests.runner.test_store import make_record


def _spec(**evaluation: int) -> CycleSpec:
    data = yaml.safe_load(default_cycle_spec_path().read_text())
    data["evaluation"] |= evaluation
    return CycleSpec.model_validate(data)


def _priced_spec(model: str) -> CycleSpec:
    text = default_cycle_spec_path().read_text().replace("sim/acme-2", model)
    return CycleSpec.model_validate(yaml.safe_load(text))


def test_trials_count_both_arms_frozen_and_every_bundle_adapted() -> None:
    plan = plan_cycle(_spec(), submissions=3, max_conditions=12)
    source, targets = plan.conditions[0], plan.conditions[1:]
    assert source.condition == "source" and source.adapted is None
    assert source.frozen.trials == 4 * 24 * 3
    assert len(targets) == 12
    for t in targets:
        families = len(t.families.split("/")[0].split("+"))
        assert t.tasks == 24 * families
        assert t.frozen.trials == 4 * 24 * 3 * families
        assert t.adapted is not None and t.adapted.trials == 3 * 24 * 3 * families
    assert plan.frozen.trials == sum(r.frozen.trials for r in plan.conditions)
    assert plan.total.trials == plan.frozen.trials + plan.adapted.trials
    assert plan.total.calls == pytest.approx(plan.frozen.calls + plan.adapted.calls)


def test_independent_arms_and_fewer_tasks_detect_less() -> None:
    small, large = plan_cycle(_spec(tasks_per_split=12)), plan_cycle(_spec(tasks_per_split=48))
    for s, big in zip(small.conditions, large.conditions, strict=True):
        assert s.independent.mde > s.correlated.mde
        assert s.independent.half_width > s.correlated.half_width
        assert big.correlated.mde < s.correlated.mde
        assert big.correlated.half_width < s.correlated.mde
    assert not small.detects and large.detects
    assert any("0.77" in a for a in small.assumptions)


@pytest.mark.parametrize("half_width", ["0.05", "0.10"])
def test_the_tasks_asked_for_give_that_half_width(half_width: str) -> None:
    first = plan_cycle(_spec(), max_conditions=9).conditions[0]
    for figures in ("correlated", "independent"):
        n = getattr(first, figures).tasks_for[half_width]
        at = getattr(plan_cycle(_spec(tasks_per_split=n), max_conditions=9).conditions[0], figures)
        below = getattr(
            plan_cycle(_spec(tasks_per_split=n - 1), max_conditions=9).conditions[0], figures
        )
        assert at.half_width <= float(half_width) < below.half_width


def test_a_priced_model_has_a_cost_and_an_unpriced_one_none() -> None:
    price = model_price("openai/gpt-4o-mini")
    assert price is not None
    plan = plan_cycle(_priced_spec("openai/gpt-4o-mini"), max_conditions=9)
    source = plan.conditions[0]
    per_trial = SIM_TRIAL_USAGE["support_ops"]
    assert source.frozen.usd == pytest.approx(
        source.frozen.trials * price.cost(per_trial.prompt_tokens, per_trial.completion_tokens)
    )
    assert plan.total.usd is not None and plan.total.usd > 0
    unpriced = plan_cycle(_priced_spec("hosted_vllm/qwen-7b"), max_conditions=9)
    assert unpriced.conditions[0].frozen.usd is None
    assert unpriced.total.usd is None and unpriced.total.unpriced == ("hosted_vllm/qwen-7b",)


def _pilot(home: Path, successes: int, calls: int) -> None:
    home.mkdir()
    store = TrialStore(home / "dev-vwt-default-2026-12-20261201.sqlite")
    usage = Usage(calls=calls, prompt_tokens=100 * calls, completion_tokens=calls, latency_s=1)
    rows = [
        make_record(
            trial=j,
            outcome="success" if j < successes else "failure",
            usage=usage,
        )
        for j in range(10)
    ]
    store.insert([(r, b"") for r in rows])


def test_a_pilot_gives_the_baseline_and_the_calls_per_trial(tmp_path: Path) -> None:
    _pilot(tmp_path / "weak", successes=5, calls=2)
    _pilot(tmp_path / "strong", successes=9, calls=7)
    spec = _spec()
    weak = plan_cycle(spec, pilot=tmp_path / "weak", max_conditions=9)
    strong = plan_cycle(spec, pilot=tmp_path / "strong", max_conditions=9)
    assert weak.conditions[0].baseline == 0.5 and strong.conditions[0].baseline == 0.9
    assert "10 pilot trials" in weak.conditions[0].baseline_source
    # A baseline near 1 leaves less room to vary: smaller MDE.
    assert strong.conditions[0].correlated.mde < weak.conditions[0].correlated.mde
    assert weak.conditions[0].frozen.calls == 2 * weak.conditions[0].frozen.trials
    assert strong.conditions[0].frozen.calls == 7 * strong.conditions[0].frozen.trials
    # A family the pilot did not run keeps the assumptions.
    other = [r for r in weak.conditions if r.families.startswith("reconciliation/")]
    assert other and other[0].baseline == DEFAULT_BASELINE


def test_a_pilot_without_trials_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="is not a directory"):
        plan_cycle(_spec(), pilot=tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ReportError, match="has no trials"):
        plan_cycle(_spec(), pilot=tmp_path / "empty")
    with pytest.raises(ReportError, match="--submissions"):
        plan_cycle(_spec(), submissions=0)
