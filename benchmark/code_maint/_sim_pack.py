"""What a sim model knows about code maintenance: a knowledge pack, declared.

Read by the sim engine (``benchmark.sim``), which knows no family. Nothing here looks at a
task's answer: a request states the broken name (from the error it quotes), the failing test
or the settings key; the model finds the file to edit in search hits or in the failing tests,
reads the replacement in the library's changelog (or the test's message), and makes one
``replace_in_file`` edit per file its search found (``Step.each``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from benchmark.sim import Action, FromRow, Kind, KnowledgePack, Slot, Step

_PATH = {"path": 3, "file": 3}

ACTIONS = {
    "list": Action({"list": 3, "files": 2}, {}),
    "read": Action({"read": 2, "file": 2}, {"path": _PATH}),
    "write": Action({"write": 3, "create": 1, "overwrite": 1}, {}),
    "search": Action({"search": 3, "find": 1, "code": 1}, {"old": {"query": 3, "text": 1}}),
    "changelog": Action(
        {"changelog": 3, "dependency": 1, "migration": 1},
        {"package": {"package": 3, "dependency": 2, "name": 1}},
    ),
    "run_tests": Action({"tests": 3, "run": 1, "unit": 1}, {}),
    "command": Action({"command": 3, "allowed": 1}, {}),
    "replace": Action(
        {"replace": 3, "edit": 2},
        {
            "path": _PATH,
            "old": {"old": 3, "replace": 1},
            "new": {"new": 3, "replacement": 3},
            "all": {"occurrences": 3, "every": 2, "all": 3},
        },
    ),
}

_EDIT = {"path": "path", "old": "old", "new": "new", "all": "all"}
_EVERY = Slot("flag", value=True)
_LIBRARY = Slot("text", stated=r"\b(acmelib)\b")


def _changelog(pattern: str) -> FromRow:
    """The replacement, read from the first changelog line that names the old name."""
    return FromRow("changelog", "lines", ("old",), "text", pattern)


_NAME = r"[`'](?!acmelib[`'])(?:acmelib\.)?(\w+)(?:\(\))?[`']"
"""The first quoted or back-quoted name that is not the library's: the old function or key."""


def _call_kind(name: str, cues: dict[str, int], pattern: str) -> Kind:
    return Kind(
        name,
        cues,
        {
            "old": Slot("text", stated=_NAME),
            "package": _LIBRARY,
            "path": Slot("text", derive=FromRow("search", "hits", ("old",), "path")),
            "new": Slot("text", derive=_changelog(pattern)),
            "all": _EVERY,
        },
        (Step("replace", _EDIT, core=True, each="path"),),
    )


def _failure(key: str, pattern: str | None = None) -> FromRow:
    """A value from the failing test's row of the test run."""
    return FromRow("run_tests", "failures", ("test",), key, pattern)


KINDS = (
    _call_kind(
        "rename_call",
        {"renamed": 3, "rename": 3, "attribute": 3, "name": 2, "longer": 1},
        r"renamed `(\w+)",
    ),
    _call_kind(
        "unit_call",
        {"unit": 3, "factor": 2, "off": 1},
        r"`(\w+)\(\)` returns \w+ as before",
    ),
    Kind(
        "test_repair",
        {"behaviour": 3, "behavior": 3, "behaves": 3, "expectation": 2, "expected": 2},
        {
            "test": Slot("text", stated=r"`(test_\w+)`"),
            "path": Slot("text", derive=_failure("path")),
            "old": Slot("text", derive=_failure("message", r"!= ('[^'\n]*')")),
            "new": Slot("text", derive=_failure("message", r"Error: ('[^'\n]*') !=")),
            "all": _EVERY,
        },
        (Step("replace", _EDIT, core=True),),
    ),
    Kind(
        "config_migrate",
        {"settings": 3, "setting": 3, "key": 3, "migrate": 2, "ini": 2},
        {
            "old": Slot("text", stated=_NAME),
            "package": _LIBRARY,
            "path": Slot("text", stated=r"\b(settings\.ini)\b"),
            "new": Slot("text", derive=_changelog(r"renamed `(\w+)")),
            "all": _EVERY,
        },
        (Step("replace", _EDIT, core=True),),
    ),
)


@cache
def _remembered() -> dict[str, dict[str, Any]]:
    """The tools as a model trained on repo@1 remembers them."""
    from benchmark.code_maint._tools import base_tools

    return {t.name: t.to_openai()["function"] for t in base_tools().tools}


PACK = KnowledgePack(
    family="code_maint",
    actions=ACTIONS,
    kinds=KINDS,
    concepts={},
    remembered=_remembered,
)
