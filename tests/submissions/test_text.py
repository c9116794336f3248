"""Printing user text: control and bidirectional characters never reach the terminal raw."""

from __future__ import annotations

import pytest

from submissions import shown


@pytest.mark.parametrize(
    ("text", "printed"),
    [
        ("plain [bold] ✓", "plain [bold] ✓"),
        ("red\x1b[31m", "red\\x1b[31m"),
        ("a\nb\tc", "a\\nb\\tc"),
        ("abc\u202edcba", "abc\\u202edcba"),
        ("x\u2028y\x00", "x\\u2028y\\x00"),
    ],
)
def test_shown_escapes_what_a_terminal_would_act_on(text: str, printed: str) -> None:
    assert shown(text) == printed
