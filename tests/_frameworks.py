"""For tests that run the real agent frameworks: skip only where their install failed."""

from __future__ import annotations

import pytest

from benchmark.harness import frameworks_home, harness

FRAMEWORK_HARNESSES = (
    "openai-agents@0.2.11",
    "openai-agents@0.8.4",
    "pydantic-ai@0.3.7",
    "pydantic-ai@1.0.18",
)
"""The framework harnesses vwt declares (two frameworks at two pinned releases each)."""


def require_framework(harness_id: str) -> None:
    """Skip when the framework's install failed (quoting why, from the setup script's record);
    fail when it was not tried: `bash scripts/frameworks-setup.sh` (make test runs it)."""
    why = harness(harness_id).unavailable()
    if why is None:
        return
    failed = frameworks_home() / f"{harness_id}.failed"
    if failed.is_file():
        lines = [line for line in failed.read_text().splitlines() if line.strip()]
        pytest.skip(f"{harness_id} could not be installed: {lines[-1] if lines else why}")
    pytest.fail(f"{harness_id}: {why}; run `bash scripts/frameworks-setup.sh` (make test does)")
