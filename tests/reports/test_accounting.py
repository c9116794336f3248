"""When a release may be built: every phase complete, and clean or its invalids accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from reports._accounting import require_complete
from reports.errors import ReportError
from runner import Accounting

HOME = Path("/srv/cycle")


def acc(
    phase: str = "frozen",
    *,
    valid: int = 8,
    invalid: int = 0,
    missing: int = 0,
    unexpected: int = 0,
) -> Accounting:
    """An accounting of ``phase`` with these counts."""
    return Accounting(
        phase=phase,
        expected=valid + invalid + missing,
        observed=valid + invalid,
        valid=valid,
        invalid=invalid,
        missing=missing,
        unexpected=unexpected,
        outcomes={"success": valid, "invalid": invalid},
    )


def test_clean_phases_pass_with_or_without_acceptance() -> None:
    clean = [acc(), acc("adapted", valid=0)]
    assert all(a.clean for a in clean)
    for accept in (False, True):
        require_complete(clean, HOME, accept_invalid=accept)  # raises if refused
    # the counterfactual: the same phases with one invalid trial pass only when accepted
    unclean = [acc(invalid=1), acc("adapted", valid=0)]
    require_complete(unclean, HOME, accept_invalid=True)
    with pytest.raises(ReportError, match="1 of 9 planned frozen trials are invalid"):
        require_complete(unclean, HOME, accept_invalid=False)


def test_missing_trials_are_refused_first_and_never_accepted() -> None:
    for accept in (False, True):
        with pytest.raises(ReportError) as e:
            require_complete(
                [acc(invalid=2), acc("adapted", valid=1, invalid=1, missing=3)],
                HOME,
                accept_invalid=accept,
            )
        assert str(e.value) == (
            "cannot build the release: the adapted phase is incomplete: 3 of 5 planned "
            "trials missing (1 valid, 1 invalid)"
        )
        assert e.value.hint is not None
        assert "`vwt run adapted --home /srv/cycle`" in e.value.hint
        assert "missing trials cannot be accepted" in e.value.hint


def test_unexpected_trials_are_refused() -> None:
    with pytest.raises(ReportError, match="incomplete: 0 of 8 planned trials missing, 2 stored"):
        require_complete([acc(unexpected=2)], HOME, accept_invalid=True)


def test_invalid_trials_are_refused_unless_accepted() -> None:
    with pytest.raises(ReportError) as e:
        require_complete([acc(invalid=3)], HOME, accept_invalid=False)
    assert str(e.value) == "cannot build the release: 3 of 11 planned frozen trials are invalid"
    assert e.value.hint is not None
    assert "`vwt run frozen --home /srv/cycle` (it retries invalid trials)" in e.value.hint
    assert "`vwt report build --accept-invalid`" in e.value.hint
    require_complete([acc(invalid=3)], HOME, accept_invalid=True)
