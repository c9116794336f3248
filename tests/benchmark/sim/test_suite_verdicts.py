"""The counterfactual bench's verdicts (``_suite``): a case holds at full size when the 95 %
bootstrap interval of its deciding number is consistent with its criterion — decided by the
data, both ways, on synthetic trials (no model runs)."""

from __future__ import annotations

from dataclasses import replace

from tests.benchmark.sim._suite import Outcome, Trial, consistent, row
from tests.benchmark.sim.counterfactuals import Case, cases


def _trials(successes: int, n: int, calls: frozenset[str] = frozenset()) -> tuple[Trial, ...]:
    return tuple(Trial(i < successes, calls, ()) for i in range(n))


def _case(relation: str, target: str | None = None) -> Case:
    return replace(next(c for c in cases() if c.relation == relation), target=target)


def test_a_null_case_holds_when_its_interval_reaches_the_band_and_not_when_it_is_far() -> None:
    stuffing = _case("stuffing")
    base = _trials(96, 192)
    near = Outcome(stuffing, 192, base, base, _trials(108, 192))  # +0.06, within noise
    far = Outcome(stuffing, 192, base, base, _trials(134, 192))  # +0.20
    assert consistent(near) and not consistent(far)
    r = row(near, full=True)
    assert r["holds"] and not r["point"] and float(r["low"]) <= 0.05 <= float(r["high"])  # type: ignore[arg-type]


def test_a_paraphrase_holds_by_its_share_of_the_reference_gain() -> None:
    same = _case("same")
    base, ref = _trials(96, 192), _trials(172, 192)  # reference +0.40
    assert consistent(Outcome(same, 192, base, ref, _trials(160, 192)))  # 84 % of it
    assert not consistent(Outcome(same, 192, base, ref, _trials(120, 192)))  # 32 % of it


def test_a_prohibition_holds_by_the_interval_of_its_suppression() -> None:
    forbid = _case("forbid", target="close_ticket")
    called = frozenset({"close_ticket"})
    ref = _trials(0, 192, called)
    base = _trials(0, 192)

    def cf(leaks: int) -> tuple[Trial, ...]:
        return tuple(Trial(False, called if i < leaks else frozenset(), ()) for i in range(192))

    assert consistent(Outcome(forbid, 192, base, ref, cf(22)))  # 89 % suppressed
    assert not consistent(Outcome(forbid, 192, base, ref, cf(60)))  # 69 %
