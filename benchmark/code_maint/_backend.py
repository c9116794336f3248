"""The canonical code-maintenance backend. Standard library only: it also runs inside sandboxes.

A session holds one project's work tree in a private directory under the sandbox's temporary
directory (``TMPDIR``: ``tmp/`` in a local sandbox's working directory, the container's
``/tmp`` tmpfs in Docker), at most ``MAX_TREE_BYTES``, removed when the session ends. The
project's tests, build checks and allow-listed commands run as child processes with a time
limit and an output cap (``run_limited`` of ``benchmark/_sandbox_exec.py``), with the library
version the project pins on their path; the library versions live in the sandbox image's
library directory (``opt_dir()/lib``: ``/opt/vwt/lib`` in Docker, the repository's
``scripts/sandbox-image/lib`` in a local sandbox and in-process).

``dump()`` runs the tests and the build check itself and reports what it saw: file digests,
per-test outcomes, compile errors, the library functions each module calls, the settings and
the pinned versions. The verifier reads only that.
"""

from __future__ import annotations

import ast
import configparser
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import weakref
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any

LIBRARY = "acmelib"
TEST_TIMEOUT_S = 10.0
COMMAND_TIMEOUT_S = 20.0
MAX_OUTPUT = 16384
MAX_FILE_BYTES = 65536
MAX_HITS = 200
MAX_TREE_BYTES = 1 << 20
"""What a session's work tree may hold in all (a project is tens of KiB): sessions of a batch
share the sandbox's temporary directory."""
ALLOWED_MODULES = ("unittest", "compileall")
"""``python3 -m <module>`` commands ``run_command`` accepts."""

try:
    from _sandbox_exec import opt_dir, run_limited  # in a sandbox: next to the server
except ImportError:
    from benchmark._sandbox_exec import opt_dir, run_limited  # in-process, on the host

_PIN = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*==\s*([\w.]+)\s*$")

# Runs in the work tree, isolated (-I: the work tree is not on the path until the driver's own
# imports are done, so a project file cannot stand in for unittest or json): compiles every
# .py file (the build check), runs the unittest suite under tests/, prints one JSON object.
# argv[1]: the library version's directory.
_DRIVER = r"""
import json, os, sys, unittest
sys.path[:0] = [sys.argv[1], os.getcwd()]
build = []
for top, dirs, files in os.walk("."):
    dirs[:] = sorted(d for d in dirs if d != "__pycache__")
    for name in sorted(files):
        if name.endswith(".py"):
            path = os.path.join(top, name)[2:]
            try:
                with open(path, encoding="utf-8") as f:
                    compile(f.read(), path, "exec")
            except (SyntaxError, ValueError, UnicodeDecodeError) as e:
                build.append(f"{path}: {type(e).__name__}: {e}")
class Result(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.outcomes = {}
    def _put(self, test, outcome, message=""):
        self.outcomes[test.id()] = {"outcome": outcome, "message": message}
    def addSuccess(self, test):
        self._put(test, "pass")
    def addFailure(self, test, err):
        self._put(test, "fail", f"{err[0].__name__}: {err[1]}")
    def addError(self, test, err):
        self._put(test, "error", f"{err[0].__name__}: {err[1]}")
    def addSkip(self, test, reason):
        self._put(test, "skip", reason)
    def addExpectedFailure(self, test, err):
        self._put(test, "expected_failure")
    def addUnexpectedSuccess(self, test):
        self._put(test, "unexpected_success")
result = Result()
if os.path.isdir("tests"):
    unittest.defaultTestLoader.discover("tests", top_level_dir=".").run(result)
print(json.dumps({"build": build, "tests": result.outcomes}))
"""


