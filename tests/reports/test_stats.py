"""Tests of the pure significance tests: sign-flip, sign test, Benjamini-Hochberg, pass^k."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reports._stats import benjamini_hochberg, binomial_sign_test, pass_hat_k, sign_flip_pvalue
from reports.errors import ReportError

# Cluster means as ratios of small integers, like real per-task score differences.
_means = st.lists(
    st.tuples(st.integers(-6, 6), st.integers(1, 6), st.integers(1, 4)), min_size=1, max_size=9
)


def _brute_force_p(means: list[float], sizes: list[int]) -> float:
    """Share of all sign patterns (zero clusters included) whose weighted gain <= observed."""
    total = sum(sizes)
    observed = sum(m * n for m, n in zip(means, sizes, strict=True)) / total
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(means)):
        flipped = sum(s * m * n for s, m, n in zip(signs, means, sizes, strict=True)) / total
        hits += flipped <= observed + 1e-12
    return hits / 2 ** len(means)


@settings(max_examples=60, deadline=None)
@given(_means)
def test_exact_sign_flip_matches_brute_force(clusters: list[tuple[int, int, int]]) -> None:
    means = [num / den for num, den, _ in clusters]
    sizes = [size for _, _, size in clusters]
    flip = sign_flip_pvalue(means, sizes, draws=10_000, rng=np.random.default_rng(0))
    assert flip.method == "exact"
    assert flip.p == pytest.approx(max(_brute_force_p(means, sizes), 1 / 10_001))
    assert flip.n_nonzero == sum(m != 0 for m in means)


def test_exact_sign_flip_hand_computed() -> None:
    # Signed sums of (1/3, 1, -1/2): 6 of the 8 patterns are <= the observed 5/6.
    flip = sign_flip_pvalue([1 / 3, 1.0, -0.5], [1, 1, 1], draws=100, rng=np.random.default_rng(0))
    assert flip.p == pytest.approx(6 / 8)


def test_all_zero_differences_give_p_one() -> None:
    flip = sign_flip_pvalue([0.0, 0.0], [2, 3], draws=100, rng=np.random.default_rng(0))
    assert (flip.p, flip.method, flip.n_nonzero) == (1.0, "exact", 0)


def test_exact_p_is_floored_only_when_two_to_the_n_exceeds_draws() -> None:
    rng = np.random.default_rng(0)
    small = sign_flip_pvalue([-1.0] * 5, [1] * 5, draws=1000, rng=rng)
    assert small.p == 1 / 32
    large = sign_flip_pvalue([-1.0] * 16, [1] * 16, draws=1000, rng=rng)
    assert large.method == "exact"
    assert large.p == 1 / 1001


def test_monte_carlo_never_returns_zero() -> None:
    flip = sign_flip_pvalue([-1.0] * 30, [1] * 30, draws=500, rng=np.random.default_rng(0))
    assert flip.method == "monte_carlo"
    assert flip.p == 1 / 501


def test_monte_carlo_agrees_with_exact() -> None:
    rng = np.random.default_rng(7)
    means = rng.normal(-0.1, 0.3, size=12)
    sizes = rng.integers(1, 4, size=12)
    exact = sign_flip_pvalue(means, sizes, draws=20_000, rng=np.random.default_rng(1))
    mc = sign_flip_pvalue(means, sizes, draws=20_000, rng=np.random.default_rng(1), exact_limit=0)
    assert mc.method == "monte_carlo"
    assert abs(mc.p - exact.p) < 0.015


def test_monte_carlo_is_deterministic_under_a_seed() -> None:
    means = np.linspace(-1, 0.8, 25)
    sizes = np.ones(25)
    first = sign_flip_pvalue(means, sizes, draws=2000, rng=np.random.default_rng(3))
    again = sign_flip_pvalue(means, sizes, draws=2000, rng=np.random.default_rng(3))
    other = sign_flip_pvalue(means, sizes, draws=2000, rng=np.random.default_rng(4))
    assert first == again
    assert other.p != first.p


def test_sign_flip_is_calibrated_under_the_null() -> None:
    rng = np.random.default_rng(11)
    pvalues = [
        sign_flip_pvalue(rng.normal(0, 1, 12), np.ones(12), draws=1000, rng=rng).p
        for _ in range(400)
    ]
    assert 0.02 <= np.mean(np.array(pvalues) <= 0.05) <= 0.09


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
