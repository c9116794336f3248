"""Fieller's interval of a ratio, adjusted for a gate that selected its denominator.

Retention T / S is reported only where the source gain S passed a gate, S >= c (its interval's
lower bound at least half its value: c = 2 t se_S). Among the cells that pass, S came out high
more often than not, so a plain Fieller interval is too low and covers too little (0.88-0.93 at
a true source gain of 0.2 over 24 tasks x 3 trials, far less at smaller sizes). This interval
conditions on the gate instead:

- **Polyhedral conditioning** (Lee, Sun, Sun & Taylor 2016). Testing rho = rho0 uses
  Z = T - rho0 S, whose mean is 0 under rho0 whatever the source gain. Decompose
  S = U + kappa Z with U independent of Z (kappa = Cov(S, Z) / Var Z); given U, the gate
  S >= c is a one-sided bound on Z, so under rho0 Z is a truncated t (the gain estimates'
  own standard errors and degrees of freedom standing in for the normal's known ones).
- **Hybrid with a projection** (Andrews, Kitagawa & McCloskey 2024). A purely conditional
  interval is unbounded for a cell that barely passed (nothing then excludes a source gain
  near 0). So rho0 is accepted only inside the unconditional Fieller interval at the larger
  t_beta = ``PROJECTION_SHARE`` x c / se_S (level 1 - beta), where Z is truncated to
  |Z| <= t_beta too, and the conditional test runs at level (alpha - beta) / (1 - beta).
  t_beta below the gate's multiple keeps the interval bounded at every cell that passed.
- **Two acceptance regions, either one accepting.** The equal-tailed conditional test rejects
  everything near the gate (there the observation sits at the edge of its truncated support)
  but covers best at small sizes; the highest-density region (|Z| small) always accepts
  T / S itself. rho0 is rejected only where both reject: a test of level at most alpha.

The interval is the hull of the accepted rho0. They are found on a grid over the directions of
(1, -rho0) in whitened coordinates, where Z runs smoothly from +t_beta to -t_beta, each end
refined by bisection: deterministic, standard library only, so ``vwt report verify``
recomputes it exactly. Chosen by simulation (``bench/stats_calibration.py``, table 6).
"""

from __future__ import annotations

import math

from reports._stats_student_t import student_t_cdf

PROJECTION_SHARE = 0.97
"""t_beta of the projection as a share of the gate's multiple c / se_S = 2 t(df_S): below 1, so
the projection is bounded at every cell that passed the gate. Chosen by simulation where the
gate opens in fewer than 1 cell of 200 (12 tasks x 3 trials or 24 x 1 at a true source gain
of 0.1): 0.9 covered 0.86-0.91 there, 0.95 0.92-0.93, 0.97 at least 0.936; 0.99 covered 0.941
with intervals 15% wider."""
GRID = 33
"""Directions tried before bisection; odd, so the middle one (T / S itself) is on the grid."""
BISECTION_STEPS = 44
"""Halvings of the grid step that place each end of the interval (to about 1e-14 radians)."""
MAX_CORRELATION = 1.0 - 1e-9
"""|Corr(T, S)| is clipped to this so the two gains' covariance matrix stays invertible."""


