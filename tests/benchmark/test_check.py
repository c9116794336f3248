"""Cycle specs are checked against what is built in, and may define their own interfaces."""

import json
from pathlib import Path

import pytest
import yaml

from benchmark import BenchmarkError, check_cycle_spec, default_cycle_spec_path, served_interface
from conditions import ConditionsError, CycleSpec
from drift import GenerateConfig, OpSpec, generate


def _data() -> dict:
    data: dict = yaml.safe_load(default_cycle_spec_path().read_text())
    return data


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_the_embedded_default_checks() -> None:
    check_cycle_spec(CycleSpec.load(default_cycle_spec_path()))


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["catalogue"]["harnesses"].append("harness-v9"), "unknown harness"),
        (
            lambda d: d["catalogue"]["tool_interfaces"]["support-ops"].append("support-ops@9"),
            "unknown interface version 'support-ops@9'",
        ),
        (
            lambda d: d["catalogue"]["task_families"].append(
                {"family": "support_ops", "split": "examples"}
            ),
            "holds worked examples for building artifacts",
        ),
        (
            lambda d: (
                d["catalogue"]["task_families"].append({"family": "poetry", "split": "x"}),
                d["families"]["held_out"].append("poetry"),
            ),
            "unknown task family",
        ),
        (
            lambda d: d["catalogue"]["models"].append(
                {"model": "sim/orbit-3", "version": "4", "provider": "orbit"}
            ),
            "disagree with the sim catalogue",
        ),
        (
            lambda d: d["catalogue"]["models"].append(
                {"model": "sim/zeta-1", "version": "1", "provider": "zeta"}
            ),
            "unknown sim model",
        ),
    ],
)
def test_unknown_names_are_refused(edit, message: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data = _data()
    edit(data)
    with pytest.raises(BenchmarkError, match=message):
        check_cycle_spec(CycleSpec.load(_write(tmp_path, data)))


def _generated(tmp_path: Path, op: str, **params: object) -> Path:
    base = served_interface("support-ops", "support-ops@1")
    config = GenerateConfig(
        ops=[OpSpec(kind=op, params=params)], seed=3, env="support-ops", id="support-ops@3-gen"
    )
    vf = generate(config, base.tools, base.version)
    path = tmp_path / "v3.json"
    path.write_text(vf.model_dump_json(by_alias=True))
    return path


def test_a_generated_version_file_can_be_named_in_the_catalogue(tmp_path: Path) -> None:
    _generated(tmp_path, "rename_tool", tool="get_order", new_name="fetch_order")
    data = _data()
    data["interfaces"] = ["v3.json"]
    data["catalogue"]["tool_interfaces"]["support-ops"].append("support-ops@3-gen")
    spec = CycleSpec.load(_write(tmp_path, data))
    assert [v.id for v in spec.interfaces] == ["support-ops@3-gen"]
    check_cycle_spec(spec)
    served = served_interface("support-ops", "support-ops@3-gen", spec.interfaces)
    assert "fetch_order" in served.tools.names()


def test_a_version_that_does_not_apply_to_the_environment_is_refused(tmp_path: Path) -> None:
    path = _generated(tmp_path, "rename_tool", tool="get_order", new_name="fetch_order")
    vf = json.loads(path.read_text())
    vf["version"]["ops"][0]["tool"] = "no_such_tool"
    data = _data()
    data["interfaces"] = [vf["version"]]
    data["catalogue"]["tool_interfaces"]["support-ops"].append("support-ops@3-gen")
    with pytest.raises(BenchmarkError, match="does not apply"):
        check_cycle_spec(CycleSpec.load(_write(tmp_path, data)))


def test_a_missing_version_file_is_a_spec_error(tmp_path: Path) -> None:
    data = _data()
    data["interfaces"] = ["nowhere.json"]
    with pytest.raises(ConditionsError, match=r"nowhere\.json"):
        CycleSpec.load(_write(tmp_path, data))
