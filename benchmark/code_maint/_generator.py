"""Seeded generator of code-maintenance tasks over small Python projects.

A project is a package of 2–4 modules (functions that call the internal library or not), a
``tests/`` directory with one ``unittest`` test per function, a ``settings.ini`` the library
reads, and ``requirements.txt`` pinning the library at 2.0. The code and the tests were written
against 1.4, and one thing broke in the upgrade; that is the task:

- ``rename_call``: a function 2.0 renamed is called at 1–3 sites in 1–2 modules;
- ``unit_call``: a function 2.0 kept but whose result is in another unit now is called at
  1–3 sites in 1–2 modules (the fix: the function that keeps the old unit);
- ``test_repair``: a test expects what a function did before a documented behaviour change;
  the code is right and the test's expected value must change;
- ``config_migrate``: ``settings.ini`` uses a key 2.0 renamed.

Each task's reference calls are ``replace_in_file`` calls, one per file to change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchmark._family_kit import numbered_task
from benchmark._task import Task
from benchmark.code_maint import _library as lib
from benchmark.code_maint._phrasings import PHRASINGS
from benchmark.code_maint._sites import FILLERS, MODULES, PACKAGES, TARGETS, Site
from drift import ToolCall

GENERATOR_VERSION = "code-maint-gen-1"
CALL_KINDS = ("rename_call", "unit_call")
KINDS = (*CALL_KINDS, "test_repair", "config_migrate")
MAX_SITES = 3
SETTINGS_FILE = "settings.ini"
REQUIREMENTS_FILE = "requirements.txt"

_REGIONS = ("eu-west", "us-east", "ap-south")
_SETTING_VALUES = {
    "retries": ("3", "5"),
    "timeout": ("10", "30"),
    "host": ("api.internal", "10.0.0.7"),
}
_CONFIG_MODULE = '''"""Settings of the service, read with the library."""

import os

import acmelib

SETTINGS_FILE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "settings.ini"
)


def settings():
    return acmelib.load_settings(SETTINGS_FILE)
'''


@dataclass
class _Project:
    """A project while a kind shapes it: modules (name → functions with test arguments)."""

    rng: np.random.Generator
    package: str
    modules: dict[str, list[tuple[Site, str]]]
    settings: dict[str, str] = field(default_factory=dict)
    expected: dict[str, Any] = field(default_factory=dict)  # test name → value under 2.0


@dataclass(frozen=True)
class _Plan:
    """A kind's instruction slots and its reference calls."""

    slots: dict[str, str]
    calls: tuple[ToolCall, ...]


def _pick(rng: np.random.Generator, seq: tuple[Any, ...] | list[Any]) -> Any:
    return seq[int(rng.integers(len(seq)))]


def _value(site: Site, args: str, version: str) -> Any:
    """What ``site`` returns for ``args`` under one library version (generator code, run on
    the host)."""
    scope: dict[str, Any] = {"acmelib": lib.load(version)}
    exec(f"def f({site.params}):\n    return {site.body}\n", scope)
    return eval(f"f({args})", scope)


def _replace(path: str, old: str, new: str, occurrences: int = 1) -> ToolCall:
    """The edit, canonically: every occurrence when there are several, else the one (so its
    effect key says whether replacing only the first would have been the same edit)."""
    arguments = {"path": path, "old": old, "new": new, "all_occurrences": occurrences > 1}
    return ToolCall(name="replace_in_file", arguments=arguments)


def _project(rng: np.random.Generator) -> _Project:
    package = _pick(rng, PACKAGES)
    names = list(rng.permutation(len(MODULES))[: int(rng.integers(2, 5))])
    fillers = list(rng.permutation(len(FILLERS)))
    modules: dict[str, list[tuple[Site, str]]] = {}
    for i in names:
        site = FILLERS[int(fillers.pop())]
        modules[MODULES[int(i)]] = [(site, _pick(rng, site.args))]
    settings = {"name": package, "region": _pick(rng, _REGIONS), "max_retries": "3"}
    return _Project(rng, package, modules, settings)


def _place(p: _Project, sites: list[Site], files: int) -> dict[str, int]:
    """Put ``sites`` into the first ``files`` modules (round robin); the modules' paths and
    how many sites each got."""
    targets = list(p.modules)[:files]
    for k, site in enumerate(sites):
        p.modules[targets[k % files]].insert(0, (site, _pick(p.rng, site.args)))
    return {f"{p.package}/{m}.py": len(sites[k::files]) for k, m in enumerate(targets)}


def _call_sites(p: _Project, table: dict[str, str]) -> _Plan:
    old = _pick(p.rng, tuple(table))
    count = 1 + int(p.rng.integers(MAX_SITES))
    sites = [TARGETS[old][int(i)] for i in p.rng.permutation(len(TARGETS[old]))[:count]]
    files = 2 if count > 1 and p.rng.random() < 0.75 else 1
    placed = _place(p, sites, files)
    calls = tuple(_replace(path, old, table[old], n) for path, n in placed.items())
    return _Plan({"old": old, "package": p.package}, calls)


