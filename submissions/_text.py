"""Which characters user-supplied text may hold, and how to print any text safely."""

from __future__ import annotations

import unicodedata

_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Bidirectional controls: they reorder what a terminal shows (e.g. right-to-left overrides)."""


def _unsafe(ch: str) -> bool:
    return ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp")


def check_text(value: str, *, multiline: bool = False) -> str:
    """``value`` unchanged, or ValueError if it holds control or bidirectional characters.

    ``multiline`` text may also hold newlines and tabs.
    """
    allowed = "\n\t" if multiline else ""
    bad = next((ch for ch in value if _unsafe(ch) and ch not in allowed), None)
    if bad is not None:
        raise ValueError(
            f"must not hold control or bidirectional characters (found U+{ord(bad):04X})"
        )
    return value


def shown(text: str) -> str:
    """``text`` with control and bidirectional characters escaped, safe to print on one line."""
    if not any(_unsafe(ch) for ch in text):
        return text
    return "".join(ch.encode("unicode_escape").decode() if _unsafe(ch) else ch for ch in text)
