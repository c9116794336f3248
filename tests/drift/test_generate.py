"""Generating versions: specs, random draws, labels, parents, version files and their errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from drift import (
    DriftError,
    GenerateConfig,
    InterfaceVersion,
    OpSpec,
    ServedInterface,
    generate,
    load_op_specs,
    load_tool_list,
    load_version_file,
    parse_op_spec,
    read_base,
)

FIXTURE = Path(__file__).parent / "fixtures" / "base_tools.json"
BASE = load_tool_list(FIXTURE)


def test_parse_op_spec_values_are_json_where_they_parse() -> None:
    spec = parse_op_spec(
        'unit_change:tool=issue_refund,field=amount_cents,scale=100,extra=["a","b"]'
    )
    assert spec.kind == "unit_change"
    assert spec.params == {
        "tool": "issue_refund",
        "field": "amount_cents",
        "scale": 100,
        "extra": ["a", "b"],
    }
    assert parse_op_spec("reorder").params == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("teleport:x=1", "unknown operator kind 'teleport'"),
        ("reorder:seed", "bad operator parameter"),
    ],
)
def test_bad_op_specs(text: str, message: str) -> None:
    with pytest.raises(DriftError, match=message):
        parse_op_spec(text)


def test_generation_is_deterministic_and_declared() -> None:
    config = GenerateConfig(ops=[OpSpec(kind="unit_change")], random=2, seed=11, env="support")
    first, second = generate(config, BASE), generate(config, BASE)
    assert first == second
    assert first.version.label == "2" and first.version.id == "support@2"
    assert len(first.changelog) == 3 and first.changelog[0].op == "unit_change"
    assert first.digest == ServedInterface(BASE, first.version).digest != BASE.digest()
    assert generate(config.model_copy(update={"seed": 12}), BASE).digest != first.digest


def test_explicit_params_are_used_and_bad_ones_rejected() -> None:
    spec = OpSpec(
        kind="rename_field", params={"tool": "issue_refund", "field": "reason", "new_name": "why"}
    )
    vf = generate(GenerateConfig(ops=[spec], seed=0, env="e"), BASE)
    assert "why" in vf.tools[2]["inputSchema"]["properties"]
    bad = OpSpec(
        kind="unit_change",
        params={
            "tool": "issue_refund",
            "field": "amount_cents",
            "old_unit": "cents",
            "new_unit": "dollars",
            "scale": -1,
        },
    )
    with pytest.raises(DriftError, match="bad parameter scale"):
        generate(GenerateConfig(ops=[bad], seed=0, env="e"), BASE)
    with pytest.raises(DriftError, match="no tool named 'nope'"):
        generate(
            GenerateConfig(
                ops=[OpSpec(kind="rename_tool", params={"tool": "nope", "new_name": "x"})],
                seed=0,
                env="e",
            ),
            BASE,
        )


def test_undeclared_drift_keeps_the_label_and_chains_the_parent(tmp_path: Path) -> None:
    first = generate(GenerateConfig(ops=[OpSpec(kind="rename_tool")], seed=1, env="e"), BASE)
    path = tmp_path / "v2.json"
    path.write_text(first.model_dump_json(by_alias=True))
    base, parent = read_base(path)
    assert base == BASE and parent == first.version
    second = generate(
        GenerateConfig(ops=[OpSpec(kind="reword")], seed=2, env="e", undeclared=True), base, parent
    )
    assert second.version.label == first.version.label
    assert second.version.id.startswith("e@2~") and second.version.parent == first.version.id
    assert len(second.version.ops) == 2 and len(second.changelog) == 1
    assert second.digest != first.digest


def test_random_draws_only_what_applies() -> None:
    with pytest.raises(DriftError, match=r"only .* operator kinds apply"):
        generate(GenerateConfig(random=40, seed=0, env="e"), BASE)
    with pytest.raises(DriftError, match="no operators asked for"):
        generate(GenerateConfig(seed=0, env="e"), BASE)


def test_version_files_round_trip_and_catch_tampering(tmp_path: Path) -> None:
    vf = generate(GenerateConfig(random=4, seed=5, env="e"), BASE)
    path = tmp_path / "v.json"
    path.write_text(vf.model_dump_json(by_alias=True))
    assert load_version_file(path) == vf
    assert InterfaceVersion.model_validate_json(vf.version.model_dump_json()) == vf.version
    data = json.loads(path.read_text())
    data["tools"][0]["description"] = "edited"
    path.write_text(json.dumps(data))
    with pytest.raises(DriftError, match="digest differs"):
        load_version_file(path)
    path.write_text(json.dumps({"tools": []}))
    with pytest.raises(DriftError, match="not a version file"):
        load_version_file(path)


def test_op_spec_files(tmp_path: Path) -> None:
    path = tmp_path / "ops.json"
    path.write_text(json.dumps([{"op": "reorder", "seed": 3}, {"op": "timezone"}]))
    assert [s.kind for s in load_op_specs(path)] == ["reorder", "timezone"]
    path.write_text(json.dumps({"op": "reorder"}))
    with pytest.raises(DriftError, match="expected a JSON list"):
        load_op_specs(path)
