"""Measure the coverage of 95% gain intervals when a cell spans few task families.

Run: .venv/bin/python bench/cluster_coverage.py [--reps N] [--bootstrap B] [--seed S]
[--families G ...] (about 3 minutes on 2 cores with the defaults).

Each replicate simulates one cell: G families of 4-24 tasks each (uniform, drawn per
replicate), k = 4 trials per task and arm. A task's baseline success rate is U(0.2, 0.7) and
its gain is 0.1 + u_family + v_task, u ~ N(0, tau^2) shared by a family's tasks, v ~ N(0, 0.1^2),
the artifact arm's rate clipped to [0, 1]. Candidate intervals of the task-weighted mean gain:

- family bootstrap: percentile bootstrap resampling families (reports' cluster bootstrap);
- stratified: percentile bootstrap resampling tasks within each family, families kept;
- t CR1 / t CR2: gain +- t(0.975, G - 1) x the cluster-robust standard error over families,
  CR1 (G / (G - 1) x the sum of squared family residuals) or CR2 (each family's squared
  residual divided by 1 - n_g / N; reports' ``cluster_t_interval``).

Coverage is of the population gain (the mean over the family population, which the interval
generalises to when it resamples families), and, second table, of the drawn families' own gain
(their task-weighted expected gain, which is all that a stratified interval speaks for).

Measured with the defaults (2000 replicates per row, B = 2000, seed 0; the Monte Carlo standard
error of a coverage near 0.95 is about 0.005), coverage of the population gain:

     G   tau   family boot  stratified    t CR1    t CR2
     2  0.00      0.492       0.922       0.945    0.948
     2  0.05      0.475       0.880       0.947    0.950
     2  0.10      0.482       0.750       0.936    0.942
     2  0.20      0.517       0.574       0.936    0.938
     3  0.00      0.752       0.923       0.942    0.943
     3  0.05      0.759       0.887       0.938    0.939
     3  0.10      0.755       0.787       0.933    0.936
     3  0.20      0.761       0.560       0.942    0.944
     4  0.00      0.799       0.924       0.932    0.936
     4  0.05      0.787       0.882       0.934    0.938
     4  0.10      0.800       0.778       0.933    0.937
     4  0.20      0.802       0.564       0.929    0.933
     5  0.00      0.841       0.942       0.947    0.947
     5  0.05      0.831       0.890       0.935    0.942
     5  0.10      0.840       0.769       0.939    0.943
     5  0.20      0.836       0.551       0.933    0.936
     6  0.00      0.866       0.939       0.950    0.951
     6  0.05      0.858       0.888       0.942    0.944
     6  0.10      0.845       0.787       0.929    0.931
     6  0.20      0.857       0.551       0.931    0.933
     8  0.00      0.883       0.939       0.945    0.945
     8  0.05      0.876       0.881       0.940    0.940
     8  0.10      0.880       0.785       0.944    0.949
     8  0.20      0.869       0.533       0.926    0.930

Of the drawn families' own gain, the stratified bootstrap covers 0.91-0.94 and t CR2 0.94-1.00.
Mean widths of t CR2: 1.15-1.57 with 2 families (so mostly the whole range [-1, 1]), 0.28-0.63
with 4, 0.15-0.35 with 8. With more families (--families 12 20 30 --reps 1000 --bootstrap 1000,
tau 0, 0.1, 0.2) the family bootstrap still covers only 0.89-0.93, t CR2 0.92-0.95.

One family, tasks as the clusters (the percentile bootstrap over tasks against the t-interval
over task differences):

    tasks   task boot       t
        5     0.831     0.951
       10     0.881     0.932
       20     0.931     0.953
       40     0.934     0.945

Chosen (reports/_cell.py): the CR2 t-interval for every cell that resamples families, at any
number of them, and for a one-family cell of fewer than 20 tasks; the percentile bootstrap is
kept for one family of 20 or more tasks, where it covers 0.93, within 0.02 of its level.
Cells of fewer than 5 families are flagged as well: however good the interval, their cluster
sign-flip p-value is at least 1/2^G.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from reports._stats_bootstrap import ClusterLevel, Clusters, bootstrap_means, percentile_interval
from reports._stats_student_t import cluster_t_interval, student_t_quantile

MEAN_GAIN = 0.1
TASK_SD = 0.1
TRIALS = 4
TASKS = (4, 24)
CONFIDENCE = 0.95
FAMILIES = (2, 3, 4, 5, 6, 8)
FAMILY_SDS = (0.0, 0.05, 0.1, 0.2)
ONE_FAMILY_TASKS = (5, 10, 20, 40)
METHODS = ("family boot", "stratified", "t CR1", "t CR2")
_TRUTH_DRAWS = 20_000
"""Tasks drawn to compute each family's expected gain (common random numbers)."""


