"""Plugins of one kind, found by name: registered in code first, then Python entry points.

A package provides a plugin by declaring an entry point in its group (``vwt.families`` for task
families), e.g. in its pyproject.toml::

    [project.entry-points."vwt.families"]
    my_family = "my_package.family:MyFamily"

The entry point names the plugin; its object is loaded (imported) only when that name is first
asked for, or when every plugin is listed. vwt's own families are declared the same way.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any, Generic, TypeVar

from benchmark.errors import BenchmarkError

T = TypeVar("T")

ENTRY_POINTS_ENV = "VWT_ENTRY_POINTS"
"""Entry points a process is handed by the one that started it — JSON, group → {name:
object} — for processes that have the code but not the installed metadata: a Ray cluster's
nodes get vwt's packages from the driver, not its dist-info. Installed entry points win."""

_GROUPS: dict[str, Plugins[Any]] = {}


@dataclass(frozen=True)
class PluginOrigin:
    """Where a plugin came from: an entry point of an installed distribution, or code that
    registered it (a test, a script, a notebook)."""

    entry_point: str | None = None
    """The entry point's object, ``module:attribute``; None for a plugin registered in code."""
    distribution: str | None = None
    """``name version`` of the distribution declaring the entry point, if known."""
    folder: str | None = None
    """The folder a plugin written as one was read from (a task family folder)."""

    def __str__(self) -> str:
        if self.folder is not None:
            return f"folder {self.folder}"
        if self.entry_point is None:
            return "registered in code"
        return f"{self.distribution or 'an unknown distribution'} ({self.entry_point})"


def _handed(group: str) -> dict[str, str]:
    """The entry points of ``group`` in ``ENTRY_POINTS_ENV``."""
    try:
        handed = json.loads(os.environ.get(ENTRY_POINTS_ENV) or "{}").get(group, {})
        if all(isinstance(v, str) for v in handed.values()):
            return {str(k): v for k, v in handed.items()}
    except (ValueError, AttributeError):
        pass
    raise BenchmarkError(
        f"{ENTRY_POINTS_ENV} is not a JSON object of groups, each of names to module:attribute",
        f"unset {ENTRY_POINTS_ENV}: vwt sets it for the processes it starts",
    )


def _origin_of(ep: EntryPoint) -> PluginOrigin:
    dist = ep.dist
    return PluginOrigin(
        entry_point=ep.value,
        distribution=f"{dist.name} {dist.version}" if dist is not None else None,
    )


class Plugins(MutableMapping[str, T], Generic[T]):
    """The plugins of entry-point group ``group``, by name.

    Reading a name gives the plugin registered in code under it (``plugins[name] = value``),
    else the one its entry point declares, loaded on first use and kept: ``build(object,
    name)`` turns the loaded object into the plugin, raising ``TypeError`` or ``ValueError``
    if it is not one. Iteration gives the registered names in registration order, then the
    entry points' names sorted (the same order however distributions are found). Two entry points
    with one name, or one that fails to import or build, raise ``BenchmarkError`` naming the
    entry point and its distribution. ``noun`` names the kind in those messages.
    """

    def __init__(self, group: str, noun: str, build: Callable[[object, str], T]) -> None:
        """Plugins of entry-point ``group``; see the class."""
        self.group = group
        self.noun = noun
        _GROUPS.setdefault(group, self)  # the first made for a group is the one handed on
        self._build = build
        self._registered: dict[str, T] = {}
        self._origins: dict[str, PluginOrigin] = {}
        self._loaded: dict[str, T] = {}
        self._found: dict[str, list[EntryPoint]] | None = None

    def _entry_points(self) -> dict[str, list[EntryPoint]]:
        if self._found is None:
            declared: dict[str, list[EntryPoint]] = {}
            for ep in sorted(entry_points(group=self.group), key=lambda ep: ep.name):
                declared.setdefault(ep.name, []).append(ep)
            for name, value in _handed(self.group).items():
                declared.setdefault(name, [EntryPoint(name, value, self.group)])
            self._found = dict(sorted(declared.items()))
        return self._found

    def _entry_point(self, name: str) -> EntryPoint | None:
        found = self._entry_points().get(name, [])
        if len(found) > 1:
            shown = " and ".join(str(_origin_of(ep)) for ep in found)
            raise BenchmarkError(
                f"two entry points of group {self.group!r} are named {name!r}: {shown}",
                "uninstall one of those distributions (pip uninstall NAME), or rename one entry "
                "point",
            )
        return found[0] if found else None

    def _load(self, ep: EntryPoint) -> T:
        origin = _origin_of(ep)
        try:
            plugin = self._build(ep.load(), ep.name)
        except Exception as e:  # anything a third party's import or constructor raises
            raise BenchmarkError(
                f"the {self.noun} of entry point {ep.name!r} in group {self.group!r} "
                f"({origin}) failed to load: {type(e).__name__}: {e}",
                f"fix or uninstall {(origin.distribution or ep.value).split()[0]} "
                f"(the distribution declaring {ep.name!r})",
            ) from e
        self._loaded[ep.name] = plugin
        return plugin

    def __getitem__(self, name: str) -> T:
        if name in self._registered:
            return self._registered[name]
        if name in self._loaded:
            return self._loaded[name]
        ep = self._entry_point(name)
        if ep is None:
            raise KeyError(name)
        return self._load(ep)

    def __setitem__(self, name: str, plugin: T) -> None:
        self.register(name, plugin, PluginOrigin())

    def register(self, name: str, plugin: T, origin: PluginOrigin) -> None:
        """Register ``plugin`` under ``name`` (it wins over an entry point of that name), and
        say where it came from (``origin``: code, or the folder it was read from)."""
        self._origins.pop(name, None)
        if self._loaded.get(name) is plugin:  # putting back what the entry point gave
            self._registered.pop(name, None)
        else:
            self._registered[name] = plugin
            self._origins[name] = origin

    def __delitem__(self, name: str) -> None:
        del self._registered[name]  # an entry point's plugin stays: uninstall to remove it
        self._origins.pop(name, None)

    def __contains__(self, name: object) -> bool:
        return name in self._registered or name in self._entry_points()

    def __iter__(self) -> Iterator[str]:
        yield from self._registered
        yield from (n for n in self._entry_points() if n not in self._registered)

    def __len__(self) -> int:
        return len(self._registered.keys() | self._entry_points().keys())

    def declared(self) -> dict[str, str]:
        """Name → object (``module:attribute``) of every entry point of the group."""
        return {name: found[0].value for name, found in self._entry_points().items()}

    def origin(self, name: str) -> PluginOrigin:
        """Where the plugin ``name`` comes from (KeyError if there is none)."""
        if name in self._registered:
            return self._origins.get(name, PluginOrigin())
        ep = self._entry_point(name)
        if ep is None:
            raise KeyError(name)
        return _origin_of(ep)


def entry_points_to_hand_on() -> str:
    """The entry points of every group this process has plugins of, as ``ENTRY_POINTS_ENV``
    holds them: for the processes it starts."""
    return json.dumps({group: plugins.declared() for group, plugins in sorted(_GROUPS.items())})
