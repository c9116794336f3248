"""Target generation: single axes, then pairs, unrealisable changes, the capped draw."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

import pytest

from conditions import (
    AXES,
    Condition,
    ConditionsError,
    CycleSpec,
    Target,
    generate_targets,
    plan_targets,
)


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


def _conditions(targets: list[Target]) -> list[tuple[Condition, tuple[str, ...]]]:
    return [(t.condition, t.varied) for t in targets]


def test_uncapped_generation_is_deterministic_but_salted_afresh(rich_spec: CycleSpec) -> None:
    a, b = generate_targets(rich_spec), generate_targets(rich_spec)
    assert _conditions(a) == _conditions(b)
    assert not {t.salt for t in a} & {t.salt for t in b}
    assert not {t.id for t in a} & {t.id for t in b}


def test_a_capped_draw_is_redone_only_with_its_secret_seed(rich_spec: CycleSpec) -> None:
    plan = plan_targets(rich_spec, 12)
    seed = plan.manifest.draw_seed
    assert seed is not None and seed != rich_spec.seed
    again = generate_targets(rich_spec, 12, draw_seed=seed)
    assert _conditions(again) == _conditions(plan.targets)
    # Knowing the catalogue and the public seed does not give the chosen set: fresh secret
    # seeds draw different sets (identical 8 times only with negligible probability).
    draws = {tuple(t.condition.id for t in generate_targets(rich_spec, 12)) for _ in range(8)}
    assert len(draws) > 1
    assert plan_targets(rich_spec).manifest.draw_seed is None


def test_cap_keeps_every_single_axis_condition(rich_spec: CycleSpec) -> None:
    full = generate_targets(rich_spec)
    singles = {t.condition.id for t in full if len(t.varied) == 1}
    capped = generate_targets(rich_spec, len(singles) + 5)
    assert len(capped) == len(singles) + 5
    assert singles <= {t.condition.id for t in capped}
    assert {t.condition.id for t in capped} <= {t.condition.id for t in full}


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


def test_the_draw_depends_on_the_draw_seed(rich_spec: CycleSpec) -> None:
    draws = {
        tuple(t.condition.id for t in generate_targets(rich_spec, 20, draw_seed=seed))
        for seed in range(8)
    }
    assert len(draws) > 1


def test_cap_below_the_single_axis_count_is_refused(rich_spec: CycleSpec) -> None:
    with pytest.raises(ConditionsError, match=r"below the .* single-axis") as err:
        generate_targets(rich_spec, 2)
    assert err.value.hint and "at least" in err.value.hint
    with pytest.raises(ConditionsError, match="at least 1"):
        generate_targets(rich_spec, 0)


def test_cap_above_the_candidates_keeps_them_all(default_spec: CycleSpec) -> None:
    assert _conditions(generate_targets(default_spec, 1000)) == _conditions(
        generate_targets(default_spec)
    )


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
