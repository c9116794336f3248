"""The dev kit: the public source condition, its dev tasks and tools, and nothing of a target."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from benchmark import family, served_interface
from conditions import Cycle, CycleSpec
from drift import InterfaceVersion, RenameTool
from runner import dev_condition
from service import DevKit, build_dev_kit, dev_seed, public_spec, write_dev_kit
from tests.reports.test_verify import single_axis_targets, small_spec


@pytest.fixture(scope="module")
def cycle(tmp_path_factory: pytest.TempPathFactory) -> Cycle:
    """A small cycle with its targets committed."""
    spec = small_spec()
    cycle = Cycle.init(tmp_path_factory.mktemp("devkit") / "h", spec)
    cycle.generate(single_axis_targets(spec))
    cycle.commit(public_seed=True)
    return cycle


def _strings(data: Any, keys: bool = False) -> set[str]:
    """Every string value in ``data``, and every key if ``keys``."""
    if isinstance(data, dict):
        own = set(data) if keys else set()
        return own | {s for v in data.values() for s in _strings(v, keys)}
    if isinstance(data, list):
        return {s for v in data for s in _strings(v, keys)}
    return {data} if isinstance(data, str) else set()


def test_the_dev_kit_holds_no_value_of_a_target_or_the_catalogue(cycle: Cycle) -> None:
    text = json.dumps(build_dev_kit(cycle))
    private = json.loads(cycle.paths.targets.read_text())
    spec = cycle.spec
    # public: the source (its environments too) and the committed family roles
    public = _strings(spec.source.model_dump(mode="json"), keys=True) | _strings(
        spec.family_roles.model_dump(mode="json")
    )
    conditions = [t["condition"] for t in private["targets"]]
    hidden = (_strings(conditions) | _strings(spec.catalogue.model_dump(mode="json"))) - public
    hidden = {s for s in hidden if len(s) > 3}  # not version labels such as "3"
    assert {"sim/orbit-2", "harness-v3", "support-ops@2-units", "research@2-keys"} <= hidden
    assert all(t["salt"] not in text for t in private["targets"])
    assert [s for s in hidden if s in text] == []
    assert all(t.id not in text for t in cycle.targets())
    for secret in (spec.seed, private["manifest"]["draw_seed"], spec.catalogue.digest()):
        assert str(secret) not in text


def test_the_public_seed_cannot_regenerate_the_sealed_tasks(cycle: Cycle) -> None:
    kit = DevKit.model_validate(build_dev_kit(cycle))
    assert kit.spec.seed == dev_seed(cycle) != cycle.spec.seed
    support = family("support_ops")
    sealed = {t.id for t in support.tasks("sealed", 2, cycle.spec.seed)}
    assert sealed.isdisjoint(t.id for t in support.tasks("sealed", 2, kit.spec.seed))
    assert sealed.isdisjoint(t.id for t in kit.tasks)


def test_the_dev_seed_is_fixed_for_a_cycle_and_needs_its_operators_key(
    cycle: Cycle, tmp_path: Path
) -> None:
    """The same spec under another operator key gives another dev seed: knowing the spec (or
    guessing its seed) does not give the dev seed, nor the dev seed the secret seed."""
    seed = dev_seed(cycle)
    assert dev_seed(Cycle.open(cycle.home)) == seed and 0 <= seed < 2**52
    other = Cycle.init(tmp_path / "other", cycle.spec)
    assert other.spec == cycle.spec and dev_seed(other) != seed


def test_the_dev_kit_holds_the_dev_runs_tasks_and_the_source_tools(cycle: Cycle) -> None:
    kit = DevKit.model_validate(build_dev_kit(cycle))
    spec = kit.spec
    assert spec.source == cycle.source and spec.evaluation == cycle.spec.evaluation
    assert spec.family_roles.development == ["support_ops"] and spec.endpoints == {}
    assert spec.catalogue.harnesses == ["harness-v1"] and len(spec.catalogue.models) == 1
    n = cycle.spec.evaluation.tasks_per_split
    assert list(kit.tasks) == family("support_ops").tasks("dev", n, 0)
    assert dev_condition(spec.source).task_family.split == "dev"
    served = served_interface("support-ops", "support-ops@1")
    assert kit.tools == {"support-ops": list(served.tools.to_mcp())}
    # the public spec is what `vwt run dev --spec` loads
    assert CycleSpec.model_validate_json(spec.model_dump_json()) == public_spec(
        cycle.spec, dev_seed(cycle)
    )


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("full_spec", "values other than the source's"),
        ("held_out", "catalogue holds values other"),
        ("sealed_task", "not of a development family's dev split"),
        ("other_tools", "environments no development family uses"),
    ],
)
def test_a_kit_with_more_than_the_source_is_refused(cycle: Cycle, change: str, why: str) -> None:
    kit = build_dev_kit(cycle)
    if change == "full_spec":
        kit["spec"] = cycle.spec.model_dump(mode="json")
    elif change == "held_out":
        kit["spec"]["catalogue"]["task_families"].append(
            {"family": "reconciliation", "split": "sealed"}
        )
        kit["spec"]["families"]["held_out"] = ["reconciliation"]
    elif change == "sealed_task":
        kit["tasks"][0] = family("support_ops").tasks("sealed", 1, 7)[0].model_dump(mode="json")
    else:
        kit["tools"]["reconciliation"] = []
    with pytest.raises(ValidationError, match=why):
        DevKit.model_validate(kit)


def test_the_kit_is_the_same_on_every_call(cycle: Cycle) -> None:
    assert build_dev_kit(cycle) == build_dev_kit(Cycle.open(cycle.home))


def _own(n: int, tool: str) -> InterfaceVersion:
    return InterfaceVersion(
        id=f"support-ops@{n}",
        env="support-ops",
        label=str(n),
        parent="support-ops@1",
        ops=(RenameTool(tool="get_order", new_name=tool),),
    )


def test_only_the_sources_own_interface_version_is_handed_out(tmp_path: Path) -> None:
    data = small_spec().model_dump(mode="json")
    data["source"]["tool_interface"]["support-ops"] = "support-ops@7"
    data["catalogue"]["tool_interfaces"]["support-ops"] += ["support-ops@7", "support-ops@8"]
    data["interfaces"] = [
        _own(7, "fetch_order").model_dump(mode="json"),
        _own(8, "lookup_order").model_dump(mode="json"),
    ]
    cycle = Cycle.init(tmp_path / "h", CycleSpec.model_validate(data))
    kit = DevKit.model_validate(build_dev_kit(cycle))
    assert [v.id for v in kit.spec.interfaces] == ["support-ops@7"]
    names = {t["name"] for t in kit.tools["support-ops"]}
    assert "fetch_order" in names and "get_order" not in names
    assert "lookup_order" not in json.dumps(build_dev_kit(cycle))
    written = write_dev_kit(kit, tmp_path / "kit", "http://127.0.0.1:8470")
    assert [p.name for p in written] == ["spec.json", "tasks.json", "tools.json", "README.md"]
    assert CycleSpec.load(tmp_path / "kit" / "spec.json") == kit.spec
