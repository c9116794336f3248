"""The harnesses in play, found by id through the ``vwt.harnesses`` entry points (vwt's own
loops and frameworks included) or registered in code."""

from __future__ import annotations

from benchmark._plugins import PluginOrigin, Plugins
from benchmark.errors import BenchmarkError
from benchmark.harness._harness import Harness

HARNESS_GROUP = "vwt.harnesses"
"""The entry-point group harnesses are found in: each entry point names a harness (its id) and
points at a ``Harness``, a ``Harness`` subclass, or a callable returning one."""


def _built(loaded: object, name: str) -> Harness:
    """The harness an entry point's object makes: a ``Harness``, or one made by calling it."""
    made = loaded if isinstance(loaded, Harness) else loaded() if callable(loaded) else loaded
    if not isinstance(made, Harness):
        raise TypeError(f"it gives a {type(made).__name__}, not a benchmark.harness.Harness")
    if made.id != name:
        raise ValueError(f"it makes the harness {made.id!r}; name the entry point after its id")
    return made


HARNESSES: Plugins[Harness] = Plugins(HARNESS_GROUP, "harness", _built)
"""Every harness, by id: ``HARNESSES[id] = harness`` registers one in code (it wins over an
entry point of that name); reading one imports it on first use."""


def harness(harness_id: str) -> Harness:
    """The harness ``harness_id``; unknown ids are refused naming the installed ones."""
    if harness_id not in HARNESSES:
        raise BenchmarkError(
            f"unknown harness {harness_id!r}",
            f"installed harnesses: {', '.join(sorted(HARNESSES))} (`vwt harnesses list`); "
            f"others are installed as packages declaring a {HARNESS_GROUP!r} entry point "
            "(docs/harnesses.md)",
        )
    return HARNESSES[harness_id]


def usable_harness(harness_id: str) -> Harness:
    """The harness ``harness_id``, refused unless it can run on this machine now."""
    found = harness(harness_id)
    why = found.unavailable()
    if why is not None:
        raise BenchmarkError(
            f"harness {harness_id!r} cannot run here: {why}",
            "install it (a framework harness: `bash scripts/frameworks-setup.sh` installs each "
            "one's pinned release), or pick another harness (`vwt harnesses list`)",
        )
    return found


def harness_origin(harness_id: str) -> PluginOrigin:
    """Where the harness ``harness_id`` comes from: its entry point and distribution, or code."""
    harness(harness_id)  # raises for an unknown id
    return HARNESSES.origin(harness_id)
