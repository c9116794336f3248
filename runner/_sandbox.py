"""Choosing a sandbox: Docker where the machine has an engine and the image, else local."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from enum import StrEnum
from pathlib import Path

from benchmark import SandboxFactory
from runner._sandbox_base import Mount, Sandbox
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import docker_status
from runner._sandbox_local import LocalSandbox
from runner.errors import RunnerError

_SETUP_HINT = "run `make sandbox` (as root) to install the engine and build the image"
FOLDER_CODE = "task families written as folders (their server and verifier commands)"
"""What runs when a family is a folder family: its author's code, untrusted."""

_warned_fallback = False


class SandboxKind(StrEnum):
    """Where trials run: ``docker`` if available else ``local`` (auto), or one of them."""

    auto = "auto"
    local = "local"
    docker = "docker"


def resolve_sandbox_kind(
    requested: SandboxKind | str, *, untrusted: str | None = None
) -> SandboxKind:
    """``local`` or ``docker``: what ``requested`` means on this machine now.

    ``auto`` is Docker when :func:`docker_status` says it is usable. Otherwise it falls back
    to ``local`` with one warning line on stderr (once per process) — unless ``untrusted``
    names what is about to run (a sealed phase of a cycle, or code a submitter provided:
    adaptation commands, the adaptation sample's trials), which raises RunnerError instead:
    those run outside Docker only when ``local`` is asked for by name. ``docker`` without a
    usable engine is a RunnerError.
    """
    try:
        kind = SandboxKind(requested)
    except ValueError:
        choices = ", ".join(k.value for k in SandboxKind)
        raise RunnerError(
            f"unknown sandbox kind {requested!r}", hint=f"use one of: {choices}"
        ) from None
    if kind is SandboxKind.local:
        return kind
    available, reason = docker_status()
    if available:
        return SandboxKind.docker
    if kind is SandboxKind.docker:
        raise RunnerError(
            f"a Docker sandbox was asked for, but {reason}",
            hint=f"{_SETUP_HINT}, or use the local sandbox",
        )
    if untrusted is not None:
        raise RunnerError(
            f"{untrusted} need the Docker sandbox: {reason}",
            hint="start Docker (`make sandbox`), or pass --sandbox local to run unisolated",
        )
    _warn_fallback(reason)
    return SandboxKind.local


def _warn_fallback(reason: str) -> None:
    global _warned_fallback
    if not _warned_fallback:
        _warned_fallback = True
        print(
            f"warning: no Docker sandbox ({reason}); trials run unisolated in the local "
            "sandbox (`make sandbox` sets Docker up)",
            file=sys.stderr,
            flush=True,
        )


def make_sandbox(
    kind: SandboxKind | str = SandboxKind.auto,
    *,
    mounts: Sequence[Mount] = (),
    untrusted: str | None = None,
) -> Sandbox:
    """A not-yet-started sandbox of ``kind`` with ``mounts``.

    ``kind`` is resolved by :func:`resolve_sandbox_kind` (``untrusted`` as there);
    RunnerError for an unknown kind, or ``docker`` where Docker is not usable.
    """
    if resolve_sandbox_kind(kind, untrusted=untrusted) is SandboxKind.docker:
        return DockerSandbox(mounts=mounts)
    return LocalSandbox(mounts=mounts)


def gate_sandboxes(kind: SandboxKind | str = SandboxKind.auto) -> SandboxFactory:
    """Where the red-team gate runs folder families (``benchmark.SandboxFactory``): sandboxes
    of ``kind`` with the mounts asked for; ``auto`` without Docker refuses (their commands
    are untrusted code), ``local`` runs them unisolated as asked. Resolved only when a folder
    family asks for one."""

    def make(mounts: list[tuple[Path, str, bool]]) -> Sandbox:
        return make_sandbox(kind, mounts=[Mount(*m) for m in mounts], untrusted=FOLDER_CODE)

    return make