class _Population:
    """Common random task draws that give a family's expected gain for its effect u."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.base = rng.uniform(0.2, 0.7, _TRUTH_DRAWS)
        self.task = rng.normal(0.0, TASK_SD, _TRUTH_DRAWS)

    def family_gain(self, u: np.ndarray) -> np.ndarray:
        """Expected gain of a task of each family with effect ``u`` (one per family)."""
        rate = np.clip(self.base + MEAN_GAIN + u[:, None] + self.task, 0.0, 1.0)
        return (rate - self.base).mean(axis=1)

    def gain(self, tau: float, rng: np.random.Generator) -> float:
        """Population gain: the expected family gain over u ~ N(0, tau^2)."""
        u = rng.normal(0.0, tau, 400) if tau else np.zeros(1)
        return float(self.family_gain(u).mean())


def _cell(
    rng: np.random.Generator, sizes: np.ndarray, tau: float, pop: _Population
) -> tuple[np.ndarray, np.ndarray, float]:
    """One cell: per-task differences, the family of each task, and the drawn families' gain."""
    u = rng.normal(0.0, tau, len(sizes))
    family = np.repeat(np.arange(len(sizes)), sizes)
    base = rng.uniform(0.2, 0.7, len(family))
    rate = np.clip(base + MEAN_GAIN + u[family] + rng.normal(0.0, TASK_SD, len(family)), 0, 1)
    diffs = (rng.binomial(TRIALS, rate) - rng.binomial(TRIALS, base)) / TRIALS
    drawn = float(np.sum(sizes * pop.family_gain(u)) / sizes.sum())
    return diffs, family, drawn


def _stratified(
    diffs: np.ndarray, family: np.ndarray, draws: int, rng: np.random.Generator
) -> tuple[float, float]:
    """Percentile interval resampling tasks within each family (family sizes kept)."""
    totals = np.zeros(draws)
    for f in np.unique(family):
        members = diffs[family == f]
        totals += members[rng.integers(0, len(members), (draws, len(members)))].sum(axis=1)
    return percentile_interval(totals / len(diffs), CONFIDENCE)


def _cr1(clusters: Clusters) -> tuple[float, float]:
    """gain +- t(G - 1) x the CR1 standard error (no leverage correction)."""
    g, total = len(clusters.ids), clusters.sizes.sum()
    gain = clusters.sums.sum() / total
    se = np.sqrt(g / (g - 1) * np.sum((clusters.sums - clusters.sizes * gain) ** 2)) / total
    half = student_t_quantile(CONFIDENCE, g - 1) * se
    return max(-1.0, gain - half), min(1.0, gain + half)


def _clusters(diffs: np.ndarray, family: np.ndarray, level: ClusterLevel) -> Clusters:
    """Sums and sizes of the task differences per cluster id in ``family``."""
    ids = np.unique(family)
    return Clusters(
        tuple(str(f) for f in ids),
        level,
        np.array([diffs[family == f].sum() for f in ids]),
        np.array([float(np.sum(family == f)) for f in ids]),
    )


