"""Choosing a sandbox: Docker where the machine has an engine and the image, else local."""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from runner._sandbox_base import Mount, Sandbox
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import docker_status
from runner._sandbox_local import LocalSandbox
from runner.errors import RunnerError

_SETUP_HINT = "run `make sandbox` (as root) to install the engine and build the image"


class SandboxKind(StrEnum):
    """Where trials run: ``docker`` if available else ``local`` (auto), or one of them."""

    auto = "auto"
    local = "local"
    docker = "docker"


def make_sandbox(
    kind: SandboxKind | str = SandboxKind.auto, *, mounts: Sequence[Mount] = ()
) -> Sandbox:
    """A not-yet-started sandbox of ``kind`` with ``mounts``.

    ``auto`` picks Docker when :func:`docker_status` says it is usable, else local.
    Raises RunnerError for an unknown kind, or ``docker`` where Docker is not usable.
    """
    try:
        kind = SandboxKind(kind)
    except ValueError:
        choices = ", ".join(k.value for k in SandboxKind)
        raise RunnerError(f"unknown sandbox kind {kind!r}", hint=f"use one of: {choices}") from None
    if kind is SandboxKind.local:
        return LocalSandbox(mounts=mounts)
    available, reason = docker_status()
    if available:
        return DockerSandbox(mounts=mounts)
    if kind is SandboxKind.docker:
        raise RunnerError(
            f"a Docker sandbox was asked for, but {reason}",
            hint=f"{_SETUP_HINT}, or use the local sandbox",
        )
    return LocalSandbox(mounts=mounts)


def resolve_sandbox_kind(kind: SandboxKind | str) -> SandboxKind:
    """``local`` or ``docker``: what ``kind`` means on this machine now (``auto`` decided once)."""
    return SandboxKind(make_sandbox(kind).kind)
