"""The catalogue of simulated models: each a set of behavioural parameters, nothing else.

No parameter names a task, a condition or an outcome: transfer effects emerge from how these
parameters meet the messages and tool schemas a model is sent.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from benchmark.errors import BenchmarkError

PROVIDER = "sim"
"""The litellm provider prefix of sim models: ``sim/<name>``."""
RECIPE_FORMATS = ("numbered", "bullets", "headings", "tables")


class SimModelSpec(BaseModel):
    """Behavioural parameters of one simulated model version (probabilities per trial)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Model name; the litellm model string is 'sim/<name>'.")
    provider: str = Field(description="Simulated provider id.")
    version: str = Field(description="Version label.")
    understanding: dict[str, float] = Field(
        description="Per family: probability of reading every detail of an instruction right."
    )
    procedure: float = Field(description="Probability it knows the whole procedure unaided.")
    codes: float = Field(description="Probability it picks the right reason code unaided.")
    reread_schema: float = Field(
        description="Probability it maps intent onto the schema it is sent rather than the "
        "interface it remembers from training."
    )
    read_units: float = Field(description="Probability it reads units from field descriptions.")
    recover: float = Field(description="Probability it re-reads the schema after a tool error.")
    skill_tool: float = Field(
        description="Probability it calls an on-demand skill-loading tool without being told."
    )
    recipe_formats: tuple[str, ...] = Field(
        description="Free-text recipe formats it follows: numbered, bullets, headings, tables."
    )
    remembers: str = Field(description="Interface version id it was trained on.")


def _spec(**kw: object) -> SimModelSpec:
    return SimModelSpec.model_validate(kw)


SIM_MODELS: dict[str, SimModelSpec] = {
    s.name: s
    for s in (
        _spec(
            name="acme-1",
            provider="acme",
            version="1",
            understanding={"support_ops": 0.8},
            procedure=0.3,
            codes=0.45,
            reread_schema=0.6,
            read_units=0.4,
            recover=0.45,
            skill_tool=0.2,
            recipe_formats=("numbered",),
            remembers="support-ops@1",
        ),
        _spec(
            name="acme-2",
            provider="acme",
            version="2",
            understanding={"support_ops": 0.9},
            procedure=0.45,
            codes=0.55,
            reread_schema=0.85,
            read_units=0.55,
            recover=0.6,
            skill_tool=0.3,
            recipe_formats=("numbered", "bullets"),
            remembers="support-ops@1",
        ),
        _spec(
            name="acme-3",
            provider="acme",
            version="3",
            understanding={"support_ops": 0.97},
            procedure=0.92,
            codes=0.93,
            reread_schema=0.95,
            read_units=0.85,
            recover=0.85,
            skill_tool=0.6,
            recipe_formats=("numbered", "bullets", "headings"),
            remembers="support-ops@1",
        ),
        _spec(
            name="orbit-2",
            provider="orbit",
            version="2",
            understanding={"support_ops": 0.88},
            procedure=0.5,
            codes=0.5,
            reread_schema=0.6,
            read_units=0.5,
            recover=0.5,
            skill_tool=0.25,
            recipe_formats=("headings", "tables"),
            remembers="support-ops@1",
        ),
        _spec(
            name="orbit-3",
            provider="orbit",
            version="3",
            understanding={"support_ops": 0.95},
            procedure=0.85,
            codes=0.85,
            reread_schema=0.9,
            read_units=0.8,
            recover=0.8,
            skill_tool=0.5,
            recipe_formats=("headings", "tables"),
            remembers="support-ops@1",
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
