"""Reading tool lists: both MCP forms, round trips, and every kind of bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drift import DriftError, Tool, load_tool_list, parse_tool_list

TOOL = {"name": "t", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}


def test_both_forms_read_the_same_and_round_trip(tmp_path: Path) -> None:
    rich = {**TOOL, "title": "T", "annotations": {"readOnlyHint": True}}
    bare, wrapped = parse_tool_list([rich]), parse_tool_list({"tools": [rich]})
    assert bare == wrapped
    assert bare.to_mcp() == [rich]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [rich]}))
    assert load_tool_list(path).digest() == bare.digest()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tool": []}, "expected a JSON array of tool definitions"),
        ([{"name": "t"}], "tool #0 is not a tool definition (inputSchema"),
        ([{"inputSchema": {"type": "object"}}], "tool #0 is not a tool definition (name"),
        ([TOOL, TOOL], "duplicate tool names: t"),
        ([{"name": "t", "inputSchema": {"type": "array"}}], "must describe an object"),
        (
            [
                {
                    "name": "t",
                    "inputSchema": {"type": "object", "properties": {"x": {"type": "strng"}}},
                }
            ],
            "inputSchema is not valid JSON Schema (at properties/x/type",
        ),
        (
            [{**TOOL, "outputSchema": {"type": "object", "required": "x"}}],
            "outputSchema is not valid JSON Schema (at required",
        ),
    ],
)
def test_bad_tool_lists_name_the_source_and_problem(data: object, message: str) -> None:
    with pytest.raises(DriftError) as err:
        parse_tool_list(data, "old.json")
    assert str(err.value).startswith("old.json")
    assert message in str(err.value)
    assert err.value.hint


def test_a_schema_checked_once_is_judged_the_same_every_time() -> None:
    # schemas that passed are remembered by their JSON: one that differs only in a value, or
    # in a type JSON tells apart (1 vs true), is checked again
    good = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    bad = {"type": "object", "properties": {"n": {"type": "integer", "minimum": "1"}}}
    for _ in range(2):
        assert parse_tool_list([{"name": "t", "inputSchema": good}]).tools[0].name == "t"
        with pytest.raises(DriftError, match=r"not valid JSON Schema \(at properties/n/minimum"):
            parse_tool_list([{"name": "t", "inputSchema": bad}])
    flag = {"type": "object", "properties": {"b": {"type": "boolean", "default": True}}}
    odd = {"type": "object", "properties": {"b": {"type": "boolean", "uniqueItems": 1}}}
    assert parse_tool_list([{"name": "t", "inputSchema": flag}])
    with pytest.raises(DriftError, match=r"not valid JSON Schema \(at properties/b/uniqueItems"):
        parse_tool_list([{"name": "t", "inputSchema": odd}])
    odd_true = {"type": "object", "properties": {"b": {"type": "boolean", "uniqueItems": True}}}
    assert parse_tool_list([{"name": "t", "inputSchema": odd_true}])
    with pytest.raises(DriftError, match="not valid JSON Schema"):
        parse_tool_list([{"name": "t", "inputSchema": odd}])


def test_bad_files(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"tools": [')
    with pytest.raises(DriftError, match=r"broken.json: not valid JSON \(line 1"):
        load_tool_list(broken)
    with pytest.raises(DriftError, match="cannot read"):
        load_tool_list(tmp_path / "missing.json")


def test_openai_form() -> None:
    tool = Tool.model_validate({**TOOL, "description": "Do t."})
    assert tool.to_openai()["function"] == {
        "name": "t",
        "description": "Do t.",
        "parameters": TOOL["inputSchema"],
    }
