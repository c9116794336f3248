"""A sandbox on the host itself: a private temporary directory, a scrubbed environment, and,
where the host process is root, an unprivileged user."""

from __future__ import annotations

import asyncio
import contextlib
import os
import posixpath
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from benchmark._sandbox_exec import OPT_ENV, opt_dir
from runner._sandbox_base import (
    MAX_READ,
    NOBODY,
    ExecResult,
    Mount,
    OutputRefused,
    Sandbox,
    checked_mounts,
    writable_by,
)
from runner._sandbox_proc import kill, run_to_end, start_process
from runner.errors import RunnerError

SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
"""The ``PATH`` commands get: system directories only, none of the operator's."""
_OPT_COPY = ".vwt-opt"


class LocalSandbox(Sandbox):
    """Runs commands on the host in a fresh private temporary working directory.

    It isolates only this: the working directory (``cwd``, ``HOME`` and ``TMPDIR`` are in
    it), a scrubbed environment (no API keys, no host variables, a system ``PATH``), and — when
    this process is root — the user: commands then run as ``nobody`` (65534:65534), with the
    working directory theirs, so they cannot read the operator's home, keys or cycle
    secrets. No memory, process or network limits: use Docker for untrusted code (the
    sealed phases and ``vwt adapt`` run here only when ``--sandbox local`` is named).

    File paths resolve inside the working directory, absolute ones included, and file
    access never follows a link (a command cannot make the host read or write elsewhere
    for it). A read-only mount is a copy, so the host original cannot change; a writable
    mount is a symlink to the host path (writable by ``nobody`` where commands run as it).
    ``VWT_SANDBOX_OPT`` names the image's library directory as the sandbox sees it (the
    repository's ``scripts/sandbox-image``, or a copy of it for ``nobody``), where the Docker
    image has ``/opt/vwt``.
    """

    kind = "local"

    def __init__(self, *, mounts: Sequence[Mount] = ()) -> None:
        """Prepare (but do not start) a sandbox with ``mounts`` placed at ``start()``."""
        self._mounts = checked_mounts(mounts)
        self._user: tuple[int, int] | None = NOBODY if os.geteuid() == 0 else None
        if self._user is not None:
            for m in self._mounts:
                if not m.read_only and not writable_by(m.source, self._user):
                    raise RunnerError(
                        f"writable sandbox mount {m.source} is not writable by uid "
                        f"{self._user[0]} (local sandbox commands run as nobody under root)",
                        hint=f"chown {self._user[0]} {m.source}, or make it world-writable",
                    )
        self._root: Path | None = None
        self._procs: list[asyncio.subprocess.Process] = []

    @property
    def user(self) -> tuple[int, int] | None:  # type: ignore[override]
        """The (uid, gid) commands run as, or None when they run as this process's user."""
        return self._user

    @property
    def python(self) -> tuple[str, ...]:  # type: ignore[override]
        """This interpreter in isolated mode, or, for ``nobody``, the system ``python3``
        (this one may live in a home ``nobody`` cannot enter)."""
        if self._user is None:
            return (sys.executable, "-I", "-S")
        found = shutil.which("python3", path=SAFE_PATH)
        if found is None:
            raise RunnerError(
                f"no python3 on {SAFE_PATH} for the local sandbox's unprivileged user",
                "install python3 (e.g. apt-get install python3), or use the Docker sandbox",
            )
        return (found, "-I", "-S")

    @property
    def workdir(self) -> Path:
        """The host directory that is this sandbox's working directory (while started)."""
        if self._root is None:
            raise RuntimeError("the sandbox is not started")
        return self._root

    async def start(self) -> None:
        """Create the working directory and place the mounts in it."""
        if self._root is not None:
            raise RuntimeError("the sandbox is already started")
        self._root = Path(tempfile.mkdtemp(prefix="vwt-sandbox-")).resolve()
        (self._root / "tmp").mkdir()
        await asyncio.to_thread(self._place_mounts)

    def _place_mounts(self) -> None:
        root = self.workdir
        for m in self._mounts:
            dest = self.host_path(m.target)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not m.read_only:
                dest.symlink_to(m.source)
            elif m.source.is_dir():
                shutil.copytree(m.source, dest, symlinks=True)
            else:
                shutil.copy2(m.source, dest)
        if self._user is not None:
            shutil.copytree(opt_dir(), root / _OPT_COPY, symlinks=True)
            for p in _tree(root):
                os.chown(p, *self._user, follow_symlinks=False)

    async def stop(self) -> None:
        """Kill spawned processes (and their groups) and delete the working directory."""
        procs, self._procs = self._procs, []
        await asyncio.gather(*(kill(p) for p in procs))
        root, self._root = self._root, None
        if root is not None:
            # rmtree unlinks symlinks without following them: writable mounts survive.
            await asyncio.to_thread(shutil.rmtree, root, True)

    def host_path(self, path: str) -> Path:
        """Where ``path`` (relative, or absolute inside the sandbox) lives on the host."""
        rel = posixpath.normpath("/" + path).lstrip("/")
        return self.workdir / rel if rel else self.workdir

    def _env(self) -> dict[str, str]:
        root = self.workdir
        opt = str(root / _OPT_COPY) if self._user is not None else opt_dir()
        return {
            "PATH": SAFE_PATH,
            "HOME": str(root),
            "TMPDIR": str(root / "tmp"),
            "LANG": "C.UTF-8",
            OPT_ENV: opt,
        }

    async def exec(
        self, cmd: list[str], *, input: bytes | None = None, timeout: float = 60
    ) -> ExecResult:
        """Run ``cmd`` in the working directory; kill its process group at ``timeout``."""
        return await run_to_end(
            cmd,
            input=input,
            timeout=timeout,
            cwd=str(self.workdir),
            env=self._env(),
            max_output=self.max_output,
            user=self._user,
        )

    async def spawn(self, cmd: list[str]) -> asyncio.subprocess.Process:
        """Start ``cmd`` in the working directory with pipes; ``stop()`` kills it."""
        proc = await start_process(cmd, cwd=str(self.workdir), env=self._env(), user=self._user)
        self._procs.append(proc)
        return proc

    async def read_file(self, path: str, *, limit: int = MAX_READ) -> bytes:
        """The contents of ``path`` inside the working directory: a regular file of at most
        ``limit`` bytes reached without following any link (else OutputRefused)."""
        return await asyncio.to_thread(self._read, path, limit)

    def _read(self, path: str, limit: int) -> bytes:
        with self._open(path, os.O_RDONLY | os.O_NONBLOCK) as fd:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise IsADirectoryError(f"{path}: Is a directory")
            if not stat.S_ISREG(st.st_mode):
                raise OutputRefused(f"{path}: not a regular file")
            if st.st_size > limit:
                raise OutputRefused(f"{path}: {st.st_size} bytes, over {limit}")
            chunks, left = [], limit + 1
            while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
                chunks.append(chunk)
                left -= len(chunk)
        data = b"".join(chunks)
        if len(data) > limit:
            raise OutputRefused(f"{path}: grew past {limit} bytes while it was read")
        return data

    async def write_file(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` inside the working directory, creating parents; a link
        on the way is refused (OutputRefused), never followed."""
        await asyncio.to_thread(self._write, path, data)

    def _write(self, path: str, data: bytes) -> None:
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        with self._open(path, flags, create=True) as fd:
            if self._user is not None:
                os.fchown(fd, *self._user)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]

    @contextlib.contextmanager
    def _open(self, path: str, flags: int, *, create: bool = False) -> Iterator[int]:
        """A descriptor of ``path`` opened component by component from the working
        directory with O_NOFOLLOW: a link anywhere on the way is refused, except the links
        this sandbox placed for its writable mounts, which lead to their sources."""
        parts = [p for p in posixpath.normpath("/" + path).split("/") if p]
        if not parts:
            raise IsADirectoryError(f"{path}: Is a directory")
        links = {
            posixpath.normpath("/" + m.target).lstrip("/"): m.source
            for m in self._mounts
            if not m.read_only
        }
        fds = [os.open(self.workdir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
        try:
            for i, part in enumerate(parts):
                last = i == len(parts) - 1
                source = links.get("/".join(parts[: i + 1]))
                if source is not None:
                    want = flags if last else os.O_RDONLY | os.O_DIRECTORY
                    fds.append(os.open(source, want | os.O_CLOEXEC, 0o644))
                    continue
                if create and not last:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(part, 0o755, dir_fd=fds[-1])
                        if self._user is not None:
                            os.chown(part, *self._user, dir_fd=fds[-1], follow_symlinks=False)
                want = flags if last else os.O_RDONLY | os.O_DIRECTORY
                fds.append(_open_at(path, part, want, fds[-1]))
            yield fds[-1]
        finally:
            for fd in fds:
                os.close(fd)


def _open_at(path: str, name: str, flags: int, dir_fd: int) -> int:
    try:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=dir_fd)
    except OSError as e:
        # ELOOP (the last part) or ENOTDIR (a part on the way) where a link stands.
        st = _lstat_at(name, dir_fd)
        if st is not None and stat.S_ISLNK(st.st_mode):
            raise OutputRefused(f"{path}: {name} is a symbolic link") from None
        raise type(e)(e.errno, f"{path}: {e.strerror}") from None


def _lstat_at(name: str, dir_fd: int) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None


def _tree(root: Path) -> Iterator[Path]:
    yield root
    for d, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            yield Path(d) / name
