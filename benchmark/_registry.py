"""What is built in: task families, and interface versions by environment."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from benchmark._task import Family
from benchmark.errors import BenchmarkError
from benchmark.support_ops import SupportOps
from drift import InterfaceVersion, ServedInterface

FAMILIES: dict[str, Family] = {f.id: f for f in (SupportOps(),)}


def family(family_id: str) -> Family:
    """The family ``family_id``."""
    if family_id not in FAMILIES:
        raise BenchmarkError(
            f"unknown task family {family_id!r}", f"families: {', '.join(sorted(FAMILIES))}"
        )
    return FAMILIES[family_id]


def family_for_env(env_id: str) -> Family:
    """The family whose environment is ``env_id``."""
    for f in FAMILIES.values():
        if f.env_id == env_id:
            return f
    raise BenchmarkError(f"no built-in environment {env_id!r}")


def interface_version(env_id: str, version_id: str) -> InterfaceVersion:
    """The built-in interface version ``version_id`` of environment ``env_id``."""
    versions = family_for_env(env_id).interface_versions()
    if version_id not in versions:
        raise BenchmarkError(
            f"unknown interface version {version_id!r} for {env_id!r}",
            f"versions: {', '.join(sorted(versions))}",
        )
    return versions[version_id]


def served_interface(env_id: str, version_id: str) -> ServedInterface:
    """The interface ``version_id`` made concrete over its environment's base tools."""
    return ServedInterface(
        family_for_env(env_id).base_tools(), interface_version(env_id, version_id)
    )


def default_cycle_spec_path() -> Path:
    """The embedded default cycle spec (what ``vwt demo`` runs)."""
    return Path(str(files("benchmark") / "default_cycle.yaml"))
