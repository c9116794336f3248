"""The task families in play — found through the ``vwt.families`` entry points, vwt's own
included, or registered in code — and interface versions by environment."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from importlib.resources import files
from pathlib import Path

from benchmark._plugins import PluginOrigin, Plugins
from benchmark._task import Family
from benchmark.errors import BenchmarkError
from benchmark.sim import KnowledgePack, use_family_packs
from drift import DriftError, InterfaceVersion, ServedInterface

FAMILY_GROUP = "vwt.families"
"""The entry-point group task families are found in: each entry point names a family (its id)
and points at a ``Family`` subclass, or a callable returning a ``Family``."""


def _built(loaded: object, name: str) -> Family:
    """The family an entry point's object makes: a ``Family``, or one made by calling it."""
    made = loaded if isinstance(loaded, Family) else loaded() if callable(loaded) else loaded
    if not isinstance(made, Family):
        raise TypeError(f"it gives a {type(made).__name__}, not a benchmark.Family")
    if made.id != name:
        raise ValueError(f"it makes the family {made.id!r}; name the entry point after its id")
    return made


FAMILIES: Plugins[Family] = Plugins(FAMILY_GROUP, "task family", _built)
"""Every task family, by id: ``FAMILIES[id] = family`` registers one in code (it wins over an
entry point of that name); reading one imports it on first use. Registered ones come first,
then entry points by name: the order in which sim packs break ties (a request fitting two
packs equally)."""


def family(family_id: str) -> Family:
    """The family ``family_id``."""
    if family_id not in FAMILIES:
        raise BenchmarkError(
            f"unknown task family {family_id!r}",
            f"families: {', '.join(sorted(FAMILIES))}; others are installed as packages "
            f"declaring a {FAMILY_GROUP!r} entry point (docs/plugins.md)",
        )
    return FAMILIES[family_id]


def family_origin(family_id: str) -> PluginOrigin:
    """Where the family ``family_id`` comes from: its entry point and distribution, or code."""
    family(family_id)  # raises for an unknown id
    return FAMILIES.origin(family_id)


def _family_packs() -> Iterator[KnowledgePack]:
    for fam in FAMILIES.values():
        pack = fam.sim_pack()
        if pack is not None:
            yield pack


use_family_packs(_family_packs)  # the sim knows the families in play, in their order


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
