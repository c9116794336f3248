"""Checking a cycle spec against what is built in, before anything is committed or run."""

from __future__ import annotations

from benchmark._model_check import check_model
from benchmark._registry import family, family_for_env, interface_version, serve
from benchmark.errors import BenchmarkError
from benchmark.harness import usable_harness
from benchmark.sim import PROVIDER, sim_model
from conditions import CycleSpec


def check_cycle_spec(spec: CycleSpec) -> None:
    """Raise BenchmarkError unless every family, environment, interface version, harness and
    model the spec names exists, every interface applies to its environment's tools (and, for a
    family written as a folder, the MCP servers its releases run are installed), and every
    harness can run here (a framework harness's environment is installed).

    Every model string goes through :func:`check_model`: a known provider and, for real
    providers, their credentials (or the key variable of the model's endpoint) set in the
    environment (whether the provider serves that
    model cannot be checked offline).
    """
    cat = spec.catalogue
    for entry in cat.task_families:
        for fam_id in entry.families:
            built = family(fam_id)
            built.generate(entry.split, 0, 0)  # unknown family or split raises
            if entry.split == built.examples_split:
                raise BenchmarkError(
                    f"task family {fam_id}: split {entry.split!r} holds worked examples for "
                    "building artifacts and is never evaluated",
                    f"evaluate on one of: {', '.join(s for s in built.splits if s != entry.split)}",
                )
    for fam_id, env in cat.family_envs.items():
        if family(fam_id).env_id != env:
            raise BenchmarkError(
                f"catalogue.family_envs.{fam_id} is {env!r}, but the family's environment is "
                f"{family(fam_id).env_id!r}",
                "fix the catalogue entry",
            )
    for env, versions in cat.tool_interfaces.items():
        fam = family_for_env(env)
        for vid in versions:
            version = interface_version(env, vid, spec.interfaces)
            serve(env, version)
            fam.external_server(version)  # a server command's installs are there (folders)
    for harness in cat.harnesses:
        usable_harness(harness)
    for m in cat.models:
        check_model(m.model, spec.endpoints.get(m.model))
        if m.model.startswith(PROVIDER + "/"):
            sim = sim_model(m.model)
            if (sim.provider, sim.version) != (m.provider, m.version):
                raise BenchmarkError(
                    f"catalogue model {m.model}: provider/version {m.provider}/{m.version} "
                    f"disagree with the sim catalogue ({sim.provider}/{sim.version})",
                    "fix the catalogue entry",
                )
