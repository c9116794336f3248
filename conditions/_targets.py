"""Target generation: each axis varied alone, then each pair; capped by a stratified draw."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from conditions._condition import AXES, Condition
from conditions._spec import CycleSpec
from conditions.errors import ConditionsError


class Target(BaseModel):
    """A hidden target condition and the axes on which it differs from the source."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    condition: Condition = Field(description="The target condition.")
    varied: tuple[str, ...] = Field(description="Axes changed versus the source, in AXES order.")

    @property
    def id(self) -> str:
        """The condition's id."""
        return self.condition.id


class GenerationManifest(BaseModel):
    """How a target set was generated: enough to regenerate it from the spec."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Format version.")
    cycle: str = Field(description="Cycle id.")
    seed: int = Field(description="Cycle seed the draw used.")
    catalogue_hash: str = Field(description="SHA-256 of the catalogue's canonical JSON.")
    source_id: str = Field(description="Id of the source condition.")
    max_conditions: int | None = Field(description="Cap asked for, or None for no cap.")
    candidates: int = Field(description="Realisable single- and two-axis conditions.")
    strata: dict[str, int] = Field(description="Targets kept per varied-axes stratum.")


class TargetSet(BaseModel):
    """The generated targets with their manifest, as stored in the operator's private area."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Format version.")
    manifest: GenerationManifest = Field(description="How the targets were generated.")
    targets: list[Target] = Field(description="Single-axis targets first, then pairs.")


@dataclass(frozen=True)
class _Option:
    """One way to move away from the source: the fields it sets."""

    updates: dict[str, Any]


def _options(spec: CycleSpec) -> list[_Option]:
    src, cat = spec.source, spec.catalogue
    opts = [_Option({"model": m.axis(), "provider": m.provider}) for m in cat.models]
    for env, versions in cat.tool_interfaces.items():
        opts += [_Option({"tool_interface": {**src.tool_interface, env: v}}) for v in versions]
    opts += [_Option({"task_family": f}) for f in cat.task_families]
    opts += [_Option({"harness": h}) for h in cat.harnesses]
    return opts


def _candidates(spec: CycleSpec) -> list[Target]:
    """Every realisable condition that differs from the source on exactly one or two axes."""
    src = spec.source
    options = _options(spec)
    conditions = [src.model_copy(update=o.updates) for o in options]
    for a, b in itertools.combinations(options, 2):
        if not a.updates.keys() & b.updates.keys():
            conditions.append(src.model_copy(update={**a.updates, **b.updates}))
    found: dict[str, Target] = {}
    for c in conditions:
        c = Condition.model_validate(c.model_dump())
        varied = tuple(c.differs_on(src))
        if 1 <= len(varied) <= 2:
            found.setdefault(c.id, Target(condition=c, varied=varied))
    return sorted(found.values(), key=_order)


def _order(t: Target) -> tuple[int, tuple[int, ...], str]:
    return (len(t.varied), tuple(AXES.index(a) for a in t.varied), t.id)


def _allocate(sizes: dict[tuple[str, ...], int], budget: int) -> dict[tuple[str, ...], int]:
    """Split ``budget`` over strata in proportion to their sizes (largest remainder)."""
    total = sum(sizes.values())
    exact = {s: budget * n / total for s, n in sizes.items()}
    alloc = {s: int(q) for s, q in exact.items()}
    by_remainder = sorted(sizes, key=lambda s: alloc[s] - exact[s])
    for s in by_remainder[: budget - sum(alloc.values())]:
        alloc[s] += 1
    return alloc


def _draw(candidates: list[Target], cap: int, seed: int) -> list[Target]:
    singles = [t for t in candidates if len(t.varied) == 1]
    if cap < len(singles):
        raise ConditionsError(
            f"--max-conditions {cap} is below the {len(singles)} single-axis conditions",
            f"every single-axis condition is kept; pass at least {len(singles)}",
        )
    strata: dict[tuple[str, ...], list[Target]] = {}
    for t in candidates[len(singles) :]:
        strata.setdefault(t.varied, []).append(t)
    alloc = _allocate({s: len(ts) for s, ts in strata.items()}, cap - len(singles))
    rng = np.random.default_rng(seed)
    kept = list(singles)
    for s, ts in strata.items():
        picks = rng.choice(len(ts), size=alloc[s], replace=False)
        kept += [ts[i] for i in sorted(picks)]
    return kept


def plan_targets(spec: CycleSpec, max_conditions: int | None = None) -> TargetSet:
    """Generate the cycle's targets and their manifest (see ``generate_targets``)."""
    if max_conditions is not None and max_conditions < 1:
        raise ConditionsError("--max-conditions must be at least 1", "pass a positive number")
    candidates = _candidates(spec)
    if not candidates:
        raise ConditionsError(
            "the catalogue offers no value other than the source's on any axis",
            "add models, tool-interface versions, task families or harnesses to the catalogue",
        )
    targets = candidates
    if max_conditions is not None and max_conditions < len(candidates):
        targets = _draw(candidates, max_conditions, spec.seed)
    strata: dict[str, int] = {}
    for t in targets:
        strata["+".join(t.varied)] = strata.get("+".join(t.varied), 0) + 1
    manifest = GenerationManifest(
        cycle=spec.cycle,
        seed=spec.seed,
        catalogue_hash=spec.catalogue.digest(),
        source_id=spec.source.id,
        max_conditions=max_conditions,
        candidates=len(candidates),
        strata=strata,
    )
    return TargetSet(manifest=manifest, targets=targets)


def generate_targets(spec: CycleSpec, max_conditions: int | None = None) -> list[Target]:
    """Target conditions: each axis varied alone, then each pair, deterministic from the seed.

    Conditions come from the spec's catalogue; a change the catalogue cannot realise (e.g. a
    new provider at a new version when no model has both) is skipped. ``varied`` is always
    what ``Condition.differs_on`` reports against the source. ``max_conditions`` keeps every
    single-axis condition and draws the rest from each pair stratum in proportion to its size.
    """
    return plan_targets(spec, max_conditions).targets
