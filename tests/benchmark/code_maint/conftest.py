"""The code-maintenance family, known to the registry for one test (the lead registers it for
good), and backends started the way a sandbox starts them: the sandbox helper beside the
server, the image's library directory named by ``VWT_SANDBOX_OPT``."""

from __future__ import annotations

from pathlib import Path

import pytest

import benchmark
import benchmark.sim._pack
import tests.benchmark._helpers
from benchmark import FAMILIES, Family, backend_files
from benchmark.code_maint import CodeMaintenance

OPT_DIR = Path(benchmark.__file__).resolve().parent.parent / "scripts" / "sandbox-image"
SANDBOX_EXEC = Path(benchmark.__file__).with_name("_sandbox_exec.py")


@pytest.fixture(scope="session")
def fam() -> CodeMaintenance:
    """One family instance for the session (it caches reference end states)."""
    return CodeMaintenance()


@pytest.fixture
def registered(fam: CodeMaintenance, monkeypatch: pytest.MonkeyPatch) -> CodeMaintenance:
    """The family, registered until the test ends (its sim pack too); backend servers that
    tests start get the sandbox helper beside them and the library directory."""

    def files(family: Family) -> dict[str, Path]:
        return {**backend_files(family), "vwt/_sandbox_exec.py": SANDBOX_EXEC}

    monkeypatch.setitem(FAMILIES, fam.id, fam)
    monkeypatch.setattr(benchmark.sim._pack, "_PACKS", dict(benchmark.sim._pack._PACKS))
    monkeypatch.setattr(tests.benchmark._helpers, "backend_files", files)
    monkeypatch.setenv("VWT_SANDBOX_OPT", str(OPT_DIR))
    return fam
