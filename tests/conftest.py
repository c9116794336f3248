"""Session-wide test setup: offline guard, litellm offline price map, one Ray runtime."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests import _netguard

if TYPE_CHECKING:
    from benchmark.sim import SimServer

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
# pytest-xdist's workers get COLUMNS=80, which Rich's consoles (made at import) would keep
# for good: as in a serial run, the width is the default or what a test's runner sets.
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
# Ray workers inherit the environment: let them import tests._netguard for their setup hook.
_ROOT = str(Path(__file__).resolve().parents[1])
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, os.environ.get("PYTHONPATH")) if p)

_netguard.install()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules with a ``slow`` test first, each module's tests kept together and in order.

    Under ``--dist loadscope`` a module is one unit of work for one worker (its module
    fixtures are built once) and units go out in this order: the long ones starting first
    keeps one from starting last and holding up the end. Nothing depends on the order.
    """

    def module(item: pytest.Item) -> str:
        return item.nodeid.split("::", 1)[0]

    slow = {module(item) for item in items if item.get_closest_marker("slow")}
    order = {id(item): i for i, item in enumerate(items)}
    items.sort(key=lambda item: (module(item) not in slow, order[id(item)]))


_MODULE_SECONDS: defaultdict[str, float] = defaultdict(float)
"""Seconds each test module took (setup, call and teardown of its tests, summed)."""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _MODULE_SECONDS[report.nodeid.split("::", 1)[0]] += report.duration


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The modules that took longest in all (where the suite's time goes, for whoever makes
    it faster: ``--durations`` names tests one by one)."""
    if hasattr(terminalreporter.config, "workerinput") or not _MODULE_SECONDS:
        return  # an xdist worker: the controller sums every worker's reports
    total = sum(_MODULE_SECONDS.values())
    terminalreporter.write_sep("=", f"slowest 15 modules, of {total:.0f} s in all tests")
    slowest = sorted(_MODULE_SECONDS.items(), key=lambda kv: -kv[1])[:15]
    for module, seconds in slowest:
        terminalreporter.write_line(f"{seconds:8.1f}s {100 * seconds / total:5.1f}%  {module}")


@pytest.fixture
def route(monkeypatch: pytest.MonkeyPatch) -> Callable[[SimServer], None]:
    """Point ``openai/…`` models at a sim server over loopback HTTP, as a user would: by
    environment."""

    def point(server: SimServer) -> None:
        monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
        monkeypatch.setenv("OPENAI_API_BASE", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sim")

    return point


@pytest.fixture(scope="session")
def ray_runtime() -> Iterator[None]:
    """Start Ray once per test session (2 CPUs, no dashboard, workers network-guarded)."""
    import ray

    from runner import start_ray

    start_ray(setup_hook="tests._netguard.install")
    yield
    ray.shutdown()


@contextmanager
def _registry_kept() -> Iterator[None]:
    """Forget, afterwards, the folder families registered and the spec folders remembered
    meanwhile (and what the sim cached reading with their packs): a test module that loads
    a folder family, or a spec naming one, must not change what a later module's sim knows."""
    import functools
    import sys

    import conditions._spec
    from benchmark import FAMILIES
    from benchmark._plugins import PluginOrigin
    from benchmark._registry import _FOLDERS

    before, specs, ids = dict(_FOLDERS), dict(conditions._spec._SPEC_FOLDERS), list(FAMILIES)
    yield
    changed = list(FAMILIES) != ids or before != _FOLDERS
    for path, fam in list(_FOLDERS.items()):
        if before.get(path) is not fam:
            del _FOLDERS[path]
            if fam.id in FAMILIES and FAMILIES.origin(fam.id).folder == path:
                del FAMILIES[fam.id]
    for path, fam in before.items():
        if fam.id not in FAMILIES:
            FAMILIES.register(fam.id, fam, PluginOrigin(folder=path))
    _FOLDERS.update(before)
    conditions._spec._SPEC_FOLDERS.clear()
    conditions._spec._SPEC_FOLDERS.update(specs)
    if not changed:
        return
    for name, module in list(sys.modules.items()):
        if name.startswith("benchmark.sim."):
            for value in vars(module).values():
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()


@pytest.fixture(autouse=True, scope="module")
def _module_registry_kept() -> Iterator[None]:
    with _registry_kept():
        yield


@pytest.fixture
def clean_registry() -> Iterator[None]:
    """Forget the folder families a test registered, and the folders its specs named."""
    with _registry_kept():
        yield
