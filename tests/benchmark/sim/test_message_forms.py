"""The sim reads messages in the forms agent frameworks send them: content as a list of text
parts, a tool result inside its MCP content block serialised whole. The form alone changes no
move; what the text says (an error) does."""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmark import served_interface
from benchmark.sim import next_move, sim_model
from tests.benchmark.sim._experiment import run_arm

TOOLS = [t.to_openai() for t in served_interface("support-ops", "support-ops@1").tools.tools]
SPEC = sim_model("sim/acme-3")


def _parts(m: dict[str, Any]) -> dict[str, Any]:
    """As openai-agents 0.8 sends it: the content as text parts."""
    if not isinstance(m.get("content"), str):
        return m
    return {**m, "content": [{"type": "text", "text": m["content"]}]}


def _wrapped(m: dict[str, Any]) -> dict[str, Any]:
    """As openai-agents 0.2 sends a tool result: its MCP text block, serialised whole."""
    if m.get("role") != "tool":
        return m
    block = {"type": "text", "text": m["content"], "annotations": None, "meta": None}
    return {**m, "content": json.dumps(block)}


@pytest.fixture(scope="module")
def transcripts() -> list[list[dict[str, Any]]]:
    """harness-v1 transcripts of sim/acme-3 on support-ops tasks, each with tool results."""
    arm = run_arm("acme-3", tasks=6, split="dev")
    return [r.run.messages for r in arm.results if any(m["role"] == "tool" for m in r.run.messages)]


def _prefixes(messages: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Every request the model was sent: the messages before each of its replies."""
    return [messages[:i] for i, m in enumerate(messages) if m["role"] == "assistant"]


def test_the_form_of_the_messages_changes_no_move(
    transcripts: list[list[dict[str, Any]]],
) -> None:
    compared = 0
    for messages in transcripts:
        for sent in _prefixes(messages):
            for seed in (1, 2):
                move = next_move(SPEC, seed, sent, TOOLS)
                for form in (_parts, _wrapped, lambda m: _parts(_wrapped(m))):
                    assert next_move(SPEC, seed, [form(m) for m in sent], TOOLS) == move
                compared += 1
    assert compared >= 12


def test_an_error_inside_a_wrapped_result_is_read_as_an_error(
    transcripts: list[list[dict[str, Any]]],
) -> None:
    differs = 0
    for messages in transcripts:
        for sent in _prefixes(messages):
            if sent[-1]["role"] != "tool":
                continue
            failed = {**sent[-1], "content": "error: the backend refused the call"}
            plain = next_move(SPEC, 1, [*sent[:-1], failed], TOOLS)
            assert next_move(SPEC, 1, [*sent[:-1], _wrapped(failed)], TOOLS) == plain
            differs += plain != next_move(SPEC, 1, sent, TOOLS)
    assert differs >= 1  # what the result says moves the model; its wrapping does not
