"""The task families in play — found through the ``vwt.families`` entry points, vwt's own
included, or registered in code — and interface versions by environment."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from importlib.resources import files
from pathlib import Path

from benchmark._folder_family import FolderFamily
from benchmark._folder_load import family_folders, load_family_folder
from benchmark._plugins import PluginOrigin, Plugins
from benchmark._task import Family
from benchmark.errors import BenchmarkError
from benchmark.sim import KnowledgePack, use_family_packs
from conditions import spec_family_folders
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


FOLDERS_ENV = "VWT_FAMILY_FOLDERS"
"""Task family folders a process is handed by the one that started it (JSON, path → pinned
digest): a Ray worker loads the folder families its driver uses from them."""

_FOLDERS: dict[str, FolderFamily] = {}
"""The folder families this process loaded, by folder path."""


def use_family_folders(
    paths: Iterable[Path], pins: Mapping[str, str] | None = None
) -> list[Family]:
    """Load the task families in the folders ``paths`` name (a family folder, or a folder of
    them) and register them (``FAMILIES``, origin: the folder). ``pins`` (path → digest)
    refuses a folder whose content is not the pinned one. A folder family whose id another
    family has already is refused."""
    out: list[Family] = []
    for given in paths:
        for folder in family_folders(Path(given)):
            path = str(folder.resolve())
            out.append(_use_folder(path, (pins or {}).get(path)))
    return out


def _use_folder(path: str, pin: str | None) -> FolderFamily:
    known = _FOLDERS.get(path)
    if known is not None and (pin is None or known.digest == pin):
        return known
    fam = load_family_folder(Path(path), pin)
    if fam.id in FAMILIES and FAMILIES.origin(fam.id).folder != path:
        raise BenchmarkError(
            f"the family id {fam.id!r} of the folder {path} is taken by the family from "
            f"{FAMILIES.origin(fam.id)}",
            "give the folder family another id (family.yaml: id)",
        )
    FAMILIES.register(fam.id, fam, PluginOrigin(folder=path))
    _FOLDERS[path] = fam
    return fam


def _handed_folders() -> dict[str, str]:
    raw = os.environ.get(FOLDERS_ENV, "").strip()
    try:
        handed = json.loads(raw) if raw else {}
        if isinstance(handed, dict) and all(isinstance(v, str) for v in handed.values()):
            return {str(k): v for k, v in handed.items()}
    except ValueError:
        pass
    raise BenchmarkError(
        f"{FOLDERS_ENV} is not a JSON object of folder paths to digests",
        f"unset {FOLDERS_ENV}: vwt sets it for the processes it starts",
    )


def _resolve_folders() -> list[BenchmarkError]:
    """Load the family folders this process was told of and has not loaded: those of the
    cycle specs it made, and those its starter handed on. The folders that cannot be loaded
    (gone, changed since pinned, malformed): their errors, for the lookup that needed them."""
    errors = []
    for path, digest in {**_handed_folders(), **spec_family_folders()}.items():
        known = _FOLDERS.get(path)
        if known is None or known.digest != digest:
            try:
                _use_folder(path, digest)
            except BenchmarkError as e:
                errors.append(e)
    return errors


def folders_to_hand_on() -> str:
    """The folder families of this process, as ``FOLDERS_ENV`` holds them."""
    return json.dumps({path: fam.digest for path, fam in sorted(_FOLDERS.items())})


def family(family_id: str) -> Family:
    """The family ``family_id``: installed, registered in code, or read from a folder a cycle
    spec names (or ``use_family_folders`` loaded)."""
    errors = _resolve_folders() if family_id not in FAMILIES else []
    if family_id not in FAMILIES:
        if errors:  # the family is likely in a folder that could not be loaded: say why
            raise errors[0]
        raise BenchmarkError(
            f"unknown task family {family_id!r}",
            f"families: {', '.join(sorted(FAMILIES))}; others are installed as packages "
            f"declaring a {FAMILY_GROUP!r} entry point (docs/plugins.md), or written as folders "
            "(--families DIR, docs/folder-families.md)",
        )
    return FAMILIES[family_id]


def family_origin(family_id: str) -> PluginOrigin:
    """Where the family ``family_id`` comes from: its entry point and distribution, or code."""
    family(family_id)  # raises for an unknown id
    return FAMILIES.origin(family_id)


def _family_packs() -> Iterator[KnowledgePack]:
    # every folder family this process was told of, loaded before the sim reads anything: what
    # the sim knows must not depend on which family's trial a worker happened to run first (a
    # folder that cannot be loaded is reported by the lookup that needs its family)
    _resolve_folders()
    for fam in FAMILIES.values():
        pack = fam.sim_pack()
        if pack is not None:
            yield pack


use_family_packs(_family_packs)  # the sim knows the families in play, in their order


def family_for_env(env_id: str) -> Family:
    """The family whose environment is ``env_id``."""
    errors: list[BenchmarkError] = []
    for attempt in range(2):
        if attempt:
            errors = _resolve_folders()
        for f in FAMILIES.values():
            if f.env_id == env_id:
                return f
    if errors:
        raise errors[0]
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
        return ServedInterface(family_for_env(env_id).base_tools_for(version), version)
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
