"""Session-wide test setup: offline guard, litellm offline price map, one Ray runtime."""

from __future__ import annotations

import os
from collections.abc import Iterator

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"

import pytest

from tests import _netguard

_netguard.install()


@pytest.fixture(scope="session")
def ray_runtime() -> Iterator[None]:
    """Start Ray once per test session (2 CPUs, no dashboard, workers network-guarded)."""
    import ray

    from runner import start_ray

    start_ray(setup_hook="tests._netguard.install")
    yield
    ray.shutdown()
