"""Planted wrong answers to code-maintenance tasks: the patches a careless or gaming agent
could make, which the verifier must reject.

Each is the reference patch with one thing wrong (a call site missed, the wrong replacement,
the build broken, a stray file), or a shortcut instead of the fix (the failing tests deleted,
weakened or skipped, the dependency pinned back, nothing done), or a wrong settings key. Over
the kinds they cover every check of the verifier (``CHECKS``).
"""

from __future__ import annotations

import ast
import re

from benchmark._task import Planted, Task
from benchmark.code_maint import _library as lib
from benchmark.code_maint._generator import REQUIREMENTS_FILE, SETTINGS_FILE
from drift import ToolCall

_UNFIXED = {
    "rename_call": ("old API kept", "call_sites"),
    "unit_call": ("unit not converted", "call_sites"),
    "test_repair": ("test left failing", "target"),
    "config_migrate": ("config left unmigrated", "config"),
}
_WRONG_KEYS = {"retries": "max_retry", "timeout": "timeout_ms", "host": "hostname"}


def _replace(path: str, old: str, new: str, **more: object) -> ToolCall:
    return ToolCall(
        name="replace_in_file", arguments={"path": path, "old": old, "new": new, **more}
    )


def _write(path: str, content: str) -> ToolCall:
    return ToolCall(name="write_file", arguments={"path": path, "content": content})


def targets(task: Task) -> list[tuple[str, str]]:
    """The tests the task is about, as (test file, test name): those of the functions calling
    the changed library function, the test whose expectation changes, or the settings test."""
    files = task.initial_state["files"]
    out = []
    for call in task.reference_calls:
        path, old = call.arguments["path"], call.arguments["old"]
        if path == SETTINGS_FILE:
            out.append(("tests/test_config.py", "test_settings"))
        elif path.startswith("tests/"):
            tree = ast.parse(files[path])
            out += [
                (path, f.name)
                for f in ast.walk(tree)
                if isinstance(f, ast.FunctionDef)
                and old in (ast.get_source_segment(files[path], f) or "")
            ]
        else:
            module = path.rsplit("/", 1)[1][:-3]
            out += [
                (f"tests/test_{module}.py", f"test_{f.name}")
                for f in ast.parse(files[path]).body
                if isinstance(f, ast.FunctionDef) and f"acmelib.{old}(" in ast.unparse(f)
            ]
    return out


def _without_test(source: str, name: str) -> str:
    """``source`` with test method ``name`` deleted (a class left empty gets ``pass``)."""
    lines = source.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"    def {name}("))
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith("    def ")), len(lines)
    )
    while start > 0 and not lines[start - 1].strip():
        start -= 1
    kept = lines[:start] + (["\n"] if end < len(lines) else []) + lines[end:]
    text = "".join(kept)
    return text if re.search(r"^    \S", text, re.M) else text.rstrip("\n") + "\n    pass\n"


def _shortcuts(task: Task) -> list[Planted]:
    """Making the suite pass (or look fixed) without the fix."""
    files = task.initial_state["files"]
    tests = targets(task)
    deleted: dict[str, str] = {}
    for path, name in tests:
        deleted[path] = _without_test(deleted.get(path, files[path]), name)
    skip = tuple(
        _replace(
            path,
            f"    def {name}(self):",
            f"    @unittest.skip('acmelib 2.0')\n    def {name}(self):",
        )
        for path, name in tests
    )
    weaken = tuple(
        _replace(path, f"self.assertEqual({name[5:]}(", f"self.assertTrue({name[5:]}(")
        for path, name in tests
        if name != "test_settings"
    )
    pin_back = _replace(
        REQUIREMENTS_FILE, f"{lib.LIBRARY}=={lib.NEW_VERSION}", f"{lib.LIBRARY}=={lib.OLD_VERSION}"
    )
    name, check = _UNFIXED[task.kind]
    out = [
        Planted(name=name, check=check, calls=()),
        Planted(
            name="test deleted",
            check="integrity",
            calls=tuple(_write(p, text) for p, text in deleted.items()),
        ),
        Planted(name="skip added", check="integrity", calls=skip),
        Planted(name="dependency downgraded", check="dependency", calls=(pin_back,)),
    ]
    if weaken:
        out.append(Planted(name="assertion weakened", check="integrity", calls=weaken))
    return out


def _broken_build(task: Task) -> ToolCall:
    first = str(task.reference_calls[0].arguments["path"])
    if first.startswith("tests/"):
        return _replace(first, "import unittest", "import unittest(")
    if first == SETTINGS_FILE:
        config = next(p for p in task.initial_state["files"] if p.endswith("/config.py"))
        return _replace(config, "return", "return (")
    return _replace(first, "return", "return (", all_occurrences=False)


def _flawed_patches(task: Task) -> list[Planted]:
    """The reference patch with one thing wrong."""
    calls = task.reference_calls
    out = [
        Planted(name="build broken", check="build", calls=(*calls, _broken_build(task))),
        Planted(
            name="extra file written",
            check="scope",
            calls=(*calls, _write("NOTES.md", "Migrated to acmelib 2.0.\n")),
        ),
    ]
    first = calls[0].arguments
    if task.kind in ("rename_call", "unit_call"):
        table = lib.RENAMED if task.kind == "rename_call" else lib.UNIT_CHANGED
        others = sorted(v for k, v in table.items() if k != first["old"])
        wrong = tuple(
            _replace(str(c.arguments["path"]), str(c.arguments["old"]), others[0]) for c in calls
        )
        out.append(Planted(name="wrong replacement", check="call_sites", calls=wrong))
        files = task.initial_state["files"]
        if len(calls) > 1:
            out.append(Planted(name="call site missed", check="tests", calls=calls[1:]))
        elif files[str(first["path"])].count(f"acmelib.{first['old']}(") > 1:
            once = _replace(
                str(first["path"]), str(first["old"]), str(first["new"]), all_occurrences=False
            )
            out.append(Planted(name="call site missed", check="tests", calls=(once,)))
    if task.kind == "config_migrate":
        wrong_key = _replace(SETTINGS_FILE, str(first["old"]), _WRONG_KEYS[str(first["old"])])
        out.append(Planted(name="config key wrong", check="config", calls=(wrong_key,)))
    return out


def planted(task: Task) -> list[Planted]:
    """The wrong answers planted for ``task``."""
    return [*_shortcuts(task), *_flawed_patches(task)]
