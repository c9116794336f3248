"""Target generation: each axis varied alone, then each pair; capped by a stratified draw."""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from conditions._condition import AXES, Condition, keyed_condition_id
from conditions._spec import CycleSpec
from conditions._wire import Hex32
from conditions.errors import ConditionsError


class Target(BaseModel):
    """A hidden target condition, the axes on which it differs from the source, and its salt."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    condition: Condition = Field(description="The target condition.")
    varied: tuple[str, ...] = Field(description="Axes changed versus the source, in AXES order.")
    salt: Hex32 = Field(
        description="32 secret random bytes (hex), drawn at generation: key of the id and the "
        "salt of the committed leaf."
    )

    @property
    def id(self) -> str:
        """The keyed id (``keyed_condition_id``): meaningless without the private salt."""
        return keyed_condition_id(self.condition, self.salt)


class GenerationManifest(BaseModel):
    """How a target set was generated: enough to regenerate it from the spec."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Format version.")
    cycle: str = Field(description="Cycle id.")
    seed: int = Field(description="The cycle's public seed (not used by the draw).")
    draw_seed: int | None = Field(
        description="Secret seed of the capped draw (secrets.randbits(128)), None without a "
        "cap; private, so the public catalogue and seed do not give the chosen set."
    )
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
class _Candidate:
    """A realisable condition, before it is drawn and salted."""

    condition: Condition
    varied: tuple[str, ...]


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


def _candidates(spec: CycleSpec) -> list[_Candidate]:
    """Every realisable condition that differs from the source on exactly one or two axes."""
    src = spec.source
    options = _options(spec)
    conditions = [src.model_copy(update=o.updates) for o in options]
    for a, b in itertools.combinations(options, 2):
        if not a.updates.keys() & b.updates.keys():
            conditions.append(src.model_copy(update={**a.updates, **b.updates}))
    found: dict[str, _Candidate] = {}
    for c in conditions:
        c = Condition.model_validate(c.model_dump())
        varied = tuple(c.differs_on(src))
        if 1 <= len(varied) <= 2 and not _idle_interface(spec, c, varied):
            found.setdefault(c.id, _Candidate(condition=c, varied=varied))
    return sorted(found.values(), key=_order)


def _idle_interface(spec: CycleSpec, c: Condition, varied: tuple[str, ...]) -> bool:
    """Whether ``c`` changes tool interfaces only of environments its family does not use
    (per ``catalogue.family_envs``): its trials would repeat a condition without the change.
    A family set uses the environments of all its families."""
    envs = [spec.catalogue.family_envs.get(f) for f in c.task_family.families]
    if None in envs or "tool_interface" not in varied:
        return False
    return all(c.tool_interface[e] == spec.source.tool_interface[e] for e in envs if e)


def _order(t: _Candidate) -> tuple[int, tuple[int, ...], str]:
    # The public (unkeyed) id only breaks ties; the order reveals nothing the catalogue doesn't.
    return (len(t.varied), tuple(AXES.index(a) for a in t.varied), t.condition.id)


def _allocate(sizes: dict[tuple[str, ...], int], budget: int) -> dict[tuple[str, ...], int]:
    """Split ``budget`` over strata in proportion to their sizes (largest remainder)."""
    total = sum(sizes.values())
    exact = {s: budget * n / total for s, n in sizes.items()}
    alloc = {s: int(q) for s, q in exact.items()}
    by_remainder = sorted(sizes, key=lambda s: alloc[s] - exact[s])
    for s in by_remainder[: budget - sum(alloc.values())]:
        alloc[s] += 1
    return alloc


def _draw(candidates: list[_Candidate], cap: int, seed: int) -> list[_Candidate]:
    singles = [t for t in candidates if len(t.varied) == 1]
    if cap < len(singles):
        raise ConditionsError(
            f"--max-conditions {cap} is below the {len(singles)} single-axis conditions",
            f"every single-axis condition is kept; pass at least {len(singles)}",
        )
    strata: dict[tuple[str, ...], list[_Candidate]] = {}
    for t in candidates[len(singles) :]:
        strata.setdefault(t.varied, []).append(t)
    alloc = _allocate({s: len(ts) for s, ts in strata.items()}, cap - len(singles))
    rng = np.random.default_rng(seed)
    kept = list(singles)
    for s, ts in strata.items():
        picks = rng.choice(len(ts), size=alloc[s], replace=False)
        kept += [ts[i] for i in sorted(picks)]
    return kept


def plan_targets(
    spec: CycleSpec, max_conditions: int | None = None, *, draw_seed: int | None = None
) -> TargetSet:
    """Generate the cycle's targets and their manifest (see ``generate_targets``).

    A capped draw uses ``draw_seed``, by default a fresh secret one (recorded in the private
    manifest, so the draw can be redone by whoever holds it). Every target gets a fresh salt.
    """
    if max_conditions is not None and max_conditions < 1:
        raise ConditionsError("--max-conditions must be at least 1", "pass a positive number")
    candidates = _candidates(spec)
    if not candidates:
        raise ConditionsError(
            "the catalogue offers no value other than the source's on any axis",
            "add models, tool-interface versions, task families or harnesses to the catalogue",
        )
    kept, used_seed = candidates, None
    if max_conditions is not None and max_conditions < len(candidates):
        used_seed = secrets.randbits(128) if draw_seed is None else draw_seed
        kept = _draw(candidates, max_conditions, used_seed)
    targets = [
        Target(condition=c.condition, varied=c.varied, salt=secrets.token_bytes(32).hex())
        for c in kept
    ]
    strata: dict[str, int] = {}
    for t in targets:
        strata["+".join(t.varied)] = strata.get("+".join(t.varied), 0) + 1
    manifest = GenerationManifest(
        cycle=spec.cycle,
        seed=spec.seed,
        draw_seed=used_seed,
        catalogue_hash=spec.catalogue.digest(),
        source_id=spec.source.id,
        max_conditions=max_conditions,
        candidates=len(candidates),
        strata=strata,
    )
    return TargetSet(manifest=manifest, targets=targets)


def generate_targets(
    spec: CycleSpec, max_conditions: int | None = None, *, draw_seed: int | None = None
) -> list[Target]:
    """Target conditions: each axis varied alone, then each pair, each with a secret salt.

    Conditions come from the spec's catalogue; a change the catalogue cannot realise (e.g. a
    new provider at a new version when no model has both) is skipped. ``varied`` is always
    what ``Condition.differs_on`` reports against the source. ``max_conditions`` keeps every
    single-axis condition and draws the rest from each pair stratum in proportion to its size,
    with a secret seed.
    """
    return plan_targets(spec, max_conditions, draw_seed=draw_seed).targets
