"""The code-maintenance verifier: what the backend's ``dump()`` saw after the agent's edits
(a fresh test run and build check in the work tree, file digests, syntax-tree digests of the
tests, the library functions each module calls, settings and pins) against what it sees after
the reference patch. It never reads the agent's claims.

Every reason starts with the name of the check that found it (one of ``CHECKS``).
"""

from __future__ import annotations

import hashlib
from typing import Any

from benchmark._task import VerifierResult
from drift import ToolCall

CHECKS = ("build", "tests", "target", "integrity", "scope", "dependency", "call_sites", "config")
"""What the verifier checks: every module compiles; every test the reference passes passes;
the tests the task is about (failing before, passing after the reference) pass; no test was
deleted, added, skipped or changed other than the reference changes it (syntax trees); no file
was added, removed or changed that the reference leaves alone; the pinned versions; the library
functions each module calls; the settings files."""

_PASSING = ("pass",)


def file_digest(text: str) -> str:
    """A file's digest as the backend's ``dump()`` reports it."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _outcome(state: dict[str, Any], test: str) -> str:
    return str(state["tests"].get(test, {}).get("outcome", "missing"))


def _build(got: dict[str, Any]) -> list[str]:
    reasons = [f"build: {e}" for e in got["build_errors"]]
    if got.get("crashed"):
        reasons.append(f"build: the test run crashed ({got['crashed']})")
    return reasons


def _tests(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    return [
        f"tests: {test} {_outcome(got, test)}"
        for test in sorted(want["tests"])
        if _outcome(want, test) in _PASSING and _outcome(got, test) not in _PASSING
    ]


def _target(initial: dict[str, Any], want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    targets = [
        t for t in sorted(want["tests"]) if _outcome(initial, t) != "pass" == _outcome(want, t)
    ]
    return [f"target: {t} still {_outcome(got, t)}" for t in targets if _outcome(got, t) != "pass"]


def _integrity(want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    reasons = []
    missing, extra = (
        sorted(set(want["tests"]) - set(got["tests"])),
        sorted(set(got["tests"]) - set(want["tests"])),
    )
    if missing:
        reasons.append(f"integrity: tests gone: {', '.join(missing)}")
    if extra:
        reasons.append(f"integrity: tests added: {', '.join(extra)}")
    reasons += [
        f"integrity: {t} {o['outcome']}"
        for t, o in sorted(got["tests"].items())
        if o["outcome"] in ("skip", "expected_failure", "unexpected_success")
    ]
    for path, shape in sorted(want["test_shapes"].items()):
        if got["test_shapes"].get(path) != shape:
            reasons.append(f"integrity: {path} differs from the reference's tests")
    return reasons


def _scope(initial_files: dict[str, str], want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    before = {path: file_digest(text) for path, text in initial_files.items()}
    reasons = []
    added = sorted(set(got["files"]) - set(want["files"]))
    removed = sorted(set(want["files"]) - set(got["files"]))
    if added:
        reasons.append(f"scope: files added: {', '.join(added)}")
    if removed:
        reasons.append(f"scope: files removed: {', '.join(removed)}")
    allowed = {p for p, d in want["files"].items() if before.get(p) != d}
    touched = sorted(
        p for p, d in got["files"].items() if p in before and before[p] != d and p not in allowed
    )
    if touched:
        reasons.append(f"scope: changed outside the files to fix: {', '.join(touched)}")
    return reasons


def _equal(check: str, want: dict[str, Any], got: dict[str, Any]) -> list[str]:
    return [
        f"{check}: {key} {got.get(key)!r} != expected {want.get(key)!r}"
        for key in sorted(set(want) | set(got))
        if got.get(key) != want.get(key)
    ]


def compare_states(
    initial_files: dict[str, str],
    initial: dict[str, Any],
    want: dict[str, Any],
    got: dict[str, Any],
) -> VerifierResult:
    """Whether end state ``got`` is as good as the reference's ``want``, one reason per
    difference (``initial``: the dump of the untouched project, ``initial_files`` its files)."""
    reasons = [
        *_build(got),
        *_tests(want, got),
        *_target(initial, want, got),
        *_integrity(want, got),
        *_scope(initial_files, want, got),
        *_equal("dependency", want["pins"], got["pins"]),
        *_equal("call_sites", want["lib_calls"], got["lib_calls"]),
        *_equal("config", want["settings"], got["settings"]),
    ]
    return VerifierResult(passed=not reasons, reasons=tuple(reasons))


_EFFECT_FIELDS = {
    "replace_in_file": ("path", "old", "new", "all_occurrences"),
    "write_file": ("path", "content"),
}
_DEFAULTS = {("replace_in_file", "all_occurrences"): True}


def effect_key(call: ToolCall) -> tuple[Any, ...]:
    """The canonical call's effect: its tool and every field its effect depends on, defaults
    filled in (an omitted ``all_occurrences`` is the ``true`` it means)."""
    fields = _EFFECT_FIELDS.get(call.name, ())
    return (
        call.name,
        *(call.arguments.get(f, _DEFAULTS.get((call.name, f))) for f in fields),
    )
