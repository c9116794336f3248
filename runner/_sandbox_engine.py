"""Questions to the Docker engine outside any one sandbox: is it usable, what was left over."""

from __future__ import annotations

import os
import socket
import subprocess

from runner._sandbox_docker import DEFAULT_IMAGE, LABEL

_TIMEOUT_S = 20.0


def _docker(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["docker", *args], capture_output=True, text=True, timeout=_TIMEOUT_S, check=False
    )


MCP_LABEL = "org.vwt.sandbox.mcp"
"""Image label naming the MCP SDK the image holds (scripts/sandbox-setup.sh sets it): the
family servers in a sandbox need it."""


def docker_status(image: str = DEFAULT_IMAGE) -> tuple[bool, str]:
    """Whether Docker sandboxes can run here: the engine answers and ``image`` is present,
    with the MCP SDK (an image of an older recipe has none: every batch would fail).

    Returns ``(available, reason)``; the reason says what is missing, or what is there.
    """
    try:
        r = _docker(
            "image", "inspect", "--format", '{{ index .Config.Labels "' + MCP_LABEL + '" }}', image
        )
    except FileNotFoundError:
        return False, "the docker CLI is not installed"
    except subprocess.TimeoutExpired:
        return False, f"the Docker engine did not answer within {_TIMEOUT_S:g} s"
    if r.returncode == 0 and r.stdout.strip() not in ("", "<no value>"):
        return True, f"the Docker engine answers and image {image} is present"
    if r.returncode == 0:
        return (
            False,
            f"the Docker image {image} has no MCP SDK (an older recipe): run `make sandbox`",
        )
    err = r.stderr.strip().splitlines()
    detail = err[-1] if err else f"docker exited with status {r.returncode}"
    if "No such image" in detail:
        return False, f"the Docker image {image} is not built"
    return False, f"the Docker engine does not answer ({detail})"


def remove_stale_sandboxes() -> list[str]:
    """Remove sandbox containers whose owning process on this host has died; their names.

    Containers of live processes, and of other hosts sharing the engine, are left alone.
    """
    fmt = '{{.Names}} {{.Label "' + LABEL + '.owner"}}'
    r = _docker("ps", "--all", "--filter", f"label={LABEL}", "--format", fmt)
    if r.returncode != 0:
        return []
    rows = (line.partition(" ") for line in r.stdout.splitlines())
    stale = [name for name, _, owner in rows if _owner_dead(owner)]
    if not stale:
        return []
    return _docker("rm", "--force", *stale).stdout.split()


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
