"""Framework harnesses whose framework is the stand-in of ``_fake_driver.py``, run by vwt's own
Python: the out-of-process machinery (loopback endpoints, limits, crash and hang handling)
tested without a framework installed. Module-level ones can be handed to worker processes as
entry points (``VWT_ENTRY_POINTS``)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from benchmark.harness import FrameworkHarness, HarnessInfo

DRIVER = Path(__file__).with_name("_fake_driver.py")


class FakeFramework(FrameworkHarness):
    """``fake@<version>``: the stand-in framework, misbehaving as ``environment`` says."""

    def __init__(self, version: str, environment: Mapping[str, str] | None = None) -> None:
        super().__init__("fake", version, str(DRIVER), "a stand-in", environment=environment)

    def python(self) -> Path:
        return Path(sys.executable)

    def info(self) -> HarnessInfo:
        return super().info().model_copy(update={"unavailable": None})


CRASHES_ON_THE_FIRST_TASK = FakeFramework("crash", {"FAKE_CRASH_ON": "TCK-10000"})
"""Crashes (a RuntimeError) on the request naming ticket TCK-10000, after a model call."""