def _intervals(
    diffs: np.ndarray, family: np.ndarray, draws: int, rng: np.random.Generator
) -> list[tuple[float, float]]:
    """The interval of each method in METHODS, in that order."""
    clusters = _clusters(diffs, family, "family")
    (boot,) = bootstrap_means([clusters], draws=draws, rng=rng)
    return [
        percentile_interval(boot, CONFIDENCE),
        _stratified(diffs, family, draws, rng),
        _cr1(clusters),
        cluster_t_interval(clusters, CONFIDENCE),
    ]


def _row(
    families: int, tau: float, reps: int, draws: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coverage of the population and of the drawn families' gain, and mean width, per method."""
    rng = np.random.default_rng([seed, families, int(tau * 1000)])
    pop = _Population(rng)
    truth = pop.gain(tau, rng)
    population, drawn, width = (np.zeros(len(METHODS)) for _ in range(3))
    for _ in range(reps):
        sizes = rng.integers(TASKS[0], TASKS[1] + 1, families)
        diffs, family, own = _cell(rng, sizes, tau, pop)
        for i, (lo, hi) in enumerate(_intervals(diffs, family, draws, rng)):
            population[i] += lo <= truth <= hi
            drawn[i] += lo <= own <= hi
            width[i] += hi - lo
    return population / reps, drawn / reps, width / reps


def _one_family_row(tasks: int, reps: int, draws: int, seed: int) -> np.ndarray:
    """Coverage of the family's gain by the percentile bootstrap and the t-interval over tasks."""
    rng = np.random.default_rng([seed, 1, tasks])
    pop = _Population(rng)
    covered = np.zeros(2)
    for _ in range(reps):
        diffs, _, own = _cell(rng, np.array([tasks]), 0.0, pop)
        clusters = _clusters(diffs, np.arange(tasks), "task")
        (boot,) = bootstrap_means([clusters], draws=draws, rng=rng)
        for i, (lo, hi) in enumerate(
            (percentile_interval(boot, CONFIDENCE), cluster_t_interval(clusters, CONFIDENCE))
        ):
            covered[i] += lo <= own <= hi
    return covered / reps


def main() -> None:
    """Print the coverage tables (population gain, drawn families' gain) and mean widths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000, help="replicates per row")
    parser.add_argument("--bootstrap", type=int, default=2000, help="bootstrap draws")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--families", type=int, nargs="+", default=FAMILIES, help="families per cell, one row each"
    )
    args = parser.parse_args()
    print(
        f"95% intervals, {args.reps} replicates per row, B = {args.bootstrap}, seed {args.seed}; "
        f"{TASKS[0]}-{TASKS[1]} tasks per family, k = {TRIALS}, mean gain {MEAN_GAIN}"
    )
    start = time.perf_counter()
    rows = {
        (g, tau): _row(g, tau, args.reps, args.bootstrap, args.seed)
        for g in args.families
        for tau in FAMILY_SDS
    }
    header = f"{'G':>2} {'tau':>5}  " + "".join(f"{m:>12}" for m in METHODS)
    for title, index in (
        ("coverage of the population gain", 0),
        ("coverage of the drawn families' gain", 1),
        ("mean width", 2),
    ):
        print(f"\n{title}\n{header}")
        for (g, tau), values in rows.items():
            print(f"{g:>2} {tau:>5.2f}  " + "".join(f"{v:>12.3f}" for v in values[index]))
    print(
        f"\none family: coverage of its gain, tasks are the clusters\n{'tasks':>5}  "
        f"{'task boot':>12}{'t':>12}"
    )
    for tasks in ONE_FAMILY_TASKS:
        covered = _one_family_row(tasks, args.reps, args.bootstrap, args.seed)
        print(f"{tasks:>5}  " + "".join(f"{v:>12.3f}" for v in covered))
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
