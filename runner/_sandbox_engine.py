"""Questions to the Docker engine outside any one sandbox: is it usable, what was left over."""

from __future__ import annotations

import os
import socket

import docker.errors

from runner._docker_api import engine, engine_address, engine_error, forget_engine
from runner._sandbox_docker import DEFAULT_IMAGE, LABEL

MCP_LABEL = "org.vwt.sandbox.mcp"
"""Image label naming the MCP SDK the image holds (scripts/sandbox-setup.sh sets it): the
family servers in a sandbox need it."""


def docker_status(image: str = DEFAULT_IMAGE) -> tuple[bool, str]:
    """Whether Docker sandboxes can run here: the engine ``DOCKER_HOST`` names (default: the
    local socket) answers and ``image`` is present, with the MCP SDK (an image of an older
    recipe has none: every batch would fail).

    Returns ``(available, reason)``; the reason says what is missing, or what is there.
    """
    where = engine_address()
    try:
        labels = engine().images.get(image).labels or {}
    except docker.errors.ImageNotFound:
        return False, f"the Docker image {image} is not built (engine {where})"
    except docker.errors.DockerException as e:
        forget_engine()
        return False, f"the Docker engine at {where} does not answer ({engine_error(e)})"
    if not labels.get(MCP_LABEL, "").strip():
        return (
            False,
            f"the Docker image {image} has no MCP SDK (an older recipe): run `make sandbox`",
        )
    return True, f"the Docker engine at {where} answers and image {image} is present"


def remove_stale_sandboxes() -> list[str]:
    """Remove sandbox containers whose owning process on this host has died; their names.

    Containers of live processes, and of other hosts sharing the engine, are left alone.
    """
    try:
        found = engine().containers.list(all=True, filters={"label": LABEL})
    except docker.errors.DockerException:
        return []
    removed = []
    for c in found:
        if _owner_dead(c.labels.get(f"{LABEL}.owner", "")):
            try:
                c.remove(force=True)
            except docker.errors.DockerException:
                continue  # removed meanwhile (auto-remove) or by someone else
            removed.append(str(c.name))
    return removed


def _owner_dead(owner: str) -> bool:
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
