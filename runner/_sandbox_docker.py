"""A sandbox in one long-lived Docker container, driven through the docker CLI."""

from __future__ import annotations

import asyncio
import logging
import os
import posixpath
import secrets
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from runner._sandbox_base import ExecResult, Mount, Sandbox, checked_mounts
from runner._sandbox_proc import kill, run_to_end, start_process
from runner.errors import RunnerError

DEFAULT_IMAGE = os.environ.get("VWT_SANDBOX_IMAGE", "").strip() or "vwt-sandbox:bookworm"
"""The image `make sandbox` builds locally (Debian bookworm minbase, python3 and the MCP SDK);
``VWT_SANDBOX_IMAGE`` names another, as it does for scripts/sandbox-setup.sh."""

NOBODY = (65534, 65534)
"""The (uid, gid) sandbox commands run as by default: Debian's ``nobody:nogroup``."""

LABEL = "org.vwt.sandbox"
"""Label on every sandbox container; its ``.owner`` variant says which host process owns it."""

_EXEC_SCRIPT = (
    't=$1; shift; exec 3<&0; timeout --signal=KILL "$t" "$@" <&3 3<&- & p=$!; exec 3<&-; '
    'wait "$p"; s=$?; kill -KILL -"$p" 2>/dev/null; exit "$s"'
)
"""Runs ``timeout LIMIT CMD...`` (a process group of its own) and kills the group when it
ends, so that nothing the command started outlives it. Stdin is passed on through fd 3 (a
background job's own stdin would be /dev/null)."""
_CLI_TIMEOUT_S = 60.0
_EXEC_GRACE_S = 5.0
_KILLED = 128 + 9

log = logging.getLogger(__name__)


