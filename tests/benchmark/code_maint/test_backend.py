"""The code-maintenance backend, in-process: a private work tree per session (removed at the
end), whole-name edits, searches, the pinned library's changelog, real test runs and an
allow-listed command runner, and a dump that reports what it ran."""

from pathlib import Path
from typing import Any

import pytest

from benchmark.code_maint import CodeMaintenance
from benchmark.code_maint._backend import MAX_FILE_BYTES, MAX_TREE_BYTES, Backend, BackendError

FAM = CodeMaintenance()
TASK = next(t for t in FAM.tasks("dev", 8, 0) if t.kind == "rename_call")
PATH, OLD, NEW = (TASK.reference_calls[0].arguments[k] for k in ("path", "old", "new"))


@pytest.fixture
def backend() -> Any:
    b = Backend(TASK.initial_state)
    yield b
    b.close()


def test_a_session_has_its_own_work_tree_removed_when_it_closes() -> None:
    a, b = Backend(TASK.initial_state), Backend(TASK.initial_state)
    assert a.root != b.root and a.root.is_dir()
    assert sorted(p.relative_to(a.root).as_posix() for p in a.root.rglob("*") if p.is_file()) == (
        sorted(TASK.initial_state["files"])
    )
    root = a.root
    a.close()
    assert not root.exists() and b.root.is_dir()
    b.close()


def test_reading_listing_and_searching(backend: Backend) -> None:
    assert backend.call("list_files", {})["files"] == sorted(TASK.initial_state["files"])
    lines = backend.call("read_file", {"path": PATH})["lines"]
    assert "\n".join(r["text"] for r in lines) + "\n" == TASK.initial_state["files"][PATH]
    hits = backend.call("search", {"query": f"acmelib.{OLD}("})["hits"]
    assert hits and {h["path"] for h in hits} == {c.arguments["path"] for c in TASK.reference_calls}
    assert all(f"acmelib.{OLD}(" in h["text"] for h in hits)


def test_the_changelog_is_the_pinned_versions(backend: Backend) -> None:
    log = backend.call("read_changelog", {"package": "acmelib"})
    assert log["version"] == "2.0"
    assert any(f"`{OLD}()` is renamed `{NEW}()`" in r["text"] for r in log["lines"])
    backend.call(
        "replace_in_file",
        {"path": "requirements.txt", "old": "acmelib==2.0", "new": "acmelib==1.4"},
    )
    assert backend.call("read_changelog", {"package": "acmelib"})["version"] == "1.4"
    with pytest.raises(BackendError, match="no changelog"):
        backend.call("read_changelog", {"package": "requests"})


def test_replace_matches_whole_names_all_or_first(backend: Backend) -> None:
    backend.call("write_file", {"path": "x.py", "content": "rate(1)\nrate(2)\nget_rate(3)\n"})
    first = backend.call(
        "replace_in_file", {"path": "x.py", "old": "rate", "new": "r", "all_occurrences": False}
    )
    assert first == {"path": "x.py", "replaced": 1, "occurrences": 2}
    assert (
        backend.call("replace_in_file", {"path": "x.py", "old": "rate", "new": "r"})["replaced"]
        == 1
    )
    assert (backend.root / "x.py").read_text() == "r(1)\nr(2)\nget_rate(3)\n"
    with pytest.raises(BackendError, match="does not occur"):
        backend.call("replace_in_file", {"path": "x.py", "old": "rate", "new": "r"})


@pytest.mark.parametrize(
    "path", ["../escape.py", "/etc/passwd", "a/../../b", "", "pkg/__pycache__/x"]
)
def test_paths_outside_the_project_are_refused(backend: Backend, path: str) -> None:
    with pytest.raises(BackendError):
        backend.call("write_file", {"path": path, "content": "x"})
    assert not (backend.root.parent / "escape.py").exists()


def test_run_tests_reports_counts_and_each_failure_with_its_file(backend: Backend) -> None:
    before = backend.call("run_tests", {})
    assert before["failed"] >= 1 and before["ran"] == before["passed"] + before["failed"]
    assert all(f["path"].startswith("tests/") and OLD in f["message"] for f in before["failures"])
    for call in TASK.reference_calls:
        backend.call(call.name, dict(call.arguments))
    after = backend.call("run_tests", {})
    assert after["failed"] == 0 and after["passed"] == before["ran"] and after["failures"] == []


def test_run_command_runs_only_allowed_commands(backend: Backend) -> None:
    ran = backend.call("run_command", {"command": ["python3", "-m", "unittest", "-q"]})
    assert ran["exit_code"] == 1 and "FAILED" in ran["stderr"] and not ran["timed_out"]
    built = backend.call("run_command", {"command": ["python3", "-m", "compileall", "-q", "."]})
    assert built["exit_code"] == 0
    for bad in (
        ["sh", "-c", "id"],
        ["python3", "-c", "print(1)"],
        ["python3", "-m", "http.server"],
        "ls",
    ):
        with pytest.raises(BackendError, match="not allowed"):
            backend.call("run_command", {"command": bad})


def test_the_dump_reports_builds_tests_calls_settings_and_pins(backend: Backend) -> None:
    backend.call(
        "replace_in_file",
        {"path": PATH, "old": "return", "new": "return (", "all_occurrences": False},
    )
    dump = backend.dump()
    assert any(e.startswith(f"{PATH}: SyntaxError") for e in dump["build_errors"])
    assert set(dump["files"]) == set(TASK.initial_state["files"])
    assert dump["pins"] == {"acmelib": "2.0"}
    assert set(dump["settings"]["settings.ini"]["acmelib"]) == {"name", "region", "max_retries"}
    assert set(dump["test_shapes"]) == {
        p for p in TASK.initial_state["files"] if p.startswith("tests/") and p.endswith(".py")
    }
    assert dump["lib_calls"][PATH] == {}  # it no longer parses
    assert not list(Path(backend.root).rglob("__pycache__"))


def test_a_work_tree_cannot_grow_past_its_cap(backend: Backend) -> None:
    chunk = "x" * MAX_FILE_BYTES
    with pytest.raises(BackendError, match="exceed"):
        for i in range(MAX_TREE_BYTES // MAX_FILE_BYTES + 1):
            backend.call("write_file", {"path": f"junk/{i}.txt", "content": chunk})
    assert sum(p.stat().st_size for p in backend.root.rglob("*") if p.is_file()) <= MAX_TREE_BYTES
    backend.call("write_file", {"path": "junk/0.txt", "content": "small"})  # overwriting is fine


def test_a_project_file_cannot_stand_in_for_the_test_runner(backend: Backend) -> None:
    fake = 'import sys\nprint(\'{"build": [], "tests": {}}\')\nsys.exit(0)\n'
    for name in ("unittest.py", "json.py"):
        backend.call("write_file", {"path": name, "content": fake})
    assert backend.call("run_tests", {})["failed"] >= 1


def test_file_system_errors_are_refusals_not_crashes(backend: Backend) -> None:
    with pytest.raises(BackendError, match="write_file"):
        backend.call("write_file", {"path": "README.md/inside.py", "content": "x"})
    with pytest.raises(BackendError, match="no file"):
        backend.call("read_file", {"path": "tests"})


def test_an_unknown_library_version_is_refused(backend: Backend) -> None:
    backend.call("write_file", {"path": "requirements.txt", "content": "acmelib==9.9\n"})
    with pytest.raises(BackendError, match="not installed"):
        backend.call("run_tests", {})


def test_unknown_tools_are_refused(backend: Backend) -> None:
    with pytest.raises(BackendError, match="unknown tool"):
        backend.call("delete_everything", {})
