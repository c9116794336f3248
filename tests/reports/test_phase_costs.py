"""A release's cost per phase: the sum of its trials' recorded costs, trials without one
counted apart and named by model, never guessed."""

from __future__ import annotations

from reports import phase_costs
from reports._render import _cost_text
from tests.runner.test_store import make_record


def test_priced_trials_add_up_and_unpriced_ones_are_counted_apart() -> None:
    records = [
        make_record(trial=0, cost_usd=0.25),
        make_record(trial=1, cost_usd=0.5),
        make_record(trial=2, cost_usd=None, model="hosted_vllm/qwen"),
        make_record(trial=0, phase="adapted", arm="with", cost_usd=None, model="hosted_vllm/qwen"),
    ]
    frozen, adapted, dev = phase_costs(records, ["frozen", "adapted", "dev"])
    assert (frozen.usd, frozen.trials, frozen.unpriced) == (0.75, 3, 1)
    assert frozen.unpriced_models == ("hosted_vllm/qwen",)
    assert (adapted.usd, adapted.trials, adapted.unpriced) == (None, 1, 1)
    assert (dev.usd, dev.trials, dev.unpriced) == (None, 0, 0)
    assert _cost_text(frozen) == (
        "frozen $0.7500 (3 trials, 1 of hosted_vllm/qwen without a cost, not counted)"
    )
    assert (
        _cost_text(adapted)
        == "adapted unknown (1 trials, 1 of hosted_vllm/qwen without a cost, not counted)"
    )


def test_the_sum_does_not_depend_on_the_order_records_are_read_in() -> None:
    costs = [0.1, 0.2, 0.3]  # summed as read, (0.1 + 0.2) + 0.3 != (0.3 + 0.2) + 0.1
    records = [make_record(trial=j, cost_usd=c) for j, c in enumerate(costs)]
    forward = phase_costs(records, ["frozen"])
    backward = phase_costs(records[::-1], ["frozen"])
    assert forward == backward