class DockerSandbox(Sandbox):
    """One container per sandbox: no network, bounded memory, CPUs and processes, no caps.

    Commands run as an unprivileged user (``nobody``, 65534:65534, by default) on a read-only
    root filesystem; the only writable places are small tmpfs areas (``/tmp``, the working
    directory, both ``noexec,nosuid``, and Docker's ``/dev/shm``) and writable mounts. A
    read-only mount the sandbox user could not read (e.g. a 0600 file) is mounted from a
    world-readable copy.

    The container idles (``sleep infinity`` under ``--init``) and every command is a
    ``docker exec`` into it, so a batch of trials pays container start-up once. ``stop()``
    removes the container; one orphaned by a crash carries the :data:`LABEL` labels, which
    :func:`remove_stale_sandboxes` uses to clean it. The image must provide ``timeout``
    (coreutils) and ``sh``; the default image does.
    """

    kind = "docker"

    def __init__(
        self,
        image: str = DEFAULT_IMAGE,
        *,
        mounts: Sequence[Mount] = (),
        memory: str = "512m",
        cpus: float = 1.0,
        pids_limit: int = 256,
        workdir: str = "/sandbox",
        user: tuple[int, int] = NOBODY,
        scratch: str = "16m",
        workdir_size: str = "64m",
    ) -> None:
        """Prepare (but do not start) a container of ``image`` with these limits and mounts.

        ``user`` is the (uid, gid) commands run as; ``scratch`` the size of the ``/tmp``
        tmpfs and ``workdir_size`` that of the working directory's, which holds the work
        trees of a batch's trials: a small Python project with its test runs' caches takes
        well under 1 MiB, so 64 MiB leaves room for dozens of sessions and for output files.
        Both count against ``memory``. A writable mount must be writable by ``user``.
        """
        if not posixpath.isabs(workdir):
            raise RunnerError(
                f"sandbox workdir {workdir!r} is not absolute", hint="use e.g. /sandbox"
            )
        self.image = image
        self.workdir = workdir
        self.user = user
        self._mounts = checked_mounts(mounts)
        for m in self._mounts:
            if not m.read_only and not _writable_by(m.source, user):
                raise RunnerError(
                    f"writable sandbox mount {m.source} is not writable by uid {user[0]}",
                    hint=f"chown {user[0]} {m.source}, or make it world-writable",
                )
        self._limits = ["--memory", memory, "--memory-swap", memory, "--cpus", f"{cpus:g}"]
        self._limits += ["--pids-limit", str(pids_limit)]
        self._scratch = scratch
        self._workdir_size = workdir_size
        self._name: str | None = None
        self._staging: Path | None = None
        self._procs: list[asyncio.subprocess.Process] = []

    @property
    def container(self) -> str:
        """The running container's name."""
        if self._name is None:
            raise RuntimeError("the sandbox is not started")
        return self._name

    def _run_argv(self, name: str, mounts: Sequence[Mount]) -> list[str]:
        uid, gid = self.user
        flags = "rw,noexec,nosuid"
        argv = ["docker", "run", "--detach", "--name", name, "--init", "--network", "none"]
        argv += [*self._limits, "--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
        argv += ["--user", f"{uid}:{gid}", "--read-only"]
        if self.workdir != "/tmp":
            argv += ["--tmpfs", f"/tmp:{flags},size={self._scratch}"]
        work = f"{flags},size={self._workdir_size},uid={uid},gid={gid},mode=0755"
        argv += ["--tmpfs", f"{self.workdir}:{work}"]
        argv += ["--label", f"{LABEL}=1", "--label", f"{LABEL}.owner={_owner()}"]
        argv += ["--workdir", self.workdir]
        for m in mounts:
            spec = f"type=bind,source={m.source},target={self._abs(m.target)}"
            argv += ["--mount", spec + (",readonly" if m.read_only else "")]
        return [*argv, self.image, "sleep", "infinity"]

    def _readable_mounts(self) -> list[Mount]:
        """The mounts, read-only ones the sandbox user could not read replaced by copies."""
        out = []
        for i, m in enumerate(self._mounts):
            if m.read_only and not _readable_by_all(m.source):
                if self._staging is None:
                    self._staging = Path(tempfile.mkdtemp(prefix="vwt-sandbox-mounts-"))
                    self._staging.chmod(0o755)
                copy = self._staging / f"{i}-{m.source.name}"
                _world_readable_copy(m.source, copy)
                m = m._replace(source=copy)
            out.append(m)
        return out

    def _abs(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.workdir, path))

    async def start(self) -> None:
        """Start the container; RunnerError when the engine or the image is not there."""
        if self._name is not None:
            raise RuntimeError("the sandbox is already started")
        name = f"vwt-sandbox-{secrets.token_hex(6)}"
        mounts = await asyncio.to_thread(self._readable_mounts)
        r = await run_to_end(self._run_argv(name, mounts), input=None, timeout=_CLI_TIMEOUT_S)
        if not r.ok:
            await _remove(name)  # a timed-out `docker run` may still have created it
            self._remove_staging()
            raise RunnerError(
                f"could not start a Docker sandbox: {_last_line(r.stderr)}",
                hint="run `make sandbox` to start the engine and build the image",
            )
        self._name = name

    async def stop(self) -> None:
        """Kill the ``docker exec`` clients and remove the container (and all it ran)."""
        procs, self._procs = self._procs, []
        await asyncio.gather(*(kill(p) for p in procs))
        name, self._name = self._name, None
        if name is not None:
            await _remove(name)
        self._remove_staging()

    def _remove_staging(self) -> None:
        staging, self._staging = self._staging, None
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)

    async def exec(
        self, cmd: list[str], *, input: bytes | None = None, timeout: float = 60
    ) -> ExecResult:
        """Run ``cmd`` in the container; at ``timeout``, and when ``cmd`` exits, its whole
        process group is killed inside the container (what it left running dies with it)."""
        # Killing the docker client would not stop the command, so `timeout` runs inside.
        argv = ["docker", "exec", *(["--interactive"] if input is not None else [])]
        argv += [self.container, "sh", "-c", _EXEC_SCRIPT, "sh", f"{timeout:.3f}", *cmd]
        started = time.monotonic()
        r = await run_to_end(
            argv, input=input, timeout=timeout + _EXEC_GRACE_S, max_output=self.max_output
        )
        if r.returncode == _KILLED and time.monotonic() - started >= timeout:
            return r.model_copy(update={"timed_out": True})
        return r

    async def spawn(self, cmd: list[str]) -> asyncio.subprocess.Process:
        """Start ``cmd`` in the container with pipes; ``stop()`` kills it."""
        proc = await start_process(["docker", "exec", "--interactive", self.container, *cmd])
        self._procs.append(proc)
        return proc

    async def read_file(self, path: str) -> bytes:
        """The contents of ``path`` in the container (relative to the workdir)."""
        r = await self._file_cmd(["cat", "--", self._abs(path)], None)
        return r.stdout

    async def write_file(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` in the container, creating parent directories."""
        script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"'
        await self._file_cmd(["sh", "-c", script, "sh", self._abs(path)], data)

    async def _file_cmd(self, cmd: list[str], data: bytes | None) -> ExecResult:
        r = await self.exec(cmd, input=data, timeout=_CLI_TIMEOUT_S)
        if r.truncated:
            raise OSError(f"{cmd[-1]}: larger than {self.max_output} bytes")
        if r.ok:
            return r
        msg = _last_line(r.stderr)
        for marker, error in _FILE_ERRORS:
            if marker in msg:
                raise error(f"{cmd[-1]}: {msg}")
        raise OSError(f"{cmd[-1]}: {msg or f'exit status {r.returncode}'}")


_FILE_ERRORS: tuple[tuple[str, type[OSError]], ...] = (
    ("No such file", FileNotFoundError),
    ("Is a directory", IsADirectoryError),
    ("Permission denied", PermissionError),
    ("Read-only file system", PermissionError),
)


def _readable_by_all(path: Path) -> bool:
    """Whether every file under ``path`` is world-readable (directories also searchable)."""
    for p in [path, *path.rglob("*")] if path.is_dir() else [path]:
        need = stat.S_IROTH | (stat.S_IXOTH if p.is_dir() else 0)
        if not p.is_symlink() and p.stat().st_mode & need != need:
            return False
    return True


def _world_readable_copy(source: Path, dest: Path) -> None:
    """Copy ``source`` to ``dest`` with directories 0755 and files 0644 (0755 if executable)."""
    if source.is_dir():
        shutil.copytree(source, dest, symlinks=True)
    else:
        shutil.copy2(source, dest)
    paths = [dest, *dest.rglob("*")] if dest.is_dir() else [dest]
    for p in paths:
        if p.is_symlink():
            continue
        executable = p.is_dir() or p.stat().st_mode & stat.S_IXUSR
        p.chmod(0o755 if executable else 0o644)


def _writable_by(path: Path, user: tuple[int, int]) -> bool:
    """Whether ``user`` (uid, gid; not root) may write to ``path`` by its permission bits."""
    st = path.stat()
    uid, gid = user
    if st.st_uid == uid:
        return bool(st.st_mode & stat.S_IWUSR)
    if st.st_gid == gid:
        return bool(st.st_mode & stat.S_IWGRP)
    return bool(st.st_mode & stat.S_IWOTH)


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _last_line(data: bytes) -> str:
    lines = data.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else ""


async def _remove(name: str) -> None:
    r = await run_to_end(["docker", "rm", "--force", name], input=None, timeout=_CLI_TIMEOUT_S)
    if not r.ok and b"No such container" not in r.stderr:
        # Not raised: stop() runs during unwinding; the label lets a later cleanup find it.
        log.warning("could not remove sandbox container %s: %s", name, _last_line(r.stderr))
