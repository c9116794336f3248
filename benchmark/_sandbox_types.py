"""The shapes of what serves a family's tools: a sandbox that spawns a server, its process,
the sandbox the red-team gate starts itself, and a folder family's server command. Imports
nothing of vwt's, so every module can name them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol


class ServerProcess(Protocol):
    """The server's process as a sandbox's ``spawn`` gives it (``runner.SandboxProcess``;
    an ``asyncio.subprocess.Process`` is one)."""

    @property
    def pid(self) -> int:
        """Its process id."""

    @property
    def returncode(self) -> int | None:
        """Its exit status once it has exited and was waited for, else None."""

    @property
    def stdin(self) -> Any:
        """Its standard input (``write``, ``drain``, ``close``, ``is_closing``)."""

    @property
    def stdout(self) -> asyncio.StreamReader | None:
        """Its standard output."""

    @property
    def stderr(self) -> asyncio.StreamReader | None:
        """Its standard error."""

    async def wait(self) -> int:
        """Wait until it has exited; its exit status."""

    def kill(self) -> None:
        """SIGKILL it (ProcessLookupError where it has exited already)."""


class ServerSandbox(Protocol):
    """Where the server runs (a ``runner.Sandbox`` is one)."""

    @property
    def kind(self) -> str:
        """Where the server finds the SDK (:func:`server_site`): "local" or "docker"."""

    @property
    def python(self) -> tuple[str, ...]:
        """The interpreter that runs the server."""

    @property
    def user(self) -> tuple[int, int] | None:
        """The (uid, gid) its processes run as, None for this process's own user."""

    async def spawn(self, cmd: list[str]) -> ServerProcess:
        """Start ``cmd`` with stdin, stdout and stderr pipes."""


class GateSandbox(ServerSandbox, Protocol):
    """A sandbox the gate starts and stops itself (``async with``); a ``runner.Sandbox`` is
    one."""

    async def __aenter__(self) -> Any:
        """Start it."""

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> Any:
        """Stop it."""


SandboxFactory = Callable[[list[tuple[Path, str, bool]]], GateSandbox]
"""Makes a not-yet-started sandbox with the given (host path, sandbox path, read-only) mounts:
where the gate runs families whose end states exist only in a sandbox (folder families)."""


@dataclass(frozen=True)
class ExternalServer:
    """A folder family's environment at one release: a stdio MCP server command started per
    trial in the sandbox over the trial's own state directory (``benchmark._mcp_relay``)."""

    command: tuple[str, ...]
    """The server's argv, with {state}, {family} and {servers} to fill in."""
    tools: tuple[dict[str, Any], ...]
    """The tools the release declares (its tools file): the server must list these."""
    family_dir: Path
    """The family's folder (a private copy), mounted read-only as {family}."""
    servers_dir: Path | None
    """The installed MCP servers, mounted read-only as {servers}, if the command uses them."""
    verifier: tuple[str, ...] | None
    """The verifier command, if the family has one."""
    verifier_timeout_s: float
    """Seconds the verifier may run."""
    concurrency: int
    """Trial servers the sandbox runs at once."""
    release: str
    """The release's version id (for messages)."""