def _test_repair(p: _Project) -> _Plan:
    api = _pick(p.rng, lib.BEHAVIOUR_CHANGED)
    site = _pick(p.rng, TARGETS[api])
    (path,) = _place(p, [site], 1)
    module = path.split("/")[1][:-3]
    args = p.modules[module][0][1]
    old, new = _value(site, args, lib.OLD_VERSION), _value(site, args, lib.NEW_VERSION)
    test_path = f"tests/test_{module}.py"
    return _Plan(
        {"test": f"test_{site.name}", "api": api, "package": p.package, "path": test_path},
        (_replace(test_path, repr(old), repr(new)),),  # quoted: the input may hold the text
    )


def _config_migrate(p: _Project) -> _Plan:
    key = _pick(p.rng, tuple(lib.SETTINGS_RENAMED))
    del p.settings["max_retries"]
    p.settings[key] = _pick(p.rng, _SETTING_VALUES[key])
    return _Plan(
        {"key": key, "package": p.package, "path": SETTINGS_FILE},
        (_replace(SETTINGS_FILE, key, lib.SETTINGS_RENAMED[key]),),
    )


_PLANS: dict[str, Callable[[_Project], _Plan]] = {
    "rename_call": lambda p: _call_sites(p, lib.RENAMED),
    "unit_call": lambda p: _call_sites(p, lib.UNIT_CHANGED),
    "test_repair": _test_repair,
    "config_migrate": _config_migrate,
}


def _module_source(module: str, functions: list[tuple[Site, str]]) -> str:
    uses_lib = any("acmelib." in site.body for site, _ in functions)
    head = f'"""The {module} helpers of the service."""\n'
    if uses_lib:
        head += "\nimport acmelib\n"
    bodies = [f"def {s.name}({s.params}):\n    return {s.body}\n" for s, _ in functions]
    return head + "\n\n" + "\n\n".join(bodies)


def _test_source(package: str, module: str, functions: list[tuple[Site, str]]) -> str:
    names = ", ".join(sorted(s.name for s, _ in functions))
    tests = [
        f"    def test_{s.name}(self):\n"
        f"        self.assertEqual({s.name}({args}), {_value(s, args, lib.OLD_VERSION)!r})\n"
        for s, args in functions
    ]
    return (
        f"import unittest\n\nfrom {package}.{module} import {names}\n\n\n"
        f"class {module.capitalize()}Tests(unittest.TestCase):\n" + "\n".join(tests)
    )


def _files(p: _Project) -> dict[str, str]:
    pkg = p.package
    settings = "[acmelib]\n" + "".join(f"{k} = {v}\n" for k, v in p.settings.items())
    files = {
        "README.md": f"# {pkg}\n\nA small service. Run its tests with `python3 -m unittest`.\n",
        REQUIREMENTS_FILE: f"{lib.LIBRARY}=={lib.NEW_VERSION}\n",
        SETTINGS_FILE: settings,
        f"{pkg}/__init__.py": f'"""The {pkg} service."""\n',
        f"{pkg}/config.py": _CONFIG_MODULE,
        "tests/__init__.py": "",
        "tests/test_config.py": (
            f"import unittest\n\nfrom {pkg}.config import settings\n\n\n"
            "class ConfigTests(unittest.TestCase):\n"
            "    def test_settings(self):\n"
            f"        self.assertEqual(settings()['name'], {pkg!r})\n"
        ),
    }
    for module, functions in p.modules.items():
        files[f"{pkg}/{module}.py"] = _module_source(module, functions)
        files[f"tests/test_{module}.py"] = _test_source(pkg, module, functions)
    return dict(sorted(files.items()))


def generate(family_id: str, split: str, split_base: int, index: int, seed: int) -> Task:
    """Task ``index`` of ``split`` (``split_base`` keeps splits' ids apart).

    ``index`` picks the kind (cycling through ``KINDS``); successive tasks of one kind
    alternate between its phrasings.
    """
    rng = np.random.default_rng([seed, index])
    kind = KINDS[index % len(KINDS)]
    project = _project(rng)
    plan = _PLANS[kind](project)
    phrasings = PHRASINGS[kind]
    template = phrasings[(seed + index // len(KINDS)) % len(phrasings)]
    instruction = template.format(**plan.slots, number=split_base + index)
    return numbered_task(
        family=family_id,
        split=split,
        index=index,
        seed=seed,
        generator_version=GENERATOR_VERSION,
        kind=kind,
        instruction=instruction,
        initial_state={"files": _files(project)},
        reference_calls=plan.calls,
    )
