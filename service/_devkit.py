"""The dev kit: what a submitter needs to develop locally against the cycle's public source
condition, and nothing about its targets.

The kit holds a public cycle spec (the source condition; a catalogue of the source's own values;
only the source's interface versions; no endpoints; development families only; a public dev
seed in place of the secret one), the dev-split tasks a dev run uses and the source interface's
tool definitions. The secret seed draws the sealed splits (``Family.split_seed``) and every
trial's model seed (``runner.plan_phase``); the dev split does not depend on it. The dev seed is
a hash of the operator's (deterministic, Ed25519) signature of the cycle id: it has nothing of
the secret seed, so no guess of that seed can be checked against it, and the sealed tasks
cannot be regenerated from it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from benchmark import FAMILIES, Task, family, served_interface
from conditions import Catalogue, Cycle, CycleSpec, FamilyRoles
from runner import dev_condition
from service.errors import ServiceError
from submissions import shown

DEV_KIT_VERSION: Literal[1] = 1
"""Format version of the dev kit."""
_DEV_SEED_DOMAIN = b"vwt/dev-seed"


class DevKit(BaseModel):
    """What ``GET /api/v1/dev-kit`` serves and ``vwt dev-kit pull`` writes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(description="Format version of the dev kit (1).")
    spec: CycleSpec = Field(
        description="The public cycle spec: the source condition only, with a public dev seed."
    )
    tasks: tuple[Task, ...] = Field(
        description="The dev-split task instances a dev run uses (the spec's tasks_per_split "
        "per development family)."
    )
    tools: dict[str, list[dict[str, Any]]] = Field(
        description="Environment id → the source interface's served tool definitions (MCP "
        "form), for each development family's environment."
    )

    @model_validator(mode="after")
    def _public_only(self) -> Self:
        """Refuse a kit that holds anything beyond the source condition (the client checks
        what a server sent with this)."""
        spec, src = self.spec, self.spec.source
        cat = spec.catalogue
        if (
            len(cat.models) != 1
            or cat.harnesses != [src.harness]
            or cat.task_families != [src.task_family]
            or any(v != [src.tool_interface[e]] for e, v in cat.tool_interfaces.items())
        ):
            raise ValueError("the spec's catalogue holds values other than the source's")
        if spec.endpoints or spec.family_roles.held_out:
            raise ValueError("the spec names endpoints or held-out families")
        if any(src.tool_interface[v.env] != v.id for v in spec.interfaces):
            raise ValueError("the spec defines interface versions the source does not use")
        split = dev_condition(src).task_family.split
        families = set(src.task_family.families)
        for t in self.tasks:
            if t.split != split or t.family not in families:
                raise ValueError(f"task {t.id!r} is not of a development family's {split} split")
        envs = {FAMILIES[f].env_id for f in families if f in FAMILIES}
        if set(self.tools) - envs:
            raise ValueError("tools are given for environments no development family uses")
        return self


def dev_seed(cycle: Cycle) -> int:
    """The public seed of ``cycle``'s dev kit (52 bits, exact in JSON numbers): a hash of the
    operator's signature of the cycle id. Ed25519 signs deterministically, so the seed is fixed
    for the cycle; no one without the key can compute it, and it says nothing of the cycle's
    secret seed, however few the seeds an operator might have picked."""
    signature = cycle.sign(b"\x1f".join([_DEV_SEED_DOMAIN, cycle.id.encode()]))
    return int.from_bytes(hashlib.sha256(signature).digest()[:8], "big") >> 12


def public_spec(spec: CycleSpec, seed: int) -> CycleSpec:
    """``spec`` reduced to its public source condition, with the public dev ``seed``."""
    src = spec.source
    families = list(src.task_family.families)
    catalogue = Catalogue(
        models=[
            m
            for m in spec.catalogue.models
            if (m.model, m.version, m.provider)
            == (src.model.model, src.model.version, src.provider)
        ],
        tool_interfaces={env: [version] for env, version in src.tool_interface.items()},
        task_families=[src.task_family],
        harnesses=[src.harness],
        family_envs={f: e for f, e in spec.catalogue.family_envs.items() if f in families},
    )
    return CycleSpec(
        v=1,
        cycle=spec.cycle,
        seed=seed,
        opens_at=spec.opens_at,
        closes_at=spec.closes_at,
        source=src,
        catalogue=catalogue,
        evaluation=spec.evaluation,
        adaptation=spec.adaptation,
        families=FamilyRoles(development=families),
        interfaces=tuple(v for v in spec.interfaces if src.tool_interface.get(v.env) == v.id),
    )


def build_dev_kit(cycle: Cycle) -> dict[str, Any]:
    """The dev kit of ``cycle`` (JSON-ready): public spec, dev tasks, source tool definitions."""
    spec = public_spec(cycle.spec, dev_seed(cycle))
    condition = dev_condition(spec.source)
    split, n = condition.task_family.split, spec.evaluation.tasks_per_split
    tasks: list[Task] = []
    tools: dict[str, list[dict[str, Any]]] = {}
    for fam in map(family, condition.task_family.families):
        tasks += fam.tasks(split, n, spec.seed)
        version = condition.tool_interface[fam.env_id]
        served = served_interface(fam.env_id, version, spec.interfaces)
        tools[fam.env_id] = list(served.tools.to_mcp())
    kit = DevKit(v=DEV_KIT_VERSION, spec=spec, tasks=tuple(tasks), tools=tools)
    return kit.model_dump(mode="json")


_README = """\
# Dev kit of cycle {cycle}

Pulled from {url}. Develop against the cycle's public source condition: model {model},
harness {harness}, task families {families} on their public dev split.

- spec.json: the public cycle spec: the source condition, the evaluation size, the adaptation
  budget and a public dev seed (not the cycle's secret seed). It holds no target condition.
- tasks.json: the {n} dev-split tasks a dev run uses, with their reference solutions.
- tools.json: the tool definitions the source interface serves (MCP form), per environment.

Next:

    vwt submissions init my-bundle
    vwt run dev --spec {out}/spec.json --submission my-bundle
    vwt submissions pack my-bundle
    vwt submissions submit NAME-VERSION.bundle.json --to {url}
"""


def write_dev_kit(kit: DevKit, out: Path, url: str) -> list[Path]:
    """Write ``kit`` (pulled from ``url``) to the new directory ``out``: spec.json, tasks.json,
    tools.json and README.md; the paths written. Refuses an ``out`` that exists and is not an
    empty directory."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ServiceError(
            f"{shown(str(out))} exists and is not an empty directory", "pass a new --out directory"
        )
    src = kit.spec.source
    readme = _README.format(
        cycle=shown(kit.spec.cycle),
        url=shown(url),
        model=shown(src.model.model),
        harness=shown(src.harness),
        families=shown(", ".join(src.task_family.families)),
        n=len(kit.tasks),
        out=shown(str(out)),
    )
    files = {
        "spec.json": kit.spec.model_dump_json(indent=2) + "\n",
        "tasks.json": json.dumps([t.model_dump(mode="json") for t in kit.tasks], indent=2) + "\n",
        "tools.json": json.dumps(kit.tools, indent=2, sort_keys=True) + "\n",
        "README.md": readme,
    }
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8")
        written.append(out / name)
    return written
