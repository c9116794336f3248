"""The counterfactual suite as a gate (issue 25, item 6), at a size a test can afford.

Every case of ``counterfactuals.py`` runs three paired arms of ``sim/acme-2`` (no artifacts,
the reference, the counterfactual) on the same tasks and trial seeds, and must move the way its
relation says, with margins that hold at this size (``_suite.verdict``). The full-size table
(48 paired trials per arm, the issue's criteria) is printed by ``bench/sim_counterfactuals.py``
and kept in docs/sim.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.benchmark.sim._suite import SMALL, row, run_case, verdict
from tests.benchmark.sim.counterfactuals import RELATIONS, Case, cases

pytestmark = pytest.mark.slow

DOC = Path(__file__).parents[3] / "docs" / "sim.md"


def documented_misses() -> frozenset[str]:
    """The cases docs/sim.md's table reports the sim as failing at full size (its last column
    **no**), or holding only within noise (its point estimate misses): known weaknesses of
    the reader, or cases at the edge of their criterion, expected to fail here too (noisier at
    this size), never hidden."""
    last = r"(?:\*\*no\*\*|within noise)"
    rows = re.findall(rf"^\| ([a-z0-9-]+) \|.*\| {last} \|$", DOC.read_text(), re.M)
    return frozenset(rows)


def test_the_suite_covers_every_family_form_and_relation() -> None:
    every = cases()
    assert len(every) >= 60
    families = {c.family for c in every}
    assert families == {"support_ops", "reconciliation", "research_evidence", "code_maint"}
    for fam in families:
        assert {c.form for c in every if c.family == fam} == {"recipe", "skill", "episode"}, fam
    assert {c.relation for c in every} == set(RELATIONS)
    assert len({c.id for c in every}) == len(every)


def test_the_documented_misses_are_cases_of_the_suite() -> None:
    misses = documented_misses()
    assert misses, "docs/sim.md's table lost its holds column"
    assert misses <= {c.id for c in cases()}


def _marked(case: Case) -> object:
    if case.id not in documented_misses():
        return case
    why = "a documented miss, or a hold within noise only, at full size (docs/sim.md)"
    return pytest.param(case, marks=pytest.mark.xfail(reason=why, strict=False))


@pytest.mark.parametrize("case", [_marked(c) for c in cases()], ids=lambda c: c.id)
def test_counterfactual(case: Case) -> None:
    outcome = run_case(case, SMALL)
    holds, _ = verdict(outcome, full=False)
    assert holds, row(outcome, full=False)
