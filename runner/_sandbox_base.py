"""The sandbox interface: a place where a batch of trials runs commands and long-lived processes."""

from __future__ import annotations

import abc
import asyncio
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import ClassVar, NamedTuple, Self

from pydantic import BaseModel, ConfigDict, Field

from runner.errors import RunnerError

MAX_OUTPUT = 16 * 1024 * 1024
"""Bytes of each of a command's stdout and stderr kept by ``Sandbox.exec``: a command that
floods its output cannot fill the host's memory."""


class ExecResult(BaseModel):
    """The outcome of one command run to completion (or killed at its timeout) in a sandbox."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    returncode: int = Field(
        description="Exit status; negative (local) or 128+signal (Docker) when killed."
    )
    stdout: bytes = Field(description="Everything the command wrote to stdout.")
    stderr: bytes = Field(description="Everything the command wrote to stderr.")
    timed_out: bool = Field(
        default=False, description="True when the command was killed at its timeout."
    )
    truncated: bool = Field(
        default=False,
        description="True when stdout or stderr was longer than the sandbox keeps "
        "(Sandbox.max_output bytes each); the rest was read and dropped.",
    )

    @property
    def ok(self) -> bool:
        """True when the command ran to completion and exited 0."""
        return self.returncode == 0 and not self.timed_out


class Mount(NamedTuple):
    """A host path made visible inside a sandbox.

    ``target`` is the path inside the sandbox; a relative target is relative to the sandbox's
    working directory, which is the portable form (an absolute target is honoured by Docker,
    and resolves inside the working directory of a local sandbox).
    """

    source: Path
    """The host file or directory."""
    target: str
    """Where it appears inside the sandbox."""
    read_only: bool = True
    """Whether processes in the sandbox are kept from changing it."""


class Sandbox(abc.ABC):
    """One isolated place to run commands, used as ``async with sandbox: ...``.

    Subclasses implement the lifecycle (``start``/``stop``), one-shot commands (``exec``),
    long-lived processes speaking over pipes (``spawn``) and file transfer. Relative paths
    and commands run relative to the sandbox's working directory.
    """

    kind: ClassVar[str]
    """Which implementation this is ("local" or "docker"), for a trial's provenance."""
    max_output: ClassVar[int] = MAX_OUTPUT
    """Bytes of each of stdout and stderr ``exec`` keeps."""

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    @abc.abstractmethod
    async def start(self) -> None:
        """Create the sandbox; commands can run once this returns."""

    @abc.abstractmethod
    async def stop(self) -> None:
        """Kill every process spawned in the sandbox and remove it; safe to call twice."""

    @abc.abstractmethod
    async def exec(
        self, cmd: list[str], *, input: bytes | None = None, timeout: float = 60
    ) -> ExecResult:
        """Run ``cmd`` to completion with ``input`` on stdin; kill it after ``timeout`` seconds.

        Keeps the first :attr:`max_output` bytes of stdout and of stderr (``truncated`` says
        whether there was more)."""

    @abc.abstractmethod
    async def spawn(self, cmd: list[str]) -> asyncio.subprocess.Process:
        """Start a long-lived process with stdin, stdout and stderr pipes; ``stop`` kills it.

        Read its stderr (e.g. after it exits) to learn why it failed: a process that writes
        more than a pipe buffer (64 KiB) to stderr while nobody reads it blocks.
        """

    @abc.abstractmethod
    async def read_file(self, path: str) -> bytes:
        """The contents of ``path`` in the sandbox (FileNotFoundError when absent)."""

    @abc.abstractmethod
    async def write_file(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` in the sandbox, creating parent directories."""


def checked_mounts(mounts: Sequence[Mount]) -> tuple[Mount, ...]:
    """``mounts`` with absolute sources, once each source exists and each target is sane."""
    checked = []
    for m in mounts:
        source = Path(m.source).resolve()
        if not source.exists():
            raise RunnerError(
                f"sandbox mount source {source} does not exist",
                hint="mount an existing file or directory",
            )
        bad = "," in str(source) or "," in m.target or ".." in PurePosixPath(m.target).parts
        if bad or not m.target.strip("/"):
            raise RunnerError(
                f"sandbox mount {str(source)!r} -> {m.target!r} is not allowed",
                hint="use a target below the sandbox root without '..' and paths without ','",
            )
        checked.append(Mount(source, m.target, m.read_only))
    return tuple(checked)
