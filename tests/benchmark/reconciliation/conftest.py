"""The reconciliation family, known to the registry for one test (the lead registers it for
good): ``family()``, ``family_for_env()``, ``serve()`` and the sim's packs find it."""

from __future__ import annotations

import pytest

import benchmark.sim._pack
from benchmark import FAMILIES
from benchmark.reconciliation import Reconciliation


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> Reconciliation:
    """The family, registered until the test ends (its sim pack too)."""
    fam = Reconciliation()
    monkeypatch.setitem(FAMILIES, fam.id, fam)
    monkeypatch.setattr(benchmark.sim._pack, "_PACKS", dict(benchmark.sim._pack._PACKS))
    return fam
