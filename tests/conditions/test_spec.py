"""The cycle spec: loading YAML and JSON, cross-field rules, and the JSON Schema in the repo."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conditions import ConditionsError, CycleSpec

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "conditions" / "cycle_spec.schema.json"


def _write(tmp_path: Path, data: Any, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data) if name.endswith(".json") else yaml.safe_dump(data))
    return path


def test_default_spec_loads_with_its_values(default_spec: CycleSpec) -> None:
    assert default_spec.cycle == "vwt-default-2026-12"
    assert default_spec.source.provider == "acme"
    assert default_spec.catalogue.tool_interfaces["support-ops"][0] == "support-ops@1"
    assert default_spec.evaluation.k == 3


def test_json_and_yaml_give_the_same_spec(tmp_path: Path, default_data: dict[str, Any]) -> None:
    from_json = CycleSpec.load(_write(tmp_path, default_data, "s.json"))
    from_yaml = CycleSpec.load(_write(tmp_path, default_data, "s.yaml"))
    assert from_json == from_yaml


def test_unquoted_yaml_times_are_kept_as_rfc3339(tmp_path: Path, default_data: dict) -> None:
    text = yaml.safe_dump(default_data).replace("'2026-12-01T00:00:00Z'", "2026-12-01T00:00:00Z")
    assert "'2026-12-01" not in text
    path = tmp_path / "s.yaml"
    path.write_text(text)
    assert CycleSpec.load(path).opens_at == "2026-12-01T00:00:00Z"


def _broken(data: dict[str, Any], where: str, value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(data))
    *parents, last = where.split(".")
    node: Any = data
    for p in parents:
        node = node[int(p)] if p.isdigit() else node[p]
    if value is None:
        del node[last]
    else:
        node[last] = value
    return data


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        ("closes_at", "2026-11-01T00:00:00Z", "closes_at must be later"),
        ("opens_at", "2026-12-01", "RFC 3339"),
        ("opens_at", "2026-12-01T00:00:00", "RFC 3339"),
        ("cycle", "Has Spaces", "cycle"),
        ("source.provider", "orbit", "catalogue.models entry"),
        ("source.model.version", "3", "catalogue.models entry"),
        ("source.tool_interface", {"other": "x@1"}, "exactly the catalogue's environments"),
        ("source.tool_interface.support-ops", "support-ops@9", "not in catalogue"),
        ("source.task_family.split", "dev", "task_families"),
        ("source.harness", "harness-v9", "harnesses"),
        ("catalogue.harnesses", ["harness-v1", "harness-v1"], "twice"),
        ("catalogue.tool_interfaces.support-ops", [], "empty"),
        ("catalogue.models", [], "at least 1"),
        ("evaluation.fdr_q", 1.5, "fdr_q"),
        ("evaluation.k", 0, "k"),
        ("adaptation.budget_calls", -1, "budget_calls"),
        ("v", 2, "v"),
        ("surprise", 1, "Extra inputs"),
        ("seed", None, "seed"),
        ("families", {"development": ["research_evidence"]}, "exactly the source's"),
        ("families", {"development": ["support_ops"], "held_out": ["support_ops"]}, "both"),
        ("source.task_family.family", ["support_ops", "support_ops"], "twice"),
        ("source.task_family.family", [], "family set"),
    ],
)
def test_invalid_specs_are_refused_with_the_reason(
    tmp_path: Path, default_data: dict[str, Any], where: str, value: Any, message: str
) -> None:
    path = _write(tmp_path, _broken(default_data, where, value))
    with pytest.raises(ConditionsError, match="is invalid") as err:
        CycleSpec.load(path)
    assert message in str(err.value)
    assert err.value.hint and "schema" in err.value.hint


def test_unreadable_and_unparsable_files_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(ConditionsError, match="cannot read"):
        CycleSpec.load(tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("cycle: [unclosed\n")
    with pytest.raises(ConditionsError, match="does not parse"):
        CycleSpec.load(bad)
    truncated = tmp_path / "t.json"
    truncated.write_text('{"v": 1, "cycle": ')
    with pytest.raises(ConditionsError, match="is not valid JSON \\(it looks truncated\\)"):
        CycleSpec.load(truncated)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("deep.json", "[" * 100_000 + "]" * 100_000, "nests deeper than 64 levels"),
        ("deep.json", '{"a":' * 65 + "1" + "}" * 65, "nests deeper than 64 levels"),
        ("deep.yaml", "[" * 100_000 + "]" * 100_000, "nesting deeper than 64 levels at line 1"),
        ("deep.yaml", "".join("  " * i + "a:\n" for i in range(70)), "nesting deeper than 64"),
        ("alias.yaml", "a: &x [1, 2]\nb: *x\n", "aliases (*name) are not allowed at line 2"),
        ("bad.yaml", "cycle: [unclosed\n", "expected ',' or ']', but got '<stream end>'"),
    ],
)
def test_deep_aliased_or_broken_files_are_one_line_errors(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConditionsError) as err:
        CycleSpec.load(path)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert err.value.hint


@pytest.mark.parametrize("name", ["s.yaml", "s.json"])
def test_nesting_up_to_the_cap_still_parses(tmp_path: Path, default_data: dict, name: str) -> None:
    data = json.loads(json.dumps(default_data))
    data["surprise"] = json.loads("[" * 63 + "]" * 63)  # 64 levels with the spec object
    with pytest.raises(ConditionsError, match="is invalid: surprise: Extra inputs"):
        CycleSpec.load(_write(tmp_path, data, name))
    data["surprise"] = [data["surprise"]]
    with pytest.raises(ConditionsError, match="deeper than 64 levels"):
        CycleSpec.load(_write(tmp_path, data, name))


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        (Path("/dev/zero"), "it is not a regular file"),
        (Path("/"), "it is a directory"),
    ],
)
def test_non_files_are_refused_without_reading(path: Path, problem: str) -> None:
    with pytest.raises(ConditionsError, match=f"cannot read cycle spec {path}: {problem}"):
        CycleSpec.load(path)


def test_a_spec_larger_than_the_cap_is_refused(tmp_path: Path) -> None:
    from conditions._spec import MAX_SPEC_BYTES

    big = tmp_path / "big.yaml"
    big.write_text("# padding\n" * (MAX_SPEC_BYTES // 10 + 1))
    with pytest.raises(ConditionsError, match="is larger than 4,194,304 bytes"):
        CycleSpec.load(big)


def test_schema_file_matches_the_model() -> None:
    assert json.loads(SCHEMA_FILE.read_text()) == CycleSpec.model_json_schema()


def test_schema_accepts_the_default_and_rejects_what_the_model_rejects(
    default_data: dict[str, Any],
) -> None:
    schema = json.loads(SCHEMA_FILE.read_text())
    jsonschema.validate(default_data, schema)
    for where, value in [("surprise", 1), ("evaluation.k", 0), ("seed", None)]:
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(_broken(default_data, where, value), schema)


def test_catalogue_digest_tracks_the_catalogue(default_data: dict[str, Any]) -> None:
    a = CycleSpec.model_validate(default_data)
    b = CycleSpec.model_validate(_broken(default_data, "catalogue.harnesses", ["harness-v1", "h2"]))
    c = CycleSpec.model_validate(_broken(default_data, "seed", 7))
    assert a.catalogue.digest() != b.catalogue.digest()
    assert a.catalogue.digest() == c.catalogue.digest()


def test_family_roles_are_declared_or_implied(default_data: dict[str, Any]) -> None:
    data = json.loads(json.dumps(default_data))
    data["catalogue"]["task_families"].append(
        {"family": ["reconciliation", "support_ops"], "split": "sealed"}
    )
    implied = CycleSpec.model_validate(data).family_roles
    assert (implied.development, implied.held_out) == (["support_ops"], ["reconciliation"])
    data["families"] = {"development": ["support_ops"]}
    with pytest.raises(ValueError, match=r"\['reconciliation'\] are neither development nor held"):
        CycleSpec.model_validate(data)
    data["families"]["held_out"] = ["reconciliation", "research_evidence"]
    declared = CycleSpec.model_validate(data).family_roles
    assert declared.held_out == ["reconciliation", "research_evidence"]
