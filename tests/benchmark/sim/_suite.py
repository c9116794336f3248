"""Running the counterfactual suite (``counterfactuals.py``): paired arms and their verdicts.

A case is three arms on the same task instances and trial seeds: no artifacts (the baseline),
the reference artifact and the counterfactual one. Gains are paired differences of success
against the baseline. Arms are remembered per process, so cases that share a reference or a
baseline run it once.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from benchmark import TrialResult, family, interface_version
from benchmark.harness import AgentArtifacts
from tests.benchmark.sim._experiment import Arm, run_arm
from tests.benchmark.sim.counterfactuals import Case

FULL = 48
"""Paired trials per arm at full size (the issue's "Done when")."""
SMALL = 24
"""Paired trials per arm when the suite runs as a test."""


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


def arm(case: Case, which: str, trials: int, model: str) -> Arm:
    """One of ``case``'s arms: ``baseline``, ``reference`` or ``counterfactual``."""
    artifacts = {
        "baseline": AgentArtifacts(),
        "reference": case.reference,
        "counterfactual": case.artifacts,
    }[which]
    label = case.id if which == "counterfactual" else which
    return _arm(case.family, case.kinds, artifacts.model_dump_json(), label, trials, model)


def aa_gain(fam: str, kinds: tuple[str, ...], trials: int, model: str) -> float:
    """The gain of a no-artifacts arm under another label: sampling noise alone, the yardstick
    for the cases whose gain should be 0."""
    empty = AgentArtifacts().model_dump_json()
    base = _arm(fam, kinds, empty, "baseline", trials, model)
    return _arm(fam, kinds, empty, "a/a", trials, model).success - base.success


def _calls(result: TrialResult, tool: str) -> bool:
    return any(
        tc["function"]["name"] == tool
        for m in result.run.messages
        for tc in m.get("tool_calls") or []
    )


def _errors(result: TrialResult, name: str) -> bool:
    """Whether a tool result of the trial is an error that names ``name``."""
    return any(
        m.get("role") == "tool"
        and str(m.get("content", "")).startswith("error")
        and name in str(m.get("content", ""))
        for m in result.run.messages
    )


def _rate(a: Arm, hit: Callable[[TrialResult], bool]) -> float:
    return sum(hit(r) for r in a.results) / max(1, len(a.results))


@dataclass(frozen=True)
class Outcome:
    """What one case measured."""

    case: Case
    trials: int
    gain_ref: float
    gain_cf: float
    ref_rate: float | None = None  # forbid: share of reference trials calling the target
    cf_rate: float | None = None  # forbid: the same in the counterfactual arm
    error_rate: float | None = None  # impossible: share of trials with a tool error naming it

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


def run_case(case: Case, trials: int, model: str = "acme-2") -> Outcome:
    """``case`` measured on ``trials`` paired trials per arm of sim model ``model``."""
    base = arm(case, "baseline", trials, model)
    ref = arm(case, "reference", trials, model)
    cf = arm(case, "counterfactual", trials, model)
    broken = [a.outcomes["invalid"] for a in (base, ref, cf) if a.outcomes["invalid"]]
    if broken:
        raise RuntimeError(f"{case.id}: invalid trials (infrastructure), {broken}")
    extra: dict[str, float] = {}
    if case.relation == "forbid" and case.target:
        tool = case.target
        extra = {
            "ref_rate": _rate(ref, lambda r: _calls(r, tool)),
            "cf_rate": _rate(cf, lambda r: _calls(r, tool)),
        }
    if case.relation == "impossible" and case.target:
        name = case.target
        extra = {"error_rate": _rate(cf, lambda r: _errors(r, name))}
    return Outcome(case, trials, ref.success - base.success, cf.success - base.success, **extra)


def verdict(o: Outcome, full: bool) -> tuple[bool, str]:
    """Whether ``o`` holds its relation: the issue's criteria at full size, wider margins
    robust to noise at the test's size otherwise. Returns (holds, the criterion)."""
    relation, ref, cf = o.case.relation, o.gain_ref, o.gain_cf
    if relation == "same":
        if full:
            return cf >= 0.8 * ref, "gain >= 80% of ref"
        return cf >= ref - 0.15, "gain >= ref - 0.15"
    if relation == "opposite":
        if full:
            return cf < 0 and cf < ref, "gain < 0"
        return cf <= min(0.0, ref) - 0.1, "gain <= min(0, ref) - 0.10"
    if relation in ("stuffing", "irrelevant", "scope"):
        bound = 0.05 if full else 0.15
        return abs(cf) <= bound, f"|gain| <= {bound:.2f}"
    if relation == "provenance":
        bound = 0.05 if full else 0.1
        return cf <= bound, f"gain <= {bound:.2f}"
    if relation == "unlearned":
        bound = -0.05 if full else -0.15
        return cf >= bound, f"gain >= {bound:.2f}"
    if relation == "forbid":
        s = o.suppression
        bound = 0.9 if full else 0.75
        return s is not None and s >= bound, f"suppressed >= {bound:.0%}"
    if relation == "impossible":
        bound = 0.6 if full else 0.5
        rate = o.error_rate or 0.0
        return rate >= bound and cf <= ref, f"error >= {bound:.0%}, gain <= ref"
    raise ValueError(f"unknown relation {relation!r}")


def row(o: Outcome, full: bool) -> dict[str, object]:
    """``o`` as one row of the suite's table."""
    ok, criterion = verdict(o, full)
    return {
        "id": o.case.id,
        "family": o.case.family,
        "form": o.case.form,
        "relation": o.case.relation,
        "ref": round(o.gain_ref, 3),
        "gain": round(o.gain_cf, 3),
        "measure": o.measure(),
        "criterion": criterion,
        "holds": ok,
    }


def dumps(rows: list[dict[str, object]]) -> str:
    """The rows as JSON lines."""
    return "\n".join(json.dumps(r) for r in rows)
