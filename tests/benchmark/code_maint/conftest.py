"""The code-maintenance family, and backends started the way a sandbox starts them: the image's
library directory named by ``VWT_SANDBOX_OPT``."""

from __future__ import annotations

from pathlib import Path

import pytest

import benchmark
import benchmark.sim._pack
from benchmark import FAMILIES
from benchmark.code_maint import CodeMaintenance

OPT_DIR = Path(benchmark.__file__).resolve().parent.parent / "scripts" / "sandbox-image"
SANDBOX_EXEC = Path(benchmark.__file__).with_name("_sandbox_exec.py")


@pytest.fixture(scope="session")
def fam() -> CodeMaintenance:
    """One family instance for the session (it caches reference end states)."""
    return CodeMaintenance()


@pytest.fixture
def registered(fam: CodeMaintenance, monkeypatch: pytest.MonkeyPatch) -> CodeMaintenance:
    """The family, registered with this session's instance (its sim pack too); backend servers
    that tests start get the library directory."""
    monkeypatch.setitem(FAMILIES, fam.id, fam)
    monkeypatch.setattr(benchmark.sim._pack, "_PACKS", dict(benchmark.sim._pack._PACKS))
    monkeypatch.setenv("VWT_SANDBOX_OPT", str(OPT_DIR))
    return fam
