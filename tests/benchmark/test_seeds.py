"""Request seeds: every arm of a trial shares its trial seed's draws, not its sampling noise."""

from __future__ import annotations

import pytest

from benchmark import stable_int
from benchmark._seeds import request_seed, shared_seed

TRIAL_SEEDS = [0, 1, stable_int(7, "support_ops/sealed/0", 0), stable_int(7, "x", 3), 2**52 - 1]
ARMS = ["baseline", "a" * 64, "b" * 64]


@pytest.mark.parametrize("trial_seed", TRIAL_SEEDS)
def test_arms_of_one_trial_get_different_request_seeds_with_one_shared_part(
    trial_seed: int,
) -> None:
    seeds = [request_seed(trial_seed, arm) for arm in ARMS]
    assert len(set(seeds)) == len(ARMS)
    assert len({shared_seed(s) for s in seeds}) == 1


def test_trials_get_different_shared_parts() -> None:
    shared = {shared_seed(request_seed(s, "baseline")) for s in TRIAL_SEEDS}
    assert len(shared) == len(TRIAL_SEEDS)


@pytest.mark.parametrize("trial_seed", TRIAL_SEEDS)
@pytest.mark.parametrize("arm", ARMS)
def test_request_seeds_are_exact_json_numbers_and_deterministic(trial_seed: int, arm: str) -> None:
    seed = request_seed(trial_seed, arm)
    assert 0 <= seed < 2**52
    assert seed == request_seed(trial_seed, arm)
