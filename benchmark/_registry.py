"""What is built in: task families, and interface versions by environment."""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

from benchmark._task import Family
from benchmark.code_maint import CodeMaintenance
from benchmark.errors import BenchmarkError
from benchmark.reconciliation import Reconciliation
from benchmark.research import ResearchEvidence
from benchmark.support_ops import SupportOps
from drift import DriftError, InterfaceVersion, ServedInterface

# support_ops first: its pack wins ties when a request fits two packs equally
FAMILIES: dict[str, Family] = {
    f.id: f for f in (SupportOps(), Reconciliation(), ResearchEvidence(), CodeMaintenance())
}


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


def interface_version(
    env_id: str, version_id: str, extra: Sequence[InterfaceVersion] = ()
) -> InterfaceVersion:
    """Interface version ``version_id`` of ``env_id``: built in, or one of ``extra`` (a cycle's
    own versions, e.g. from ``vwt drift generate``)."""
    versions = {
        **family_for_env(env_id).interface_versions(),
        **{v.id: v for v in extra if v.env == env_id},
    }
    if version_id not in versions:
        raise BenchmarkError(
            f"unknown interface version {version_id!r} for {env_id!r}",
            f"versions: {', '.join(sorted(versions))}; define others in the cycle spec's "
            "'interfaces'",
        )
    return versions[version_id]


def served_interface(
    env_id: str, version_id: str, extra: Sequence[InterfaceVersion] = ()
) -> ServedInterface:
    """The interface ``version_id`` made concrete over its environment's base tools."""
    return serve(env_id, interface_version(env_id, version_id, extra))


def serve(env_id: str, version: InterfaceVersion) -> ServedInterface:
    """``version`` made concrete over ``env_id``'s base tools (its operators must apply)."""
    try:
        return ServedInterface(family_for_env(env_id).base_tools(), version)
    except DriftError as e:
        raise BenchmarkError(
            f"interface {version.id!r} does not apply to {env_id!r}'s tools: {e}",
            "generate it from the environment's base (`vwt drift builtin ENV@1 --out base.json`)",
        ) from None


def default_cycle_spec_path() -> Path:
    """The embedded default cycle spec (what ``vwt demo`` runs)."""
    return Path(str(files("benchmark") / "default_cycle.yaml"))


def full_cycle_spec_path() -> Path:
    """The embedded full cycle spec: the default plus code maintenance (``vwt demo --full``)."""
    return Path(str(files("benchmark") / "full_cycle.yaml"))
