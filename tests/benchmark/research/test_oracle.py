"""The drift oracle on the research family's changing operators (``benchmark.check_call``):
for each, a claim made under the old reading is critical and one made under the new reading is
not; wrong answers without a changed interface are never critical."""

from __future__ import annotations

from typing import Any

import pytest

from benchmark import Task, check_call, served_interface
from benchmark.research import ENV_ID, ResearchEvidence
from drift import ServedInterface, ToolCall

FAMILY = ResearchEvidence()
TASKS = FAMILY.tasks("sealed", 8, 21)
KEYS_OP = "add_claim: 'doc_id' now takes the internal key, not the display number"
STANCE_OP = "add_claim: values 'supports' and 'contradicts' of 'stance' swap meanings"


def _served(version: str) -> ServedInterface:
    return served_interface(ENV_ID, version)


def _claim(task: Task, **changes: Any) -> ToolCall:
    return ToolCall(name="add_claim", arguments={**task.reference_calls[0].arguments, **changes})


def _key(doc_id: str) -> str:
    stem, number = doc_id.rsplit("-", 1)
    return f"{stem}-{9 - int(number)}"


@pytest.mark.parametrize("task", TASKS, ids=lambda t: f"{t.kind}-{t.index}")
def test_citing_the_display_number_after_the_key_swap_is_critical(
    registered: ResearchEvidence, task: Task
) -> None:
    served = _served("research@2-keys")
    display = str(task.reference_calls[0].arguments["doc_id"])
    flag = check_call(registered, task, served, _claim(task))
    assert flag is not None
    assert flag.operator == KEYS_OP
    assert flag.intended.arguments["doc_id"] == display
    landed = flag.effect.arguments["doc_id"]
    assert landed != display and landed in task.initial_state["documents"]  # a distractor
    assert check_call(registered, task, served, _claim(task, doc_id=_key(display))) is None


def test_the_old_reading_is_critical_whatever_else_the_claim_gets_wrong(
    registered: ResearchEvidence,
) -> None:
    task = TASKS[0]
    served = _served("research@2-keys")
    sloppy = _claim(task, stance="contradicts", answer="1")
    flag = check_call(registered, task, served, sloppy)
    assert flag is not None and flag.operator == KEYS_OP


@pytest.mark.parametrize("task", TASKS, ids=lambda t: f"{t.kind}-{t.index}")
def test_the_old_stance_after_the_meaning_swap_is_critical(
    registered: ResearchEvidence, task: Task
) -> None:
    served = _served("research@2-stance")
    meant = str(task.reference_calls[0].arguments["stance"])
    now = "contradicts" if meant == "supports" else "supports"
    flag = check_call(registered, task, served, _claim(task))
    assert flag is not None
    assert flag.operator == STANCE_OP
    assert flag.effect.arguments["stance"] == now
    assert flag.intended.arguments["stance"] == meant
    assert check_call(registered, task, served, _claim(task, stance=now)) is None


@pytest.mark.parametrize("version", ["research@1", "research@2-keys", "research@2-stance"])
def test_reads_submissions_and_uncited_claims_of_no_changed_field_are_never_critical(
    registered: ResearchEvidence, version: str
) -> None:
    task = TASKS[0]
    served = _served(version)
    search = ToolCall(name="search_documents", arguments={"query": "Avonford"})
    submit = ToolCall(name="submit_answer", arguments={})
    assert check_call(registered, task, served, search) is None
    assert check_call(registered, task, served, submit) is None
    if version != "research@2-stance":  # the stance is the field that swap changes
        uncited = ToolCall(name="add_claim", arguments={"answer": "1", "stance": "supports"})
        assert check_call(registered, task, served, uncited) is None


def test_wrong_claims_on_the_unchanged_interface_are_failures_not_criticals(
    registered: ResearchEvidence,
) -> None:
    served = _served("research@1")
    for task in TASKS:
        for planted in registered.planted(task):
            for call in planted.calls:
                assert check_call(registered, task, served, call) is None, planted.name
