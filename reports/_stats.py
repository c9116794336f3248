"""Pure tests and counts of the transfer matrix: the exact sign test, BH, pass^k."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from reports.errors import ReportError


def binomial_sign_test(wins: int, losses: int) -> float:
    """Exact one-sided sign-test p-value that the artifact arm wins more often than it loses.

    P(X >= wins) for X ~ Binomial(wins + losses, 1/2); ties are excluded beforehand. With no
    discordant pair the p-value is 1. Over trial pairs where one arm alone was critical it is
    McNemar's exact test.
    """
    if wins < 0 or losses < 0:
        raise ReportError(f"sign test needs non-negative counts, got {wins} wins, {losses} losses")
    n = wins + losses
    tail = sum(math.comb(n, i) for i in range(wins, n + 1))
    return tail / 2**n  # int / int is correctly rounded


def benjamini_hochberg(pvalues: Sequence[float], q: float = 0.05) -> list[bool]:
    """Benjamini-Hochberg step-up decisions at false-discovery rate ``q``, in input order.

    With p-values sorted ascending p_(1) <= ... <= p_(m), reject the hypotheses of rank
    1..i* where i* is the largest i with p_(i) <= i q / m (none if there is no such i).
    """
    if not 0.0 < q <= 1.0:
        raise ReportError(f"FDR level q must be in (0, 1], got {q}", hint="use e.g. q = 0.05")
    p = np.asarray(pvalues, dtype=float)
    if np.any(~np.isfinite(p)) or np.any((p < 0.0) | (p > 1.0)):
        raise ReportError("p-values must lie in [0, 1]", hint="check the cells' p_negative")
    m = len(p)
    order = np.argsort(p, kind="stable")
    # Compare p * m <= i * q rather than dividing, so boundary cases are decided exactly.
    passing = np.nonzero(p[order] * m <= np.arange(1, m + 1) * q)[0]
    reject = np.zeros(m, dtype=bool)
    if len(passing):
        reject[order[: passing[-1] + 1]] = True
    return [bool(r) for r in reject]


def screened_benjamini_hochberg(
    pvalues: Sequence[float], smallest: Sequence[float], q: float = 0.05
) -> list[bool]:
    """Benjamini-Hochberg over the tests that could be rejected at all: those whose smallest
    attainable p-value (``smallest``) is at most ``q``; the others are not rejected and not
    counted.

    For discrete tests such as McNemar's, a cell with D discordant pairs cannot reach a p-value
    below 2^-D whatever it observed, and D says nothing about the direction under the null
    (Tarone 1990; Gilbert 2005, who shows this screen keeps the false discovery rate): counting
    the many cells with one or two discordant pairs would only raise the bar for the others.
    """
    if len(pvalues) != len(smallest):
        raise ReportError("screened BH needs one smallest attainable p-value per test")
    kept = [i for i, s in enumerate(smallest) if s <= q]
    decided = benjamini_hochberg([pvalues[i] for i in kept], q) if kept else []
    out = [False] * len(pvalues)
    for i, d in zip(kept, decided, strict=True):
        out[i] = d
    return out


def pass_hat_k(successes: Sequence[int], trials: Sequence[int]) -> list[float]:
    """pass^k for k = 1..min(trials): per task C(c,k)/C(n,k), averaged over tasks.

    C(c,k)/C(n,k) = prod_{j<k} (c-j)/(n-j) is the chance that k trials drawn without
    replacement from the task's n valid trials all succeed. Element k-1 of the result is pass^k.
    """
    c = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    if len(c) != len(n) or len(n) == 0:
        raise ReportError("pass^k needs one success count and one trial count per task")
    if np.any(n < 1) or np.any(c < 0) or np.any(c > n):
        raise ReportError("pass^k needs 0 <= successes <= trials and trials >= 1 on every task")
    per_task = np.ones_like(c)
    result: list[float] = []
    for j in range(int(n.min())):
        per_task = per_task * np.clip(c - j, 0.0, None) / (n - j)
        result.append(float(per_task.mean()))
    return result
