"""Starting Ray on the local machine, once per process."""

from __future__ import annotations

import logging
import os
from typing import Any


def start_ray(num_cpus: int | None = None, setup_hook: str | None = None) -> None:
    """Start a local Ray runtime unless one is running (loopback only, no dashboard).

    ``setup_hook`` names a function (``module.attr``) every worker runs at start-up.
    """
    import ray

    if ray.is_initialized():
        return
    runtime_env: dict[str, Any] = {
        "env_vars": {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "RAY_USAGE_STATS_ENABLED": "0"}
    }
    if setup_hook:
        runtime_env["worker_process_setup_hook"] = setup_hook
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # Ray turns token auth on for local clusters and warns that it did; that is what we want.
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(
        logging.ERROR
    )
    ray.init(
        num_cpus=num_cpus or os.cpu_count() or 1,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        runtime_env=runtime_env,
        logging_level=logging.WARNING,
        log_to_driver=True,
    )
