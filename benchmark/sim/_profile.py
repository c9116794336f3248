"""A sim model's draws for one trial: common random numbers, plus per-arm sampling noise.

Every decision of a trial is drawn once, from the part of the request seed that every arm of
the trial shares (``benchmark._seeds.shared_seed``): paired arms share their draws, which is
where pairing gets its power. With probability ``temperature`` a decision is drawn afresh from
the whole request seed instead, which differs per arm: that is sampling noise, and it is why an
A/A comparison shows noise rather than an identity.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from benchmark._seeds import shared_seed
from benchmark._task import stable_int
from benchmark.sim._catalogue import FORMATS, SimModelSpec

_TRAITS = (
    "read_numbers",
    "map_enums",
    "know_procedure",
    "read_schema",
    "read_conventions",
    "recover",
    "load_skills",
    "notice_conflicts",
)


@dataclass(frozen=True)
class Profile:
    """This trial's draws for one model."""

    reads_numbers: bool
    maps_enums: bool
    knows_procedure: bool
    reads_schema: bool
    reads_conventions: bool
    recovers: bool
    loads_skills: bool
    notices_conflicts: bool
    follows: frozenset[str]
    misread: float  # which detail is misread, when one is
    variant: float  # how it is misread
    understands: bool = True


def draw_profile(spec: SimModelSpec, seed: int, instruction: str) -> Profile:
    """The per-trial draws of ``spec`` for a request with ``seed`` about ``instruction``."""
    n = len(_TRAITS) + len(FORMATS) + 3  # the last: understanding (drawn after the rest)
    shared = np.random.default_rng(stable_int(spec.name, shared_seed(seed), instruction))
    own = np.random.default_rng(stable_int(spec.name, seed, instruction, "sampling"))
    u = shared.random(n)
    redrawn = own.random(n) < spec.temperature
    u = np.where(redrawn, own.random(n), u)
    traits = {t: bool(u[i] < getattr(spec, t)) for i, t in enumerate(_TRAITS)}
    offset = len(_TRAITS)
    follows = frozenset(f for i, f in enumerate(FORMATS) if u[offset + i] < spec.follows[f])
    return Profile(
        reads_numbers=traits["read_numbers"],
        maps_enums=traits["map_enums"],
        knows_procedure=traits["know_procedure"],
        reads_schema=traits["read_schema"],
        reads_conventions=traits["read_conventions"],
        recovers=traits["recover"],
        loads_skills=traits["load_skills"],
        notices_conflicts=traits["notice_conflicts"],
        follows=follows,
        misread=float(u[-3]),
        variant=float(u[-2]),
        understands=bool(u[-1] < spec.understand),
    )
