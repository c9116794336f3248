"""The reference submissions every release reports."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from submissions._bundle import Bundle, load_bundle_dir

REFERENCE_NAMES = ("no-artifacts", "prompt-recipe", "typed-skill", "retrieved-trajectories")


def reference_dir(name: str) -> Path:
    """Directory of the built-in reference submission ``name``."""
    return Path(str(files("submissions") / "reference" / name))


def reference_bundles() -> list[Bundle]:
    """The reference submissions, loaded and validated."""
    return [load_bundle_dir(reference_dir(n)) for n in REFERENCE_NAMES]
