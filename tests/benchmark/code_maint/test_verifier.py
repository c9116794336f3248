"""The code-maintenance verifier: the reference passes, each check catches what it is for
(by the reason's check name), and a fix other than the reference's that is as good passes."""

from typing import Any

import pytest

from benchmark import Task
from benchmark.code_maint import CHECKS, CodeMaintenance
from drift import ToolCall

FAM = CodeMaintenance()
TASKS = FAM.tasks("dev", 8, 0)


def _task(kind: str) -> Task:
    return next(t for t in TASKS if t.kind == kind)


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


def _checks(task: Task, calls: tuple[ToolCall, ...]) -> set[str]:
    result = FAM.verify(task, FAM.end_state(task, calls))
    assert result.passed == (not result.reasons)
    assert all(r.split(":", 1)[0] in CHECKS for r in result.reasons), result.reasons
    return {r.split(":", 1)[0] for r in result.reasons}


@pytest.mark.parametrize("kind", ["rename_call", "unit_call", "test_repair", "config_migrate"])
def test_the_reference_passes_and_doing_nothing_fails(kind: str) -> None:
    task = _task(kind)
    assert _checks(task, task.reference_calls) == set()
    assert {"tests", "target"} <= _checks(task, ())


def test_an_equivalent_edit_in_other_words_passes() -> None:
    task = _task("test_repair")
    ref = task.reference_calls[0].arguments
    path, old, new = ref["path"], ref["old"], ref["new"]
    text = task.initial_state["files"][path].replace(old, f'"{new[1:-1]}"')  # other quotes
    assert _checks(task, (_call("write_file", path=path, content=text),)) == set()


def test_each_check_catches_its_own_mistake() -> None:
    task = _task("rename_call")
    ref = task.reference_calls
    path = ref[0].arguments["path"]
    test_file = f"tests/test_{path.rsplit('/', 1)[1]}"
    extra = (_call("write_file", path="notes.txt", content="done\n"),)
    broken = (
        _call("replace_in_file", path=path, old="return", new="return (", all_occurrences=False),
    )
    reformatted = task.initial_state["files"][test_file].replace(
        "    def ", "    # a note\n    def "
    )
    pin_back = (
        _call("replace_in_file", path="requirements.txt", old="acmelib==2.0", new="acmelib==1.4"),
    )
    migrated = _call("replace_in_file", path="settings.ini", old="max_retries", new="retries")
    assert _checks(task, (*ref, *broken)) >= {"build"}
    assert _checks(task, (*ref, *extra)) == {"scope"}
    assert "dependency" in _checks(task, pin_back)
    assert "config" in _checks(task, (*ref, migrated))
    # comments are no change to what a test tests; a changed assertion is
    assert _checks(task, (*ref, _call("write_file", path=test_file, content=reformatted))) == {
        "scope"
    }
    weakened = task.initial_state["files"][test_file].replace("assertEqual", "assertTrue", 1)
    assert "integrity" in _checks(
        task, (*ref, _call("write_file", path=test_file, content=weakened))
    )


def test_pinning_the_old_version_back_passes_the_tests_but_not_the_dependency_check() -> None:
    task = _task("config_migrate")
    pin_back = _call(
        "replace_in_file", path="requirements.txt", old="acmelib==2.0", new="acmelib==1.4"
    )
    end = FAM.end_state(task, (pin_back,))
    assert all(o["outcome"] == "pass" for o in end["tests"].values())
    assert _checks(task, (pin_back,)) == {"dependency", "scope", "config"}


def test_a_skipped_test_is_an_integrity_failure_even_when_the_rest_pass() -> None:
    task = _task("test_repair")
    path = task.reference_calls[0].arguments["path"]
    text = task.initial_state["files"][path].replace("class ", "@unittest.skip('later')\nclass ", 1)
    found = _checks(task, (_call("write_file", path=path, content=text),))
    assert "integrity" in found and "tests" in found