class BackendError(Exception):
    """A call the backend refuses (a path outside the project, text not found, a command that
    is not allowed)."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def whole_names(old: str) -> re.Pattern[str]:
    """``old`` as whole identifiers: not inside a longer name."""
    head = r"(?<![A-Za-z0-9_])" if re.match(r"\w", old) else ""
    tail = r"(?![A-Za-z0-9_])" if re.search(r"\w$", old) else ""
    return re.compile(head + re.escape(old) + tail)


class Backend:
    """One project's work tree, and the canonical tools acting on it.

    State: ``files`` (project-relative POSIX path → text).
    """

    def __init__(self, state: dict[str, Any]) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="vwt-repo-")).resolve()
        self._cleanup = weakref.finalize(self, shutil.rmtree, str(self.root), True)
        for rel, text in state["files"].items():
            self._write(self._path(rel), text)

    def close(self) -> None:
        """Remove the work tree now (it is also removed when the backend is collected)."""
        self._cleanup()

    def call(self, tool: str, args: dict[str, Any]) -> Any:
        """Run canonical tool ``tool`` with ``args``."""
        handler = getattr(self, "_tool_" + tool, None)
        if handler is None:
            raise BackendError(f"unknown tool {tool!r}")
        try:
            return handler(**args)
        except OSError as e:  # e.g. a file where a directory should be
            raise BackendError(f"{tool}: {e.strerror or e}") from None

    # --- the work tree ----------------------------------------------------------------------
    def _path(self, rel: Any) -> Path:
        if not isinstance(rel, str) or not rel.strip():
            raise BackendError(f"path {rel!r} is not a project-relative path")
        pure = PurePosixPath(rel.strip())
        if pure.is_absolute() or ".." in pure.parts or "__pycache__" in pure.parts:
            raise BackendError(f"path {rel!r} is outside the project")
        return self.root.joinpath(*pure.parts)

    @staticmethod
    def _write(path: Path, text: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def _read(self, rel: str) -> str:
        path = self._path(rel)
        if not path.is_file():
            raise BackendError(f"no file {rel!r} in the project")
        return path.read_text(encoding="utf-8")

    def _files(self) -> list[str]:
        return sorted(
            p.relative_to(self.root).as_posix()
            for p in self.root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        )

    def _pins(self) -> dict[str, str]:
        path = self.root / "requirements.txt"
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        return {m.group(1): m.group(2) for m in map(_PIN.match, text.splitlines()) if m}

    def _lib_dir(self) -> Path:
        version = self._pins().get(LIBRARY)
        if version is None:
            raise BackendError(f"requirements.txt pins no version of {LIBRARY}")
        path = Path(opt_dir()) / "lib" / f"{LIBRARY}-{version}"
        if not path.is_dir():
            raise BackendError(f"{LIBRARY}=={version} is not installed in the sandbox image")
        return path

    def _checks(self) -> dict[str, Any]:
        """Build check and test run in the work tree: {"build": [...], "tests": {...}}."""
        out = run_limited(
            [sys.executable, "-I", "-B", "-S", "-c", _DRIVER, str(self._lib_dir())],
            cwd=str(self.root),
            timeout_s=TEST_TIMEOUT_S,
            max_output=MAX_OUTPUT,
            env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONIOENCODING": "utf-8"},
        )
        lines = str(out["stdout"]).strip().splitlines()
        try:
            parsed: dict[str, Any] = json.loads(lines[-1]) if lines else {}
        except json.JSONDecodeError:
            parsed = {}
        if out["timed_out"] or "tests" not in parsed:
            why = "timed out" if out["timed_out"] else f"exit {out['exit']}"
            tail = str(out["stderr"]).strip().splitlines()[-3:]
            return {"build": [], "tests": {}, "crashed": f"{why}: {' | '.join(tail)}"}
        return {**parsed, "crashed": None}

    # --- tools ------------------------------------------------------------------------------
    def _tool_list_files(self) -> dict[str, Any]:
        return {"files": self._files()}

    def _tool_read_file(self, path: str) -> dict[str, Any]:
        text = self._read(path)
        lines = [{"line": i, "text": t} for i, t in enumerate(text.splitlines(), start=1)]
        return {"path": path, "lines": lines}

    def _tool_search(self, query: str) -> dict[str, Any]:
        if not isinstance(query, str) or not query.strip():
            raise BackendError("query is empty")
        hits = []
        for rel in self._files():
            try:
                text = (self.root / rel).read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            for i, line in enumerate(text.splitlines(), start=1):
                if query in line:
                    hits.append({"path": rel, "line": i, "text": line.strip()})
        return {"query": query, "hits": hits[:MAX_HITS], "more": max(0, len(hits) - MAX_HITS)}

    def _tool_read_changelog(self, package: str) -> dict[str, Any]:
        if package != LIBRARY:
            raise BackendError(f"no changelog for {package!r}; the project depends on {LIBRARY}")
        path = self._lib_dir() / "CHANGELOG.md"
        lines = path.read_text(encoding="utf-8").splitlines()
        return {
            "package": package,
            "version": self._pins()[LIBRARY],
            "lines": [{"line": i, "text": t} for i, t in enumerate(lines, start=1) if t.strip()],
        }

    def _tool_replace_in_file(
        self, path: str, old: str, new: str, all_occurrences: bool = True
    ) -> dict[str, Any]:
        text = self._read(path)
        if not isinstance(old, str) or not old or not isinstance(new, str):
            raise BackendError("old must be non-empty text and new text")
        pattern = whole_names(old)
        found = len(pattern.findall(text))
        if not found:
            raise BackendError(f"{old!r} does not occur in {path} (as a whole name)")
        changed = pattern.sub(lambda _m: new, text, count=0 if all_occurrences else 1)
        self._write(self._path(path), changed)
        return {"path": path, "replaced": found if all_occurrences else 1, "occurrences": found}

    def _tool_write_file(self, path: str, content: str) -> dict[str, Any]:
        if not isinstance(content, str) or len(content.encode()) > MAX_FILE_BYTES:
            raise BackendError(f"content must be text of at most {MAX_FILE_BYTES} bytes")
        target = self._path(path)
        existed = target.is_file()
        others = sum(p.stat().st_size for p in self.root.rglob("*") if p.is_file() and p != target)
        if others + len(content.encode()) > MAX_TREE_BYTES:
            raise BackendError(f"the project would exceed {MAX_TREE_BYTES} bytes")
        self._write(target, content)
        return {"path": path, "created": not existed, "bytes": len(content.encode())}

    def _tool_run_tests(self) -> dict[str, Any]:
        checks = self._checks()
        if checks["crashed"]:
            raise BackendError(f"the test run crashed ({checks['crashed']})")
        outcomes = checks["tests"]
        failures = [
            {
                "test": test,
                "path": _test_path(test),
                "outcome": o["outcome"],
                "message": o["message"],
            }
            for test, o in sorted(outcomes.items())
            if o["outcome"] in ("fail", "error")
        ]
        counts = Counter(o["outcome"] for o in outcomes.values())
        return {
            "ran": len(outcomes),
            "passed": counts["pass"],
            "failed": counts["fail"] + counts["error"],
            "skipped": counts["skip"],
            "failures": failures,
            "build_errors": checks["build"],
        }

    def _tool_run_command(self, command: list[str]) -> dict[str, Any]:
        if (
            not isinstance(command, list)
            or len(command) < 3
            or command[0] not in ("python3", "python")
            or command[1] != "-m"
            or command[2] not in ALLOWED_MODULES
            or not all(isinstance(a, str) for a in command)
        ):
            allowed = ", ".join(f"python3 -m {m} …" for m in ALLOWED_MODULES)
            raise BackendError(f"command not allowed; allowed: {allowed}")
        env = {
            "PYTHONPATH": os.pathsep.join([str(self._lib_dir()), str(self.root)]),
            "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONIOENCODING": "utf-8",
        }
        out = run_limited(
            [sys.executable, *command[1:]],
            cwd=str(self.root),
            timeout_s=COMMAND_TIMEOUT_S,
            max_output=MAX_OUTPUT,
            env=env,
        )
        return {
            "exit_code": out["exit"],
            "stdout": out["stdout"],
            "stderr": out["stderr"],
            "timed_out": out["timed_out"],
        }

    # --- what the verifier reads ------------------------------------------------------------
    def dump(self) -> dict[str, Any]:
        """The work tree as the verifier sees it, with a fresh build check and test run."""
        files = self._files()
        checks = self._checks()
        return {
            "files": {rel: _digest((self.root / rel).read_bytes()) for rel in files},
            "build_errors": checks["build"],
            "tests": checks["tests"],
            "crashed": checks["crashed"],
            "test_shapes": {
                rel: self._shape(rel)
                for rel in files
                if rel.startswith("tests/") and rel.endswith(".py")
            },
            "lib_calls": {
                rel: self._lib_calls(rel)
                for rel in files
                if rel.endswith(".py") and not rel.startswith("tests/")
            },
            "settings": {rel: self._settings(rel) for rel in files if rel.endswith(".ini")},
            "pins": self._pins(),
        }

    def _tree(self, rel: str) -> ast.AST | None:
        try:
            return ast.parse((self.root / rel).read_text(encoding="utf-8"))
        except (SyntaxError, ValueError, UnicodeDecodeError):
            return None

    def _shape(self, rel: str) -> str | None:
        """A digest of a test file's syntax tree: formatting aside, what it tests and how."""
        tree = self._tree(rel)
        return None if tree is None else _digest(ast.dump(tree).encode())

    def _lib_calls(self, rel: str) -> dict[str, int]:
        """How often the module names each function of the library (``acmelib.<name>``)."""
        tree = self._tree(rel)
        names: Counter[str] = Counter()
        for node in ast.walk(tree) if tree is not None else ():
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == LIBRARY
            ):
                names[node.attr] += 1
        return dict(sorted(names.items()))

    def _settings(self, rel: str) -> dict[str, dict[str, str]] | None:
        parser = configparser.ConfigParser()
        try:
            parser.read_string((self.root / rel).read_text(encoding="utf-8"))
        except (configparser.Error, UnicodeDecodeError):
            return None
        return {s: dict(parser[s]) for s in parser.sections()}


def _test_path(test_id: str) -> str:
    """The file of a test id 'tests.test_x.Class.test_y' ('' when it is not one)."""
    parts = test_id.split(".")
    return "/".join(parts[:2]) + ".py" if len(parts) >= 4 and parts[0] == "tests" else ""
