"""The research family, known to the registry for one test (the lead registers it for good):
``family()``, ``family_for_env()``, ``serve()`` and the sim's packs find it."""

from __future__ import annotations

import pytest

import benchmark.sim._pack
from benchmark import FAMILIES
from benchmark.research import ResearchEvidence


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> ResearchEvidence:
    """The family, registered until the test ends (its sim pack too)."""
    fam = ResearchEvidence()
    monkeypatch.setitem(FAMILIES, fam.id, fam)
    monkeypatch.setattr(benchmark.sim._pack, "_PACKS", dict(benchmark.sim._pack._PACKS))
    return fam
