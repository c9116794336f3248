"""What a bundle may hold: limits on what is stored, checked before a receipt is signed."""

from __future__ import annotations

MAX_BUNDLE_BYTES = 16 << 20
"""Bytes of the bundle as stored: its RFC 8785 canonical JSON (also the packed-file size cap)."""
MAX_ARTIFACTS = 256
"""Artifacts a bundle may list."""
MAX_ARTIFACT_BYTES = 1 << 20
"""UTF-8 bytes of one artifact's text."""
MAX_MANIFEST_BYTES = 64 << 10
"""Bytes of the manifest, as canonical JSON and as the ``vwt-bundle.json`` file."""
MAX_PATH_CHARS = 255
"""Characters of an artifact path inside the bundle."""
MAX_SKILL_FILES = 128
"""Files one Agent Skills folder may hold, ``SKILL.md`` included (each is at most
``MAX_ARTIFACT_BYTES``, and all count against ``MAX_BUNDLE_BYTES``)."""

LIMITS_HINT = (
    f"a bundle holds at most {MAX_ARTIFACTS} artifacts of at most {MAX_ARTIFACT_BYTES:,} bytes "
    f"each (a skill folder at most {MAX_SKILL_FILES} files of that size), {MAX_BUNDLE_BYTES:,} "
    f"bytes in all as stored, with a manifest of at most {MAX_MANIFEST_BYTES:,} bytes: shrink "
    "or drop artifacts"
)


class LimitExceeded(ValueError):
    """A bundle or manifest is over one of the limits above."""
