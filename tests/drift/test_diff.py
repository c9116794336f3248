"""The classifier recovers every generated operator, and reads real-world kinds of change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from drift import (
    KINDS,
    GenerateConfig,
    OpSpec,
    ToolSet,
    classify,
    generate,
    load_tool_list,
    parse_tool_list,
)

BASE = load_tool_list(Path(__file__).parent / "fixtures" / "base_tools.json")
EXPECTED = {
    "rename_field": "field_renamed",
    "rename_tool": "tool_renamed",
    "reorder": "reordered",
    "add_field": "field_added",
    "offset_to_cursor": "pagination_changed",
    "page_size": "page_size_changed",
    "reword": "description_reworded",
    "nest": "field_nested",
    "flatten": "field_flattened",
    "rename_enum": "enum_values_renamed",
    "unit_change": "unit_changed",
    "default_flip": "default_changed",
    "sign_flip": "sign_changed",
    "fraction_percent": "scale_changed",
    "enum_meaning": "enum_meaning_changed",
    "timezone": "timezone_changed",
    "id_swap": "identifier_changed",
}
"""The classifier kind each operator must show up as (a suffix match)."""


def _served(
    kinds: list[str], seed: int, random: int = 0
) -> tuple[ToolSet, list[dict[str, object]]]:
    config = GenerateConfig(ops=[OpSpec(kind=k) for k in kinds], random=random, seed=seed, env="t")
    vf = generate(config, BASE)
    entries = [{"op": e.op, "class": e.drift_class, **e.params} for e in vf.changelog]
    return parse_tool_list(vf.tools), entries


def test_every_kind_has_an_expectation() -> None:
    # the kinds applied by name only are read in tests/drift/test_real_ops.py
    assert set(EXPECTED) == {k for k, cls in KINDS.items() if cls.drawn}


@pytest.mark.parametrize("kind", sorted(EXPECTED))
@pytest.mark.parametrize("seed", range(6))
def test_diff_recovers_each_operator(kind: str, seed: int) -> None:
    served, (entry,) = _served([kind], seed)
    report = classify(BASE, served)
    found = [c for c in report.changes if c.kind.endswith(EXPECTED[kind])]
    assert found, [c.kind for c in report.changes]
    assert all(c.drift_class == entry["class"] for c in found)
    tool = entry.get("new_name") if kind == "rename_tool" else entry.get("tool")
    assert tool is None or any(c.tool == tool for c in found)
    assert report.label() == entry["class"]


@pytest.mark.parametrize("seed", range(12))
def test_diff_recovers_composed_operators(seed: int) -> None:
    served, entries = _served([], seed, random=3)
    report = classify(BASE, served)
    kinds = {c.kind for c in report.changes}
    for entry in entries:
        assert any(k.endswith(EXPECTED[str(entry["op"])]) for k in kinds), (entry, kinds)
    changing = any(e["class"] == "changing" for e in entries)
    assert report.label() == ("changing" if changing else "preserving")


def test_identical_lists_have_no_changes() -> None:
    assert classify(BASE, BASE).changes == []


def _one(props_old: dict[str, Any], props_new: dict[str, Any]) -> list[tuple[str, str, str]]:
    old = parse_tool_list(
        [{"name": "t", "inputSchema": {"type": "object", "properties": props_old}}]
    )
    new = parse_tool_list(
        [{"name": "t", "inputSchema": {"type": "object", "properties": props_new}}]
    )
    return [(c.path, c.kind, c.drift_class) for c in classify(old, new).changes]


def test_rename_is_found_by_similarity_not_position() -> None:
    old = {
        "a": {"type": "string", "description": "Customer email address."},
        "b": {"type": "integer", "description": "Maximum results."},
    }
    new = {
        "max_results": {"type": "integer", "description": "Maximum results."},
        "email": {"type": "string", "description": "Customer email address."},
    }
    got = _one(old, new)
    assert ("email", "field_renamed", "preserving") in got
    assert ("max_results", "field_renamed", "preserving") in got


def test_type_change_without_explanation_is_unknown() -> None:
    got = _one({"id": {"type": "integer"}}, {"id": {"type": "string"}})
    assert got == [("id", "type_changed", "unknown")]


def test_removed_field_is_unknown_and_added_required_is_unknown() -> None:
    got = _one({"a": {"type": "string"}}, {"b": {"type": "boolean"}})
    assert ("a", "field_removed", "unknown") in got
    assert ("b", "field_added", "preserving") in got


def test_schema_default_change_is_changing() -> None:
    got = _one({"n": {"type": "integer", "default": 3}}, {"n": {"type": "integer", "default": 5}})
    assert got == [("n", "default_changed", "changing")]


def test_tool_list_forms_and_output_schema() -> None:
    tool = {
        "name": "t",
        "inputSchema": {"type": "object"},
        "outputSchema": {
            "type": "object",
            "properties": {"total": {"type": "integer", "description": "Total, in cents."}},
        },
    }
    changed = {
        **tool,
        "outputSchema": {
            "type": "object",
            "properties": {"total": {"type": "number", "description": "Total, in dollars."}},
        },
    }
    report = classify(parse_tool_list({"tools": [tool]}), parse_tool_list([changed]))
    assert ("output.total", "unit_changed", "changing") in [
        (c.path, c.kind, c.drift_class) for c in report.changes
    ]
