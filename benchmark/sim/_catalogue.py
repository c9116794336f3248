"""The catalogue of simulated models: each a set of behavioural parameters, nothing else.

Parameters describe kinds of skill (reading numbers, mapping enums, following procedures,
reading schemas and their conventions, recovering from errors, following each artifact format),
never a family, task, condition or outcome: transfer effects emerge from how these parameters
meet the messages and tool schemas a model is sent (see docs/sim.md).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from benchmark.errors import BenchmarkError

PROVIDER = "sim"
"""The litellm provider prefix of sim models: ``sim/<name>``."""
FORMATS = ("numbered", "bullets", "headings", "tables", "prose", "skill", "episode")
"""Artifact forms a model may follow: recipe line formats, typed skills, retrieved episodes."""

Probability = Annotated[float, Field(ge=0.0, le=1.0)]


class SimModelSpec(BaseModel):
    """Behavioural parameters of one simulated model version (probabilities per trial)."""

    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)

    name: str = Field(description="Model name; the litellm model string is 'sim/<name>'.")
    provider: str = Field(description="Simulated provider id.")
    version: str = Field(description="Version label.")
    understand: Probability
    """Understands what a request asks, however it is worded (else it does not know how to
    help): reading skill is this probability, not a list of phrasings it knows."""
    read_numbers: Probability
    """Reads every detail of a request right (else misreads one, the way people do)."""
    map_enums: Probability
    """Picks the right enum code unaided (else a catch-all code, where the family has one)."""
    know_procedure: Probability
    """Knows the steps a request implies without stating them."""
    read_schema: Probability
    """Maps its intent onto the schema it is sent rather than the one it remembers."""
    read_conventions: Probability
    """Reads units, scales, signs, zones, meanings and defaults from descriptions it reads."""
    recover: Probability
    """Re-reads the schema after a tool error and tries again."""
    load_skills: Probability
    """Calls an on-demand skill-loading tool without being told to."""
    notice_conflicts: Probability
    """Notices that an artifact and the schema it reads disagree."""
    on_conflict: Literal["schema", "stop", "artifact"] = Field(
        description="What it does about a conflict it notices: trust the schema, stop and "
        "report, or follow the artifact."
    )
    follows: dict[str, float] = Field(
        description="Per artifact form (" + ", ".join(FORMATS) + "): probability it follows it."
    )
    temperature: float = Field(
        ge=0.0,
        le=1.0,
        description="Sampling noise: the share of its per-trial decisions drawn afresh per "
        "request seed (so per arm) rather than shared by every arm of the trial.",
    )

    @model_validator(mode="after")
    def _every_format(self) -> SimModelSpec:
        if set(self.follows) != set(FORMATS):
            raise ValueError(f"follows needs exactly these forms: {', '.join(FORMATS)}")
        if any(not 0.0 <= p <= 1.0 for p in self.follows.values()):
            raise ValueError("follows holds probabilities between 0 and 1")
        return self


def _spec(follows: tuple[float, ...], **kw: object) -> SimModelSpec:
    return SimModelSpec.model_validate({**kw, "follows": dict(zip(FORMATS, follows, strict=True))})


#           numbered bullets headings tables prose skill episode
SIM_MODELS: dict[str, SimModelSpec] = {
    s.name: s
    for s in (
        _spec(
            (0.9, 0.3, 0.2, 0.2, 0.5, 0.8, 0.8),
            name="acme-1",
            understand=0.9,
            provider="acme",
            version="1",
            read_numbers=0.8,
            map_enums=0.45,
            know_procedure=0.3,
            read_schema=0.6,
            read_conventions=0.4,
            recover=0.45,
            load_skills=0.2,
            notice_conflicts=0.2,
            on_conflict="artifact",
            temperature=0.15,
        ),
        _spec(
            (0.95, 0.85, 0.3, 0.3, 0.6, 0.9, 0.85),
            name="acme-2",
            understand=0.95,
            provider="acme",
            version="2",
            read_numbers=0.9,
            map_enums=0.55,
            know_procedure=0.45,
            read_schema=0.85,
            read_conventions=0.55,
            recover=0.6,
            load_skills=0.3,
            notice_conflicts=0.35,
            on_conflict="schema",
            temperature=0.15,
        ),
        _spec(
            (0.97, 0.95, 0.9, 0.5, 0.8, 0.95, 0.9),
            name="acme-3",
            understand=0.99,
            provider="acme",
            version="3",
            read_numbers=0.97,
            map_enums=0.93,
            know_procedure=0.92,
            read_schema=0.95,
            read_conventions=0.85,
            recover=0.85,
            load_skills=0.6,
            notice_conflicts=0.7,
            on_conflict="stop",
            temperature=0.1,
        ),
        _spec(
            (0.3, 0.3, 0.9, 0.9, 0.5, 0.7, 0.8),
            name="orbit-2",
            understand=0.92,
            provider="orbit",
            version="2",
            read_numbers=0.88,
            map_enums=0.5,
            know_procedure=0.5,
            read_schema=0.6,
            read_conventions=0.5,
            recover=0.5,
            load_skills=0.25,
            notice_conflicts=0.3,
            on_conflict="artifact",
            temperature=0.2,
        ),
        _spec(
            (0.4, 0.4, 0.95, 0.95, 0.7, 0.85, 0.9),
            name="orbit-3",
            understand=0.98,
            provider="orbit",
            version="3",
            read_numbers=0.95,
            map_enums=0.85,
            know_procedure=0.85,
            read_schema=0.9,
            read_conventions=0.8,
            recover=0.8,
            load_skills=0.5,
            notice_conflicts=0.6,
            on_conflict="schema",
            temperature=0.12,
        ),
    )
}


def sim_model(name: str) -> SimModelSpec:
    """The spec of sim model ``name`` (with or without the 'sim/' prefix)."""
    key = name.removeprefix("sim/")
    if key not in SIM_MODELS:
        raise BenchmarkError(
            f"unknown sim model {name!r}", f"sim models: {', '.join(sorted(SIM_MODELS))}"
        )
    return SIM_MODELS[key]
