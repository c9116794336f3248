"""Starting Ray, once per process: a private local runtime on loopback, or an existing cluster."""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import secrets
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from runner import _ray_watchdog

ADDRESS_ENV = "VWT_RAY_ADDRESS"
"""Environment variable: address of an existing Ray cluster to run on (``ray.init(address)``);
``vwt``'s ``--ray-address`` (or ``RAY_ADDRESS``) sets it."""

PACKAGES = ("adapt", "benchmark", "conditions", "drift", "reports", "runner", "submissions", "vwt")
"""vwt's packages: shipped to a cluster's workers through Ray's runtime environment."""

FORWARDED_ENV = (
    "VWT_MODEL_TIMEOUT_S",
    "VWT_MODEL_ATTEMPTS",
    "VWT_BACKEND_TIMEOUT_S",
    "VWT_MAX_CONCURRENCY",
    "VWT_PROVIDER_CONCURRENCY",
    "VWT_RPM",
    "VWT_TPM",
)
"""Settings of the driver's environment that workers get too (on a cluster as well)."""

_SINGLE_MACHINE_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"

_watchdog: subprocess.Popen[bytes] | None = None
"""The watchdog over the local runtime this process started last (:mod:`runner._ray_watchdog`)."""


def _single_machine() -> None:
    """Make Ray keep 127.0.0.1 as this node's address.

    Ray replaces a loopback ``_node_ip_address`` with the machine's routable address (and
    its servers then listen on every interface) unless clusters are disabled, which Ray
    reads from this variable when it is imported and from ``ray_constants`` afterwards.
    """
    os.environ[_SINGLE_MACHINE_ENV] = "0"
    from ray._private import ray_constants

    ray_constants.ENABLE_RAY_CLUSTER = False


def ray_token_path() -> Path | None:
    """The file Ray reads its authentication token from: ``RAY_AUTH_TOKEN_PATH``, else
    ``~/.ray/auth_token``; None when the token is in the environment (``RAY_AUTH_TOKEN``) or
    token authentication is off (``RAY_AUTH_MODE=disabled``)."""
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_MODE") == "disabled":
        return None
    named = os.environ.get("RAY_AUTH_TOKEN_PATH", "").strip()
    return Path(named).expanduser() if named else Path.home() / ".ray" / "auth_token"


def private_ray_token(create: bool) -> Path | None:
    """Make Ray's token file (:func:`ray_token_path`) readable by its owner only; with
    ``create``, write a new random token there first if there is none. Returns the file.

    Ray writes a new token with the umask's mode (0644 under the usual 022), so anyone on the
    machine who can read the home could join the runtime and run code as this user. Here it is
    made 0600 in a 0700 directory, appearing whole at once (a link), so processes starting Ray
    together agree on one token; an existing file readable by others is tightened.
    """
    path = ray_token_path()
    if path is None:
        return None
    if create and not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".auth_token.")  # mode 0600
        try:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32))  # as Ray makes its own: 256 random bits
            with contextlib.suppress(FileExistsError):  # another process was first: use it
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    with contextlib.suppress(OSError):  # not ours to change, or absent: Ray says what is wrong
        if path.stat().st_mode & 0o077:
            path.chmod(0o600)
    return path


def start_ray(
    num_cpus: int | None = None,
    setup_hook: str | None = None,
    forward: tuple[str, ...] = (),
    env: Mapping[str, str] | None = None,
) -> None:
    """Start Ray unless it is running in this process.

    Without ``VWT_RAY_ADDRESS``: a new local runtime whose every server (GCS, raylet, object
    manager, workers) listens on 127.0.0.1 only, without a dashboard, its workers at the
    driver's priority (at Ray's default, nice 15, they starve beside any other load). With
    it: connect to that cluster (e.g. ``ray://head:10001`` or ``head:6379``); its nodes need
    the model provider's credentials in their own environment. ``setup_hook`` names a
    function (``module.attr``) every worker runs at start-up; ``forward`` names more variables
    of this environment the workers get (the key variables of the spec's model endpoints);
    ``env`` sets variables for the workers only (what the driver hands on, e.g. its families),
    leaving this process's environment as it was.
    Ray's token file is kept private (:func:`private_ray_token`). A local runtime's processes
    end with this process however it ends (:mod:`runner._ray_watchdog`).
    """
    import ray

    if ray.is_initialized():
        return
    env_vars = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "RAY_USAGE_STATS_ENABLED": "0"}
    env_vars |= {k: os.environ[k] for k in (*FORWARDED_ENV, *forward) if k in os.environ}
    env_vars |= dict(env or {})
    runtime_env: dict[str, Any] = {"env_vars": env_vars}
    if setup_hook:
        runtime_env["worker_process_setup_hook"] = setup_hook
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    address = os.environ.get(ADDRESS_ENV, "").strip()
    # Ray turns token auth on for local clusters and warns that it did; that is what we want.
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(
        logging.ERROR
    )
    common: dict[str, Any] = {
        "runtime_env": runtime_env,
        "logging_level": logging.WARNING,
        "log_to_driver": True,
    }
    private_ray_token(create=not address)
    if address:
        # the cluster's nodes get this driver's code from Ray (uploaded once, cached by hash)
        runtime_env["py_modules"] = [importlib.import_module(p) for p in PACKAGES]
        runtime_env["excludes"] = ["__pycache__", "*.pyc"]
        ray.init(address=address, **common)
        return
    _single_machine()
    ray.init(
        address="local",  # never a cluster named by RAY_ADDRESS: that is VWT_RAY_ADDRESS's job
        num_cpus=num_cpus or os.cpu_count() or 1,
        include_dashboard=False,
        _node_ip_address="127.0.0.1",
        # Ray runs workers at nice 15: beside any other load they starve (trials 50x slower,
        # litellm's import past every deadline). Trials are this process's work: nice 0.
        _system_config={"worker_niceness": 0},
        **common,
    )
    # Ray's agents outlive a driver killed with SIGKILL by a minute; the watchdog ends them.
    global _watchdog
    _ray_watchdog.stop(_watchdog)  # the runtime it watched was shut down: end what is left
    runtime = ray.get_runtime_context()
    _watchdog = _ray_watchdog.watch(
        os.path.join(runtime.get_temp_dir(), runtime.get_session_name())
    )
