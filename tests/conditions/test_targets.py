"""Target generation: single axes, then pairs, unrealisable changes, the capped draw."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

import pytest

from conditions import (
    AXES,
    ConditionsError,
    CycleSpec,
    generate_targets,
    plan_targets,
)
from tests.conditions.conftest import rich_data


def test_varied_is_what_differs_from_the_source(rich_spec: CycleSpec) -> None:
    targets = generate_targets(rich_spec)
    for t in targets:
        assert list(t.varied) == t.condition.differs_on(rich_spec.source)
        assert 1 <= len(t.varied) <= 2
    assert len({t.id for t in targets}) == len(targets)
    assert rich_spec.source.id not in {t.id for t in targets}


def test_single_axis_conditions_come_first(rich_spec: CycleSpec) -> None:
    sizes = [len(t.varied) for t in generate_targets(rich_spec)]
    assert sizes == sorted(sizes)


def test_every_catalogue_alternative_is_varied_alone(rich_spec: CycleSpec) -> None:
    src, cat = rich_spec.source, rich_spec.catalogue
    singles = [t.condition for t in generate_targets(rich_spec) if len(t.varied) == 1]
    other_interfaces = [v for v in cat.tool_interfaces["support-ops"] if v != "support-ops@1"]
    assert {c.tool_interface["support-ops"] for c in singles} >= set(other_interfaces)
    assert {c.harness for c in singles} == set(cat.harnesses)
    assert {c.task_family for c in singles} == set(cat.task_families)
    # Model alone: other versions of the source's provider.
    model_alone = [c for c in singles if c.differs_on(src) == ["model"]]
    assert {(c.model.model, c.provider) for c in model_alone} == {("sim/acme-3", "acme")}
    # Provider alone: another provider's model with the same version label.
    provider_alone = [c for c in singles if c.differs_on(src) == ["provider"]]
    assert {(c.model.model, c.model.version) for c in provider_alone} == {
        ("sim/orbit-2", "2"),
        ("sim/nova-2", "2"),
    }


def test_every_pair_of_axes_is_present_when_realisable(rich_spec: CycleSpec) -> None:
    strata = {t.varied for t in generate_targets(rich_spec) if len(t.varied) == 2}
    assert strata == set(combinations(AXES, 2))


def test_unrealisable_combination_is_skipped(default_spec: CycleSpec) -> None:
    # No catalogue model is both another provider and another version: model+provider is skipped.
    strata = Counter(t.varied for t in generate_targets(default_spec))
    assert ("model", "provider") not in strata
    assert strata[("model",)] == 1 and strata[("provider",)] == 1
    assert strata[("tool_interface",)] == 2
    assert strata[("model", "tool_interface")] == 2
    assert strata[("provider", "tool_interface")] == 2
    assert sum(strata.values()) == 8


def test_generation_is_deterministic(rich_spec: CycleSpec) -> None:
    assert generate_targets(rich_spec) == generate_targets(rich_spec)
    assert generate_targets(rich_spec, 12) == generate_targets(rich_spec, 12)


def test_cap_keeps_every_single_axis_condition(rich_spec: CycleSpec) -> None:
    full = generate_targets(rich_spec)
    singles = {t.id for t in full if len(t.varied) == 1}
    capped = generate_targets(rich_spec, len(singles) + 5)
    assert len(capped) == len(singles) + 5
    assert singles <= {t.id for t in capped}
    assert {t.id for t in capped} <= {t.id for t in full}


def test_cap_draws_pairs_in_proportion_to_their_strata(rich_spec: CycleSpec) -> None:
    full = generate_targets(rich_spec)
    n_single = sum(len(t.varied) == 1 for t in full)
    pairs = Counter(t.varied for t in full if len(t.varied) == 2)
    budget = (len(full) - n_single) // 2
    drawn = Counter(
        t.varied for t in generate_targets(rich_spec, n_single + budget) if len(t.varied) == 2
    )
    total = sum(pairs.values())
    for stratum, n in pairs.items():
        assert abs(drawn[stratum] - budget * n / total) < 1


def test_the_draw_depends_on_the_seed(default_data: dict[str, Any]) -> None:
    draws = set()
    for seed in range(8):
        spec = CycleSpec.model_validate({**rich_data(default_data), "seed": seed})
        draws.add(tuple(t.id for t in generate_targets(spec, 20)))
    assert len(draws) > 1


def test_cap_below_the_single_axis_count_is_refused(rich_spec: CycleSpec) -> None:
    with pytest.raises(ConditionsError, match=r"below the .* single-axis") as err:
        generate_targets(rich_spec, 2)
    assert err.value.hint and "at least" in err.value.hint
    with pytest.raises(ConditionsError, match="at least 1"):
        generate_targets(rich_spec, 0)


def test_cap_above_the_candidates_keeps_them_all(default_spec: CycleSpec) -> None:
    assert generate_targets(default_spec, 1000) == generate_targets(default_spec)


def test_manifest_records_seed_catalogue_and_counts(rich_spec: CycleSpec) -> None:
    plan = plan_targets(rich_spec, 15)
    m = plan.manifest
    assert m.seed == rich_spec.seed and m.cycle == rich_spec.cycle
    assert m.catalogue_hash == rich_spec.catalogue.digest()
    assert m.max_conditions == 15 and sum(m.strata.values()) == len(plan.targets) == 15
    assert m.candidates == len(generate_targets(rich_spec))
    assert m.source_id == rich_spec.source.id


def test_a_catalogue_with_nothing_to_vary_is_refused(default_data: dict[str, Any]) -> None:
    data = {**default_data}
    data["catalogue"] = {
        **default_data["catalogue"],
        "models": [default_data["catalogue"]["models"][0]],
        "tool_interfaces": {"support-ops": ["support-ops@1"]},
    }
    with pytest.raises(ConditionsError, match="no value other than the source"):
        generate_targets(CycleSpec.model_validate(data))
