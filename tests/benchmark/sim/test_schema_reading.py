"""The sim reads served descriptions in styles the drift operators do not write (issue 25,
item 5): real MCP servers' tool lists from the drift development set (read at test time from
``../shared/realdrift``, skipped where absent, never copied here), and descriptions written
the way other servers word units, scales and signs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from benchmark.sim._schema import read_field

ROOT = Path(__file__).resolve().parents[3]
REALDRIFT = Path(os.environ.get("VWT_REALDRIFT_DIR", ROOT.parent / "shared" / "realdrift"))
TEXT_ONLY_DEFAULTS = {
    ("screenshot", "fullPage"): False,
    ("puppeteer_screenshot", "encoded"): False,
}
"""Boolean fields whose default only the description states (labelled by hand)."""


def _booleans() -> list[tuple[str, str, str, dict[str, Any]]]:
    if not REALDRIFT.is_dir():
        return []
    out = []
    for path in sorted(REALDRIFT.glob("*.json")):
        data = json.loads(path.read_text())
        tools = data.get("tools", []) if isinstance(data, dict) else data
        for tool in tools if isinstance(tools, list) else []:
            props = (tool.get("inputSchema") or {}).get("properties") or {}
            for name, prop in props.items():
                if prop.get("type") == "boolean":
                    out.append((path.name, str(tool.get("name")), name, prop))
    return out


@pytest.mark.skipif(not REALDRIFT.is_dir(), reason="no ../shared/realdrift here")
def test_real_servers_boolean_defaults_are_read_as_stated() -> None:
    fields = _booleans()
    assert len(fields) >= 5
    for file, tool, name, prop in fields:
        stated = "default" in str(prop.get("description", "")).lower()
        want = prop.get("default", TEXT_ONLY_DEFAULTS.get((tool, name)))
        if want is None and stated:
            pytest.fail(f"{file} {tool}.{name}: a stated default with no label")
        assert read_field(name, prop).default == want, (file, tool, name)


@pytest.mark.parametrize(
    ("description", "aspect", "value"),
    [
        ("Amount in USD cents.", "unit", "cents"),
        ("Refund amount in minor units (1/100 of the currency).", "unit", "cents"),
        ("Value in whole dollars, e.g. 12.50.", "unit", "dollars"),
        ("Price in dollars (e.g. 19.99).", "unit", "dollars"),
        ("Rate as a decimal between 0.0 and 1.0.", "scale", "fraction"),
        ("Discount as a percentage (0-100).", "scale", "percent"),
        ("Whether to notify. Default: true", "default", True),
        ("Set to false to skip the email (default true).", "default", True),
        ("Timestamp (ISO 8601, UTC).", "zone", "+00:00"),
    ],
)
def test_descriptions_in_other_servers_styles(description: str, aspect: str, value: Any) -> None:
    assert getattr(read_field("x", {"description": description}), aspect) == value


def test_signs_stated_either_way_round() -> None:
    said = read_field(
        "x", {"description": "A positive number credits the account, a negative one debits it."}
    )
    assert "credit" in str(said.positive) and "debit" in str(said.negative)
    said = read_field("x", {"description": "Debits are negative; credits positive."})
    assert said.positive is None or "debit" not in said.positive