class _Test:
    """The conditional test of every rho0 of one cell, along the directions of the projection.

    Whitened coordinates: Y = (T, S) = L y with L L' the gains' covariance (Cholesky), so y has
    identity covariance. A direction ``u`` in (-delta, delta) tests the rho0 whose Z has unit
    variance and z = -R sin u (R = |y|): from +t_beta at -delta to -t_beta at +delta.
    """

    def __init__(
        self,
        estimates: tuple[float, float],
        variances: tuple[float, float],
        covariance: float,
        threshold: float,
        t_beta: float,
        df: int,
        alpha: float,
    ) -> None:
        target, source = estimates
        var_target, var_source = variances
        bound = MAX_CORRELATION * math.sqrt(var_target * var_source)
        c = min(max(covariance, -bound), bound)
        self.l11 = math.sqrt(var_target)
        self.l21 = c / self.l11
        self.l22 = math.sqrt(var_source - self.l21 * self.l21)
        y1 = target / self.l11
        y2 = (source - self.l21 * y1) / self.l22
        self.radius = math.hypot(y1, y2)
        self.angle = math.atan2(y2, y1) + math.pi / 2.0
        # The gate's margin: S - c, the room the truncation leaves (>= 0 for a cell that passed).
        self.margin = max(source - threshold, 0.0)
        self.t_beta, self.df = t_beta, df
        self.tail = student_t_cdf(-t_beta, df)  # beta / 2
        beta = 2.0 * self.tail
        self.alpha = (alpha - beta) / (1.0 - beta)
        self.delta = math.asin(min(t_beta / self.radius, 1.0))

    def ratio(self, u: float) -> float:
        """The rho0 that direction ``u`` tests."""
        phi = self.angle + u
        e2 = math.sin(phi) / self.l22
        e1 = (math.cos(phi) - self.l21 * e2) / self.l11
        return -e2 / e1

    def _cdf(self, x: float) -> float:
        if x >= self.t_beta:
            return 1.0 - self.tail
        if x <= -self.t_beta:
            return self.tail
        return student_t_cdf(x, self.df)

    def accepts(self, u: float) -> bool:
        """Whether the conditional test of direction ``u``'s rho0 accepts it."""
        z = -self.radius * math.sin(u)
        if abs(z) >= self.t_beta:
            return False
        phi = self.angle + u
        kappa = self.l21 * math.cos(phi) + self.l22 * math.sin(phi)
        lo, hi = -self.t_beta, self.t_beta
        if kappa > 0.0:
            lo = max(lo, z - self.margin / kappa)
        elif kappa < 0.0:
            hi = min(hi, z - self.margin / kappa)
        f_lo, f_hi, f_z = self._cdf(lo), self._cdf(hi), self._cdf(z)
        mass = f_hi - f_lo
        if mass <= 0.0:
            return True  # no room left to reject in (z is the truncation's only point)
        below = (f_z - f_lo) / mass
        if self.alpha / 2.0 <= below <= 1.0 - self.alpha / 2.0:
            return True  # equal-tailed
        a = abs(z)
        inner = self._cdf(min(a, hi)) - self._cdf(max(-a, lo))
        return (mass - max(inner, 0.0)) / mass >= self.alpha  # P(|Z| >= |z|): densest region

    def edge(self, inside: float, outside: float) -> float:
        """Bisection between an accepted and a rejected direction: the last accepted one."""
        for _ in range(BISECTION_STEPS):
            middle = (inside + outside) / 2.0
            if self.accepts(middle):
                inside = middle
            else:
                outside = middle
        return inside


def selective_fieller(
    estimates: tuple[float, float],
    variances: tuple[float, float],
    covariance: float,
    threshold: float,
    t_beta: float,
    df: int,
    confidence: float,
) -> tuple[float, float]:
    """The gate-adjusted interval of target / source, for a source that passed S >= threshold.

    ``estimates`` = (T, S), ``variances`` their squared standard errors, ``covariance`` theirs;
    ``t_beta`` the projection's t (it must be below S / se_S) and ``df`` the degrees of freedom
    of every t. The caller checks that beta = P(|T_df| > t_beta) is below 1 - ``confidence``.
    """
    test = _Test(estimates, variances, covariance, threshold, t_beta, df, alpha=1.0 - confidence)
    step = 2.0 * test.delta / GRID
    grid = [-test.delta + step * (j + 0.5) for j in range(GRID)]
    # Never empty: the middle direction (z = 0, rho0 = T / S) has the smallest |Z| there is.
    accepted = [j for j, u in enumerate(grid) if test.accepts(u)]
    first, last = accepted[0], accepted[-1]
    low = test.edge(grid[first], grid[first] - step)
    high = test.edge(grid[last], grid[last] + step)
    ends = sorted((test.ratio(low), test.ratio(high)))
    return ends[0], ends[1]
