"""Slot sources read from results: ``FromRow`` takes a value out of the row of a result list
that shows the request's stated values, through ``next_move`` on a tiny pack."""

from __future__ import annotations

import json
from typing import Any

import pytest

import benchmark.sim._pack
from benchmark._seeds import request_seed
from benchmark.sim import (
    Action,
    FromRow,
    Kind,
    KnowledgePack,
    Move,
    Slot,
    Step,
    next_move,
    register_pack,
    sim_model,
)
from drift import Tool, ToolSet
from tests.benchmark.sim._experiment import use_model


def _tool(name: str, description: str, fields: tuple[str, ...]) -> Tool:
    props = {f: {"type": "string", "description": f"The {f}."} for f in fields}
    schema = {"type": "object", "properties": props, "required": list(fields)}
    return Tool(name=name, description=description, input_schema=schema)


TOOLS = ToolSet(
    tools=(
        _tool("find_notes", "Find notes mentioning a word.", ("word",)),
        _tool("quote_note", "Quote a note and the figure it gives.", ("note", "figure")),
    )
)
_hits = FromRow("find_notes", rows="hits", match=("town", "year"), key="note")
_figure = FromRow(
    "find_notes", rows="hits", match=("town", "year"), key="text", pattern=r"(\d+) mm"
)
PACK = KnowledgePack(
    family="toy_notes",
    actions={
        "find_notes": Action({"find": 3, "notes": 2}, {"town": {"word": 3}}),
        "quote_note": Action({"quote": 3}, {"note": {"note": 3}, "figure": {"figure": 3}}),
    },
    kinds=(
        Kind(
            "rainfall",
            {"rainfall": 3},
            {
                "town": Slot("text", stated=r"in ([A-Z]\w+)"),
                "year": Slot("text", stated=r"\b(\d{4})\b"),
                "note": Slot("id", derive=_hits),
                "figure": Slot("text", derive=_figure),
            },
            (Step("quote_note", {"note": "note", "figure": "figure"}, core=True),),
        ),
    ),
    concepts={},
    remembered=lambda: {t.name: t.to_openai()["function"] for t in TOOLS.tools},
)
HITS = [
    {"note": "N-1", "text": "Rainfall in Avonford in 2018: 790 mm."},
    {"note": "N-2", "text": "Rainfall in Brimley in 2019: 655 mm."},
    {"note": "N-3", "text": "Rainfall in Avonford in 2019: 812 mm."},
    {"note": "N-4", "text": "Snow in Avonford in 2019: 14 cm."},  # a later row that matches too
]
ASK = "What was the rainfall in Avonford in 2019?"


@pytest.fixture(autouse=True)
def _pack(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy pack, registered for one test only."""
    monkeypatch.setattr(benchmark.sim._pack, "_PACKS", dict(benchmark.sim._pack._PACKS))
    register_pack(PACK)


def _move(model: str, hits: list[dict[str, Any]] | None, seed: int = 0) -> Move:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": ""},
        {"role": "user", "content": ASK},
    ]
    if hits is not None:
        call = {"name": "find_notes", "arguments": json.dumps({"word": "Avonford"})}
        messages += [
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": call}]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"hits": hits})},
        ]
    return next_move(sim_model(model), seed, messages, [t.to_openai() for t in TOOLS.tools])


def test_a_row_source_plans_the_lookup_it_reads_first(monkeypatch: pytest.MonkeyPatch) -> None:
    move = _move(use_model(monkeypatch, "reader"), None)
    assert (move.tool, move.arguments) == ("find_notes", {"word": "Avonford"})


def test_a_row_source_reads_the_row_showing_every_matched_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    move = _move(use_model(monkeypatch, "reader"), HITS)
    assert (move.tool, move.arguments) == ("quote_note", {"note": "N-3", "figure": "812"})


def test_no_row_showing_the_values_leaves_the_slot_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    others = [h for h in HITS if h["note"] in ("N-1", "N-2")]
    move = _move(use_model(monkeypatch, "reader"), others)
    assert move.tool is None
    assert move.text == "I could not work out the note."


def test_a_pattern_the_row_value_lacks_leaves_the_slot_unknown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    move = _move(use_model(monkeypatch, "reader"), [HITS[3]])  # snow, in cm
    assert move.text == "I could not work out the figure."


def test_a_misreader_takes_another_row_for_one_slot(monkeypatch: pytest.MonkeyPatch) -> None:
    misreader = use_model(monkeypatch, "misreader", read_numbers=0.0)
    moves = [_move(misreader, HITS, request_seed(trial, "baseline")) for trial in range(40)]
    quoted = [m.arguments or {} for m in moves if m.tool == "quote_note"]
    wrong_note = {a["note"] for a in quoted if a["figure"] == "812"}
    wrong_figure = {a["figure"] for a in quoted if a["note"] == "N-3"}
    assert len(wrong_note) + len(wrong_figure) > 3
    assert wrong_note <= {"N-1", "N-2", "N-4"}  # never the right row
    assert wrong_figure <= {"790", "655"}
    assert all(a["note"] == "N-3" or a["figure"] == "812" for a in quoted)  # one slot misread
    unknown = [m for m in moves if m.tool is None]  # another row, without a figure in mm
    assert all(m.text == "I could not work out the figure." for m in unknown)
