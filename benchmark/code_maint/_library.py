"""The internal library the generated projects depend on, and what changed between the two
versions shipped in the sandbox image (``scripts/sandbox-image/lib/acmelib-<version>/``).

This module is the generator's knowledge of the library: which functions 2.0 renamed, which
kept their name but changed the unit of what they return (with the function that keeps the old
unit), which changed behaviour, which settings keys were renamed. The library's own
``CHANGELOG.md`` says the same to the agent; the family's tests check that the two agree.
"""

from __future__ import annotations

import importlib.util
from functools import cache
from pathlib import Path
from types import ModuleType

LIBRARY = "acmelib"
OLD_VERSION = "1.4"
NEW_VERSION = "2.0"
IMAGE_DIR = Path(__file__).resolve().parents[2] / "scripts" / "sandbox-image"
"""The repository directory copied into the sandbox image at /opt/vwt."""

RENAMED = {"fetch_rate": "get_rate", "slug": "slugify", "clamp": "bound"}
"""Functions 2.0 renamed: old name → new name."""
UNIT_CHANGED = {
    "elapsed": "elapsed_ms",
    "parcel_weight": "parcel_weight_g",
    "distance": "distance_m",
}
"""Functions whose result 2.0 returns in another unit → the function that keeps the old unit."""
BEHAVIOUR_CHANGED = ("title", "truncate")
"""Functions whose documented behaviour changed in 2.0."""
SETTINGS_RENAMED = {"retries": "max_retries", "timeout": "timeout_s", "host": "endpoint"}
"""Settings keys of the ``[acmelib]`` INI section 2.0 renamed: old key → new key."""


def version_dir(version: str) -> Path:
    """The directory of one library version in the repository's image tree."""
    return IMAGE_DIR / "lib" / f"{LIBRARY}-{version}"


@cache
def load(version: str) -> ModuleType:
    """One version of the library, imported from the image tree under a private name (to
    compute what generated tests expect)."""
    path = version_dir(version) / LIBRARY / "__init__.py"
    spec = importlib.util.spec_from_file_location(
        f"_vwt_{LIBRARY}_{version.replace('.', '_')}", path
    )
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"no {LIBRARY} {version} at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
