"""Tests of the pure tests: the exact sign test, Benjamini-Hochberg, pass^k."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports._stats import (
    benjamini_hochberg,
    binomial_sign_test,
    pass_hat_k,
    screened_benjamini_hochberg,
)
from reports.errors import ReportError


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10), st.integers(0, 10))
def test_sign_test_matches_enumeration(wins: int, losses: int) -> None:
    n = wins + losses
    at_least = sum(sum(seq) >= wins for seq in itertools.product((0, 1), repeat=n))
    assert binomial_sign_test(wins, losses) == pytest.approx(at_least / 2**n)


def test_sign_test_known_values() -> None:
    # The 003 field report: 5 wins and no losses give 0.03125; four give 0.0625.
    assert binomial_sign_test(5, 0) == 0.03125
    assert binomial_sign_test(4, 0) == 0.0625
    assert binomial_sign_test(0, 0) == 1.0
    # Far in the tail the p-value is not lost to rounding (McNemar over many trial pairs).
    assert binomial_sign_test(1000, 0) == 2.0**-1000
    with pytest.raises(ReportError):
        binomial_sign_test(-1, 2)


def test_bh_worked_example_from_the_1995_paper() -> None:
    # Benjamini & Hochberg (1995), section 4: 15 p-values, q = 0.05, the first four rejected.
    pvalues = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344]
    pvalues += [0.0459, 0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0]
    shuffled = np.random.default_rng(0).permutation(len(pvalues))
    decisions = benjamini_hochberg([pvalues[i] for i in shuffled], 0.05)
    assert [i for i, d in zip(shuffled, decisions, strict=True) if d] == [
        i for i in shuffled if i < 4
    ]


def test_bh_steps_up_past_a_failing_smaller_p() -> None:
    # p(1) = 0.04 > q/2 but p(2) = 0.045 <= q: step-up rejects both (step-down would not).
    assert benjamini_hochberg([0.045, 0.04], 0.05) == [True, True]
    assert benjamini_hochberg([0.06, 0.04], 0.05) == [False, False]


def test_bh_boundary_is_inclusive() -> None:
    assert benjamini_hochberg([0.125, 0.25, 0.375, 0.5], 0.5) == [True] * 4
    assert benjamini_hochberg([], 0.05) == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), max_size=20), st.floats(0.01, 0.5))
def test_bh_rejects_a_lowest_prefix_meeting_the_step_up_rule(
    pvalues: list[float], q: float
) -> None:
    decisions = benjamini_hochberg(pvalues, q)
    rejected = [p for p, d in zip(pvalues, decisions, strict=True) if d]
    kept = [p for p, d in zip(pvalues, decisions, strict=True) if not d]
    if rejected and kept:
        assert min(kept) > max(rejected)
    ranked, m, r = sorted(pvalues), len(pvalues), len(rejected)
    # r is the largest rank i with p_(i) <= i q / m (0 if none).
    if r:
        assert ranked[r - 1] * m <= r * q
    assert not any(ranked[i - 1] * m <= i * q for i in range(r + 1, m + 1))


def test_bh_rejects_bad_input() -> None:
    with pytest.raises(ReportError):
        benjamini_hochberg([0.5, 1.2], 0.05)
    with pytest.raises(ReportError):
        benjamini_hochberg([0.5], 0.0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.integers(1, 12).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
        min_size=1,
        max_size=8,
    )
)
def test_pass_hat_k_matches_combinatorics(tasks: list[tuple[int, int]]) -> None:
    successes = [c for c, _ in tasks]
    trials = [n for _, n in tasks]
    result = pass_hat_k(successes, trials)
    assert len(result) == min(trials)
    for k, value in enumerate(result, start=1):
        expected = np.mean([math.comb(c, k) / math.comb(n, k) for c, n in tasks])
        assert value == pytest.approx(expected)
    assert result[0] == pytest.approx(np.mean([c / n for c, n in tasks]))
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(result))


def test_pass_hat_k_rejects_impossible_counts() -> None:
    with pytest.raises(ReportError):
        pass_hat_k([3], [2])
    with pytest.raises(ReportError):
        pass_hat_k([0], [0])
    with pytest.raises(ReportError):
        pass_hat_k([], [])


def test_screened_bh_counts_only_the_tests_that_could_be_rejected() -> None:
    # Ten cells with 7 discordant pairs all one way (p = 2^-7), and 90 with one or two pairs:
    # those cannot reach q = 0.05 whatever they showed, and counting them would sink the ten.
    ps = [2.0**-7] * 10 + [0.5] * 45 + [0.25] * 45
    smallest = [2.0**-7] * 10 + [0.5] * 45 + [0.25] * 45
    assert not any(benjamini_hochberg(ps, 0.05)[:10])
    assert screened_benjamini_hochberg(ps, smallest, 0.05) == [True] * 10 + [False] * 90
    # Screened BH over what is kept equals plain BH over those tests alone.
    kept = [0.001, 0.04, 0.2]
    assert screened_benjamini_hochberg([*kept, 0.9], [0.0, 0.0, 0.0, 0.5]) == [
        *benjamini_hochberg(kept),
        False,
    ]
    assert screened_benjamini_hochberg([], []) == []
    with pytest.raises(ReportError, match="one smallest"):
        screened_benjamini_hochberg([0.1], [])
