"""Running the counterfactual suite (``counterfactuals.py``): paired arms and their verdicts.

A case is three arms on the same task instances and trial seeds: no artifacts (the baseline),
the reference artifact and the counterfactual one. Gains are paired differences of success
against the baseline. Arms are remembered per process, so cases that share a reference or a
baseline run it once; the bench runs the distinct arms of many cases in worker processes
(``ArmKey``, ``trials_of``) and hands them to ``run_case``.

At full size each case's deciding number comes with a 95 % percentile bootstrap interval
(10,000 resamples of the paired tasks, seeded by the case), and a case holds when that interval
is consistent with the issue's criterion (``verdict``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from benchmark import TrialResult, family, interface_version, stable_int
from benchmark.harness import AgentArtifacts
from tests.benchmark.sim._experiment import Arm, run_arm
from tests.benchmark.sim.counterfactuals import Case

FULL = 48
"""Paired trials per arm at full size (the issue's "Done when")."""
SMALL = 24
"""Paired trials per arm when the suite runs as a test."""
RESAMPLES = 10_000
"""Bootstrap resamples of the paired tasks behind every interval."""
CONFIDENCE = 0.95


OPT_DIR = Path(__file__).resolve().parents[3] / "scripts" / "sandbox-image"
"""The sandbox image's library directory: code maintenance's backend runs the project's tests
with the pinned library from it, as in a sandbox."""


@contextmanager
def _sandbox_opt() -> Iterator[None]:
    before = os.environ.get("VWT_SANDBOX_OPT")
    os.environ["VWT_SANDBOX_OPT"] = str(OPT_DIR)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("VWT_SANDBOX_OPT", None)
        else:
            os.environ["VWT_SANDBOX_OPT"] = before


@dataclass(frozen=True)
class Trial:
    """What the verdicts need of one trial: success, the tools called, the tool errors."""

    success: bool
    calls: frozenset[str]
    errors: tuple[str, ...]
    invalid: bool = False

    @classmethod
    def of(cls, result: TrialResult) -> Trial:
        """The summary of one trial's result."""
        messages = result.run.messages
        return cls(
            success=result.outcome.value == "success",
            calls=frozenset(
                tc["function"]["name"] for m in messages for tc in m.get("tool_calls") or []
            ),
            errors=tuple(
                str(m.get("content", ""))
                for m in messages
                if m.get("role") == "tool" and str(m.get("content", "")).startswith("error")
            ),
            invalid=result.outcome.value == "invalid",
        )


ArmKey = tuple[str, tuple[str, ...], str, str, int, str]
"""(family, kinds, artifacts as JSON, arm label, paired trials, model): one arm of trials."""


@cache
def _arm(
    fam: str, kinds: tuple[str, ...], artifacts: str, arm: str, trials: int, model: str
) -> Arm:
    f = family(fam)
    with _sandbox_opt():
        return run_arm(
            model,
            fam=f,
            interface=interface_version(f.env_id, f"{f.env_id}@1"),
            artifacts=AgentArtifacts.model_validate_json(artifacts),
            tasks=trials,
            kinds=kinds,
            arm=arm,
        )


def trials_of(key: ArmKey) -> tuple[Trial, ...]:
    """The trials of the arm ``key`` names, run in this process (once per process)."""
    return tuple(Trial.of(r) for r in _arm(*key).results)


def arm_key(case: Case, which: str, trials: int, model: str) -> ArmKey:
    """The arm ``which`` (``baseline``, ``reference`` or ``counterfactual``) of ``case``."""
    artifacts = {
        "baseline": AgentArtifacts(),
        "reference": case.reference,
        "counterfactual": case.artifacts,
    }[which]
    label = case.id if which == "counterfactual" else which
    return (case.family, case.kinds, artifacts.model_dump_json(), label, trials, model)


def aa_key(fam: str, kinds: tuple[str, ...], trials: int, model: str) -> ArmKey:
    """A no-artifacts arm under another label than the baseline's: sampling noise alone."""
    return (fam, kinds, AgentArtifacts().model_dump_json(), "a/a", trials, model)


def baseline_key(fam: str, kinds: tuple[str, ...], trials: int, model: str) -> ArmKey:
    """The baseline arm of ``fam``'s ``kinds``."""
    return (fam, kinds, AgentArtifacts().model_dump_json(), "baseline", trials, model)


def keys_of(case: Case, trials: int, model: str) -> list[ArmKey]:
    """The three arms ``case`` compares."""
    return [arm_key(case, w, trials, model) for w in ("baseline", "reference", "counterfactual")]


Interval = tuple[float, float]


def bootstrap(stat: Callable[[np.ndarray], np.ndarray], columns: np.ndarray, seed: int) -> Interval:
    """The percentile bootstrap interval of ``stat`` over resampled rows (paired tasks) of
    ``columns`` (tasks × measures); ``stat`` maps a stack of resamples (B × tasks × measures)
    to B values."""
    rng = np.random.default_rng(seed)
    n = columns.shape[0]
    rows = rng.integers(0, n, size=(RESAMPLES, n))
    values = stat(columns[rows])
    values = values[np.isfinite(values)]
    if values.size == 0:
        return (float("nan"), float("nan"))
    tail = 100 * (1 - CONFIDENCE) / 2
    lo, hi = np.percentile(values, [tail, 100 - tail])
    return (float(lo), float(hi))


@dataclass(frozen=True)
class Outcome:
    """What one case measured, trial by trial (``base[i]``, ``ref[i]`` and ``cf[i]`` are the
    same task and trial seed in the three arms)."""

    case: Case
    trials: int
    base: tuple[Trial, ...]
    ref: tuple[Trial, ...]
    cf: tuple[Trial, ...]

    def _success(self) -> np.ndarray:
        return np.array(
            [
                [b.success, r.success, c.success]
                for b, r, c in zip(self.base, self.ref, self.cf, strict=True)
            ],
            dtype=float,
        )

    @property
    def gain_ref(self) -> float:
        """The reference's gain over the baseline."""
        s = self._success()
        return float(s[:, 1].mean() - s[:, 0].mean())

    @property
    def gain_cf(self) -> float:
        """The counterfactual's gain over the baseline."""
        s = self._success()
        return float(s[:, 2].mean() - s[:, 0].mean())

    def _calls(self) -> np.ndarray:
        tool = str(self.case.target)
        return np.array(
            [[tool in r.calls, tool in c.calls] for r, c in zip(self.ref, self.cf, strict=True)]
        )

    @property
    def ref_rate(self) -> float | None:
        """forbid: the share of reference trials calling the target."""
        return float(self._calls()[:, 0].mean()) if self.case.target else None

    @property
    def cf_rate(self) -> float | None:
        """forbid: the share of counterfactual trials calling the target."""
        return float(self._calls()[:, 1].mean()) if self.case.target else None

    def _errors(self) -> np.ndarray:
        name = str(self.case.target)
        return np.array([[any(name in e for e in c.errors)] for c in self.cf], dtype=float)

    @property
    def error_rate(self) -> float | None:
        """impossible: the share of counterfactual trials with a tool error naming the target."""
        return float(self._errors().mean()) if self.case.target else None

    @property
    def suppression(self) -> float | None:
        """forbid: 1 - (counterfactual rate / reference rate)."""
        if self.ref_rate is None or self.cf_rate is None or self.ref_rate == 0:
            return None
        return 1 - self.cf_rate / self.ref_rate

    def measure(self) -> str:
        """The case's deciding number, as text."""
        relation = self.case.relation
        if relation == "forbid":
            s = self.suppression
            return (
                f"suppressed {s:.0%} ({self.ref_rate:.2f}->{self.cf_rate:.2f})"
                if s is not None
                else "n/a"
            )
        if relation == "impossible":
            return f"tool error in {self.error_rate:.0%}"
        if relation == "same" and self.gain_ref > 0:
            return f"{self.gain_cf / self.gain_ref:.0%} of ref"
        return f"gain {self.gain_cf:+.2f}"

    def interval(self) -> tuple[str, Interval]:
        """The deciding statistic's name and its 95 % bootstrap interval over the paired
        tasks: ``cf - 0.8 ref`` (gains) for ``same``, the suppression for ``forbid``, the
        error rate for ``impossible``, else the counterfactual's gain."""
        seed = stable_int("counterfactual interval", self.case.id, self.trials)
        relation = self.case.relation
        if relation == "forbid" and self.case.target:

            def suppressed(x: np.ndarray) -> np.ndarray:
                ref = x[..., 0].mean(axis=-1)
                with np.errstate(divide="ignore", invalid="ignore"):
                    return np.where(ref > 0, 1 - x[..., 1].mean(axis=-1) / ref, np.nan)

            return "suppression", bootstrap(suppressed, self._calls().astype(float), seed)
        if relation == "impossible" and self.case.target:
            return "error rate", bootstrap(lambda x: x[..., 0].mean(axis=-1), self._errors(), seed)
        s = self._success()
        if relation == "same":
            weights = np.array([-0.2, -0.8, 1.0])  # (cf - base) - 0.8 (ref - base)
            return "gain - 0.8 ref", bootstrap(lambda x: (x @ weights).mean(axis=-1), s, seed)
        return "gain", bootstrap(lambda x: (x[..., 2] - x[..., 0]).mean(axis=-1), s, seed)

    def below_ref(self) -> Interval:
        """The interval of the counterfactual's success minus the reference's."""
        seed = stable_int("counterfactual below ref", self.case.id, self.trials)
        s = self._success()
        return bootstrap(lambda x: (x[..., 2] - x[..., 1]).mean(axis=-1), s, seed)


def run_case(
    case: Case,
    trials: int,
    model: str = "acme-2",
    arms: Mapping[ArmKey, tuple[Trial, ...]] | None = None,
) -> Outcome:
    """``case`` measured on ``trials`` paired trials per arm of sim model ``model`` (its arms
    taken from ``arms`` where given, else run here)."""
    base, ref, cf = (
        arms[k] if arms is not None and k in arms else trials_of(k)
        for k in keys_of(case, trials, model)
    )
    broken = [sum(t.invalid for t in a) for a in (base, ref, cf)]
    if any(broken):
        raise RuntimeError(f"{case.id}: invalid trials (infrastructure), {broken}")
    return Outcome(case, trials, base, ref, cf)


def _criterion(o: Outcome) -> tuple[bool, str]:
    """The issue's criterion on ``o``'s point estimates."""
    relation, ref, cf = o.case.relation, o.gain_ref, o.gain_cf
    if relation == "same":
        return cf >= 0.8 * ref, "gain >= 80% of ref"
    if relation == "opposite":
        return cf < 0 and cf < ref, "gain < 0, below ref"
    if relation in ("stuffing", "irrelevant", "scope"):
        return abs(cf) <= 0.05, "|gain| <= 0.05"
    if relation == "provenance":
        return cf <= 0.05, "gain <= 0.05"
    if relation == "unlearned":
        return cf >= -0.05, "gain >= -0.05"
    if relation == "forbid":
        s = o.suppression
        return s is not None and s >= 0.9, "suppressed >= 90%"
    if relation == "impossible":
        rate = o.error_rate or 0.0
        return rate >= 0.6 and cf <= ref, "error >= 60%, gain <= ref"
    raise ValueError(f"unknown relation {relation!r}")


def consistent(o: Outcome) -> bool:
    """Whether ``o``'s 95 % interval is consistent with the issue's criterion: it reaches
    the side the criterion asks for."""
    relation = o.case.relation
    _, (lo, hi) = o.interval()
    if relation == "same":
        return hi >= 0
    if relation == "opposite":
        return lo < 0 and o.below_ref()[0] < 0
    if relation in ("stuffing", "irrelevant", "scope"):
        return lo <= 0.05 and hi >= -0.05
    if relation == "provenance":
        return lo <= 0.05
    if relation == "unlearned":
        return hi >= -0.05
    if relation == "forbid":
        return hi >= 0.9
    if relation == "impossible":
        return hi >= 0.6 and o.below_ref()[0] <= 0
    raise ValueError(f"unknown relation {relation!r}")


def verdict(o: Outcome, full: bool) -> tuple[bool, str]:
    """Whether ``o`` holds its relation, and the criterion: at full size the issue's
    criterion, held when the 95 % interval is consistent with it (``consistent``); at the
    test's size wider margins robust to noise."""
    if full:
        _, criterion = _criterion(o)
        return consistent(o), criterion
    relation, ref, cf = o.case.relation, o.gain_ref, o.gain_cf
    if relation == "same":
        return cf >= ref - 0.15, "gain >= ref - 0.15"
    if relation == "opposite":
        return cf <= min(0.0, ref) - 0.1, "gain <= min(0, ref) - 0.10"
    if relation in ("stuffing", "irrelevant", "scope"):
        return abs(cf) <= 0.15, "|gain| <= 0.15"
    if relation == "provenance":
        return cf <= 0.1, "gain <= 0.10"
    if relation == "unlearned":
        return cf >= -0.15, "gain >= -0.15"
    if relation == "forbid":
        s = o.suppression
        return s is not None and s >= 0.75, "suppressed >= 75%"
    if relation == "impossible":
        rate = o.error_rate or 0.0
        return rate >= 0.5 and cf <= ref, "error >= 50%, gain <= ref"
    raise ValueError(f"unknown relation {relation!r}")


def row(o: Outcome, full: bool) -> dict[str, object]:
    """``o`` as one row of the suite's table: at full size with the deciding statistic's
    interval, and ``point`` (whether the point estimate alone meets the criterion)."""
    ok, criterion = verdict(o, full)
    out: dict[str, object] = {
        "id": o.case.id,
        "family": o.case.family,
        "form": o.case.form,
        "relation": o.case.relation,
        "trials": o.trials,
        "ref": round(o.gain_ref, 3),
        "gain": round(o.gain_cf, 3),
        "measure": o.measure(),
        "criterion": criterion,
        "holds": ok,
    }
    if full:
        name, (lo, hi) = o.interval()
        out |= {"statistic": name, "low": round(lo, 3), "high": round(hi, 3)}
        out["point"] = _criterion(o)[0]
    return out


def aa_gain(
    fam: str,
    kinds: tuple[str, ...],
    trials: int,
    model: str,
    arms: Mapping[ArmKey, tuple[Trial, ...]] | None = None,
) -> tuple[float, Interval]:
    """The gain of a no-artifacts arm under another label, and its 95 % interval: sampling
    noise alone, the yardstick for the cases whose gain should be 0."""
    keys = [baseline_key(fam, kinds, trials, model), aa_key(fam, kinds, trials, model)]
    base, aa = (arms[k] if arms is not None and k in arms else trials_of(k) for k in keys)
    s = np.array([[b.success, a.success] for b, a in zip(base, aa, strict=True)], dtype=float)
    seed = stable_int("a/a interval", fam, kinds, trials)
    gain = float(s[:, 1].mean() - s[:, 0].mean())
    return gain, bootstrap(lambda x: (x[..., 1] - x[..., 0]).mean(axis=-1), s, seed)


def dumps(rows: list[dict[str, object]]) -> str:
    """The rows as JSON lines."""
    return "\n".join(json.dumps(r) for r in rows)
