"""The drift oracle on code maintenance: under the flipped default of
``replace_in_file.all_occurrences``, an edit that leaves the flag out (the old reading: every
occurrence) is critical where the file has several occurrences and harmless where it has one;
an edit that states the flag, the preserving rename and lookups are never critical."""

from typing import Any

from benchmark import Task, check_call
from benchmark.code_maint import CALL_KINDS, ENV_ID, CodeMaintenance, interface_versions
from drift import ServedInterface, ToolCall

FAM = CodeMaintenance()
TASKS = FAM.tasks("sealed", 40, 9)


def _served(suffix: str) -> ServedInterface:
    return ServedInterface(FAM.base_tools(), interface_versions()[f"{ENV_ID}@2-{suffix}"])


def _edit(every: bool) -> tuple[Task, ToolCall]:
    """A task and a reference edit replacing every occurrence (``every``) or the only one."""
    task = next(
        t
        for t in TASKS
        if t.kind in CALL_KINDS and t.reference_calls[0].arguments["all_occurrences"] is every
    )
    return task, task.reference_calls[0]


def _with(call: ToolCall, **changes: Any) -> ToolCall:
    args = {k: v for k, v in {**call.arguments, **changes}.items() if v is not None}
    return ToolCall(name=call.name, arguments=args)


def test_leaving_the_flag_out_where_several_occurrences_change_is_critical() -> None:
    task, edit = _edit(every=True)
    served = _served("default")
    omitted = _with(edit, all_occurrences=None)
    flag = check_call(FAM, task, served, omitted)
    assert flag is not None
    (op,) = served.version.ops
    assert flag.operator == op.describe()
    assert FAM.effect_key(flag.intended) == FAM.effect_key(edit)
    assert flag.effect.arguments["all_occurrences"] is False
    assert check_call(FAM, task, served, _with(edit, all_occurrences=True)) is None


def test_leaving_the_flag_out_where_one_occurrence_changes_is_the_same_edit() -> None:
    task, edit = _edit(every=False)
    served = _served("default")
    assert check_call(FAM, task, served, _with(edit, all_occurrences=None)) is None
    assert check_call(FAM, task, served, _with(edit, all_occurrences=True)) is None


def test_what_else_an_edit_gets_wrong_neither_excuses_the_old_reading_nor_replaces_it() -> None:
    task, edit = _edit(every=True)
    served = _served("default")
    also_wrong = _with(edit, all_occurrences=None, new="something_else")
    assert check_call(FAM, task, served, also_wrong) is not None
    assert check_call(FAM, task, served, _with(edit, new="something_else")) is None


def test_preserving_drift_and_lookups_are_never_critical() -> None:
    task, edit = _edit(every=True)
    args = dict(edit.arguments)
    renamed = ToolCall(name=edit.name, arguments={"file_path": args.pop("path"), **args})
    assert check_call(FAM, task, _served("rename"), renamed) is None
    lookup = ToolCall(name="search", arguments={"query": edit.arguments["old"]})
    assert check_call(FAM, task, _served("default"), lookup) is None
