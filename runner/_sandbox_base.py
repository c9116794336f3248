"""The sandbox interface: a place where a batch of trials runs commands and long-lived processes."""

from __future__ import annotations

import abc
import asyncio
import stat
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import ClassVar, NamedTuple, Protocol, Self

from pydantic import BaseModel, ConfigDict, Field

from runner.errors import RunnerError

MAX_OUTPUT = 16 * 1024 * 1024
"""Bytes of each of a command's stdout and stderr kept by ``Sandbox.exec``: a command that
floods its output cannot fill the host's memory."""


NOBODY = (65534, 65534)
"""The (uid, gid) sandbox commands run as where the sandbox picks the user: Debian's
``nobody:nogroup``."""

MAX_READ = MAX_OUTPUT
"""Bytes ``Sandbox.read_file`` returns at most by default: a file the sandbox's code wrote is
untrusted output, so it is read only up to a bound."""


class OutputRefused(OSError):
    """``Sandbox.read_file`` refused a path: a link, not a regular file, or over the limit.

    Raised before the host reads more than the limit, so a link to ``/dev/zero`` or a huge
    file costs nothing; the message says which rule the path broke."""


class ProcessInput(Protocol):
    """What a spawned process's stdin offers (an ``asyncio.StreamWriter`` does)."""

    def write(self, data: bytes) -> None:
        """Queue ``data`` for the process."""

    async def drain(self) -> None:
        """Wait until the queued data was taken (raises ConnectionError once input ended)."""

    def close(self) -> None:
        """End the process's input."""

    def is_closing(self) -> bool:
        """Whether the input was ended."""

    async def wait_closed(self) -> None:
        """Wait until ending the input is done."""


class SandboxProcess(Protocol):
    """A long-lived process started by ``Sandbox.spawn`` (an ``asyncio.subprocess.Process``
    is one): pipes, its exit status, and a way to kill it."""

    @property
    def pid(self) -> int:
        """Its process id (in the sandbox's own process namespace for Docker)."""

    @property
    def returncode(self) -> int | None:
        """Its exit status once it has exited and was waited for, else None."""

    @property
    def stdin(self) -> ProcessInput | None:
        """Its standard input."""

    @property
    def stdout(self) -> asyncio.StreamReader | None:
        """Its standard output."""

    @property
    def stderr(self) -> asyncio.StreamReader | None:
        """Its standard error."""

    async def wait(self) -> int:
        """Wait until it has exited; its exit status."""

    def kill(self) -> None:
        """SIGKILL it (ProcessLookupError where it has exited already, as asyncio's does)."""


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
    python: tuple[str, ...] = ("python3",)
    """The interpreter that runs standard-library scripts (a family backend) in the sandbox."""
    user: tuple[int, int] | None = None
    """The (uid, gid) its commands run as; None: this process's own user."""

    async def __aenter__(self) -> Self:
        """``start``; a start cancelled (or failing) part-way removes what it made."""
        try:
            await self.start()
        except BaseException:
            await self.stop()
            raise
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
    async def spawn(self, cmd: list[str]) -> SandboxProcess:
        """Start a long-lived process with stdin, stdout and stderr pipes; ``stop`` kills it.

        Read its stderr (e.g. after it exits) to learn why it failed: a process that writes
        more than a pipe buffer (64 KiB) to stderr while nobody reads it blocks.
        """

    @abc.abstractmethod
    async def read_file(self, path: str, *, limit: int = MAX_READ) -> bytes:
        """The contents of ``path`` in the sandbox, read as untrusted output.

        Without following a link in the last component, and only a regular file of at most
        ``limit`` bytes (checked before its data are read): else :class:`OutputRefused`.
        FileNotFoundError when absent, IsADirectoryError for a directory, PermissionError when
        the sandbox made it unreadable."""

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


def writable_by(path: Path, user: tuple[int, int]) -> bool:
    """Whether ``user`` (uid, gid; not root) may write to ``path`` by its permission bits."""
    st = path.stat()
    uid, gid = user
    if st.st_uid == uid:
        return bool(st.st_mode & stat.S_IWUSR)
    if st.st_gid == gid:
        return bool(st.st_mode & stat.S_IWGRP)
    return bool(st.st_mode & stat.S_IWOTH)
