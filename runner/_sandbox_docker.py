"""A sandbox in one long-lived Docker container, driven through the ``docker`` SDK."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import posixpath
import secrets
import shutil
import socket
import stat
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import docker.errors
import docker.types

from runner._docker_api import API_TIMEOUT_S, EngineStream, engine, engine_error, open_stream
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
from runner._sandbox_proc import LINE_LIMIT
from runner.errors import RunnerError

DEFAULT_IMAGE = os.environ.get("VWT_SANDBOX_IMAGE", "").strip() or "vwt-sandbox:bookworm"
"""The image `make sandbox` builds locally (Debian bookworm minbase, python3 and the MCP SDK);
``VWT_SANDBOX_IMAGE`` names another, as it does for scripts/sandbox-setup.sh."""

LABEL = "org.vwt.sandbox"
"""Label on every sandbox container; its ``.owner`` variant says which host process owns it."""

IDLE = ("cat",)
"""The container's main process: it reads the stdin the owning process holds open and ends
when that connection does, which ends (and removes) the container — also when its owner is
killed without a chance to clean up."""

_EXEC_SCRIPT = (
    't=$1; shift; exec 3<&0; timeout --signal=KILL "$t" "$@" <&3 3<&- & p=$!; exec 3<&-; '
    'wait "$p"; s=$?; kill -KILL -"$p" 2>/dev/null; exit "$s"'
)
"""Runs ``timeout LIMIT CMD...`` (a process group of its own) and kills the group when it
ends, so that nothing the command started outlives it. Stdin is passed on through fd 3 (a
background job's own stdin would be /dev/null)."""
_SPAWN_SCRIPT = 'echo "$$" >&2; exec "$@"'
"""Says the process's pid (its first line on stderr) before it becomes the command."""
_READ_SCRIPT = (
    'f=$1; n=$2; if [ -L "$f" ]; then echo "refused: a symbolic link" >&2; exit 3; fi; '
    'if [ ! -e "$f" ]; then echo "No such file" >&2; exit 1; fi; '
    'if [ "$(readlink -f -- "$f")" != "$f" ]; then '
    'echo "refused: a symbolic link on the way" >&2; exit 3; fi; '
    'if [ -d "$f" ]; then echo "Is a directory" >&2; exit 1; fi; '
    'if [ ! -f "$f" ]; then echo "refused: not a regular file" >&2; exit 3; fi; '
    's=$(stat -c %s -- "$f") || exit 1; '
    'if [ "$s" -gt "$n" ]; then echo "refused: $s bytes, over $n" >&2; exit 3; fi; '
    'exec head -c "$((n + 1))" -- "$f"'
)
"""Prints a regular file of at most N bytes reached through no link, and nothing of any
other path (the path given is normalised: any link on the way changes what it resolves to)."""
_REFUSED = 3
_FILE_TIMEOUT_S = 60.0
_EXEC_GRACE_S = 5.0
_KILLED = 128 + 9
_STDERR_KEEP = 1 << 20
"""Bytes of a spawned process's stderr kept for a reader (the rest is dropped)."""

log = logging.getLogger(__name__)


class DockerSandbox(Sandbox):
    """One container per sandbox: no network, no IPC, bounded memory, CPUs and processes.

    Commands run as an unprivileged user (``nobody``, 65534:65534, by default) with no
    capabilities on a read-only root filesystem; the only writable places are small tmpfs
    areas (``/tmp`` and the working directory, both ``noexec,nosuid``) and writable mounts;
    there is no ``/dev/shm`` (``ipc_mode=none``). A read-only mount the sandbox user could not
    read (e.g. a 0600 file) is mounted from a private copy only that user can read.

    The container's main process (:data:`IDLE`, under ``--init``) lives as long as this
    object's connection to the engine, and the container removes itself when it ends; every
    command is an exec into it, so a batch of trials pays container start-up once. ``stop()``
    removes it; the :data:`LABEL` labels let :func:`remove_stale_sandboxes` clean one the
    engine kept. The image must provide ``timeout``, ``stat``, ``head`` (coreutils), ``cat``
    and ``sh``; the default image does. The engine is the one ``DOCKER_HOST`` names (default:
    the local socket); mounts are bind mounts, so it must see this machine's files.
    """

    kind = "docker"
    user: tuple[int, int]
    """The (uid, gid) its commands run as."""

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
            if not m.read_only and not writable_by(m.source, user):
                raise RunnerError(
                    f"writable sandbox mount {m.source} is not writable by uid {user[0]}",
                    hint=f"chown {user[0]} {m.source}, or make it world-writable",
                )
        self._memory, self._cpus, self._pids_limit = memory, cpus, pids_limit
        self._scratch = scratch
        self._workdir_size = workdir_size
        self._id: str | None = None
        self._name: str | None = None
        self._lifeline: EngineStream | None = None
        self._staging: Path | None = None
        self._procs: list[DockerProcess] = []

    @property
    def container(self) -> str:
        """The running container's name."""
        if self._name is None:
            raise RuntimeError("the sandbox is not started")
        return self._name

    def _create_args(self, name: str, mounts: Sequence[Mount]) -> dict[str, Any]:
        """The SDK's ``containers.create`` arguments: the image, the limits, the mounts."""
        uid, gid = self.user
        flags = "rw,noexec,nosuid"
        tmpfs = {self.workdir: f"{flags},size={self._workdir_size},uid={uid},gid={gid},mode=0755"}
        if self.workdir != "/tmp":
            tmpfs["/tmp"] = f"{flags},size={self._scratch}"
        binds = [
            docker.types.Mount(self._abs(m.target), str(m.source), "bind", read_only=m.read_only)
            for m in mounts
        ]
        groups = [str(g) for g in self._extra_groups()]
        return {
            "image": self.image,
            "command": list(IDLE),
            "name": name,
            "init": True,
            "stdin_open": True,  # and, not detached, StdinOnce: EOF when we disconnect
            "detach": False,
            "auto_remove": True,
            "network_mode": "none",
            "ipc_mode": "none",
            "mem_limit": self._memory,
            "memswap_limit": self._memory,
            "nano_cpus": round(self._cpus * 1e9),
            "pids_limit": self._pids_limit,
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "user": f"{uid}:{gid}",
            "group_add": groups or None,
            "read_only": True,
            "tmpfs": tmpfs,
            "labels": {LABEL: "1", f"{LABEL}.owner": _owner()},
            "working_dir": self.workdir,
            "mounts": binds,
        }

    def _extra_groups(self) -> list[int]:
        """A group of ours the private copies belong to, where we cannot give them away."""
        if os.geteuid() == 0 or self._staging is None:
            return []
        return [os.getegid()]

    def _private_mounts(self) -> list[Mount]:
        """The mounts, read-only ones the sandbox user could not read replaced by copies only
        that user can read (owned by it; where we are not root, by our group, which the
        container joins): never world-readable, whatever the umask."""
        out = []
        for i, m in enumerate(self._mounts):
            if m.read_only and not _readable_by_all(m.source):
                if self._staging is None:
                    self._staging = Path(tempfile.mkdtemp(prefix="vwt-sandbox-mounts-"))
                copy = self._staging / f"{i}-{m.source.name}"
                _private_copy(m.source, copy, self.user)
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
        try:
            mounts = await asyncio.to_thread(self._private_mounts)
            args = self._create_args(name, mounts)
            created = await asyncio.to_thread(lambda: engine().containers.create(**args))
            self._id = str(created.id)
            self._name = name
            # Attached before it starts, so its idle process reads this connection's end.
            self._lifeline = await open_stream(
                f"/containers/{self._id}/attach?stream=1&stdin=1", None, lambda k, d: None
            )
            await asyncio.to_thread(created.start)
        except (docker.errors.DockerException, RunnerError, OSError) as e:
            await self.stop()
            why = engine_error(e) if isinstance(e, docker.errors.DockerException) else str(e)
            raise RunnerError(
                f"could not start a Docker sandbox: {why}",
                hint="run `make sandbox` to start the engine and build the image",
            ) from None

    async def stop(self) -> None:
        """Remove the container (and all it ran) and the private copies; never raises."""
        procs, self._procs = self._procs, []
        for p in procs:
            p.detach()
        ident, self._id, self._name = self._id, None, None
        if ident is not None:
            await _remove(ident)
        lifeline, self._lifeline = self._lifeline, None
        if lifeline is not None:
            lifeline.close()
        staging, self._staging = self._staging, None
        if staging is not None:
            await asyncio.to_thread(shutil.rmtree, staging, True)

    async def _exec_stream(
        self, cmd: list[str], *, stdin: bool, on_frame: Callable[[int, bytes], None]
    ) -> tuple[str, EngineStream]:
        ident = self._id
        if ident is None:
            raise RuntimeError("the sandbox is not started")

        def create() -> str:
            made = engine().api.exec_create(ident, cmd, stdin=stdin, stdout=True, stderr=True)
            return str(made["Id"])

        try:
            exec_id = await asyncio.to_thread(create)
        except docker.errors.DockerException as e:
            raise RunnerError(f"the Docker sandbox {self._name} is gone: {engine_error(e)}") from e
        stream = await open_stream(
            f"/exec/{exec_id}/start", {"Detach": False, "Tty": False}, on_frame
        )
        return exec_id, stream

    async def exec(
        self, cmd: list[str], *, input: bytes | None = None, timeout: float = 60
    ) -> ExecResult:
        """Run ``cmd`` in the container; at ``timeout``, and when ``cmd`` exits, its whole
        process group is killed inside the container (what it left running dies with it)."""
        return await self._exec(cmd, input, timeout, self.max_output)

    async def _exec(
        self, cmd: list[str], input: bytes | None, timeout: float, cap: int
    ) -> ExecResult:
        # Dropping the connection would not stop the command, so `timeout` runs inside.
        argv = ["sh", "-c", _EXEC_SCRIPT, "sh", f"{timeout:.3f}", *cmd]
        out, err = _Capped(cap), _Capped(cap)
        sinks = {1: out, 2: err}
        started = time.monotonic()
        exec_id, stream = await self._exec_stream(
            argv,
            stdin=input is not None,
            on_frame=lambda k, d: sinks[k].add(d) if k in sinks else None,
        )
        timed_out = False
        try:
            await asyncio.wait_for(_converse(stream, input), timeout + _EXEC_GRACE_S)
        except TimeoutError:
            timed_out = True
        finally:
            stream.close()
        code = _KILLED if timed_out else await _exit_code(exec_id)
        timed_out |= code == _KILLED and time.monotonic() - started >= timeout
        return ExecResult(
            returncode=code,
            stdout=bytes(out.kept),
            stderr=bytes(err.kept),
            timed_out=timed_out,
            truncated=out.truncated or err.truncated,
        )

    async def spawn(self, cmd: list[str]) -> DockerProcess:
        """Start ``cmd`` in the container with pipes; ``stop()`` kills it."""
        proc = DockerProcess(self)
        exec_id, stream = await self._exec_stream(
            ["sh", "-c", _SPAWN_SCRIPT, "sh", *cmd], stdin=True, on_frame=proc.frame
        )
        proc.attach(exec_id, stream)
        self._procs.append(proc)
        try:
            await asyncio.wait_for(proc.started, API_TIMEOUT_S)
        except TimeoutError:
            proc.detach()
            raise RunnerError(
                f"a process in the Docker sandbox {self._name} did not start"
            ) from None
        return proc

    async def read_file(self, path: str, *, limit: int = MAX_READ) -> bytes:
        """The contents of ``path`` in the container (relative to the workdir): a regular
        file of at most ``limit`` bytes, not a link (else OutputRefused), read no further."""
        where = self._abs(path)
        r = await self._exec(
            ["sh", "-c", _READ_SCRIPT, "sh", where, str(limit)], None, _FILE_TIMEOUT_S, limit + 1
        )
        if r.returncode == _REFUSED and _last_line(r.stderr).startswith("refused: "):
            raise OutputRefused(f"{where}: {_last_line(r.stderr)[len('refused: ') :]}")
        _raise_for(r, where)
        if len(r.stdout) > limit:
            raise OutputRefused(f"{where}: grew past {limit} bytes while it was read")
        return r.stdout

    async def write_file(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` in the container, creating parent directories."""
        script = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"'
        where = self._abs(path)
        _raise_for(
            await self._exec(
                ["sh", "-c", script, "sh", where], data, _FILE_TIMEOUT_S, self.max_output
            ),
            where,
        )


class DockerProcess:
    """A process spawned in a :class:`DockerSandbox`: pipes over one engine connection.

    Satisfies ``SandboxProcess``: stdout is an ``asyncio.StreamReader`` (reading slowly
    slows the process, as a pipe would), stderr keeps its first MiB, ``stdin.close()`` ends
    the input only, ``kill()`` SIGKILLs the process inside the container."""

    def __init__(self, sandbox: DockerSandbox) -> None:
        loop = asyncio.get_running_loop()
        self._sandbox = sandbox
        self._stdout = asyncio.StreamReader(limit=LINE_LIMIT, loop=loop)
        self._stderr = asyncio.StreamReader(limit=LINE_LIMIT, loop=loop)
        self._stderr_fed = 0
        self._head = bytearray()
        self._pid = 0
        self._returncode: int | None = None
        self._exec_id: str | None = None
        self._stream: EngineStream | None = None
        self._stdin: _Stdin | None = None
        self._killing: asyncio.Task[None] | None = None
        self.started: asyncio.Future[None] = loop.create_future()
        """Done once the process said its pid."""

    def attach(self, exec_id: str, stream: EngineStream) -> None:
        """Take the started exec ``exec_id`` and its connection (called by ``spawn``)."""
        self._exec_id, self._stream = exec_id, stream
        self._stdin = _Stdin(stream)
        assert stream.transport is not None
        self._stdout.set_transport(stream.transport)  # flow control: a full reader pauses
        stream.closed.add_done_callback(lambda _: self._ended())

    def frame(self, kind: int, data: bytes) -> None:
        """One output frame from the engine: stdout (1) or stderr (2), whose first line is
        the pid the spawn wrapper says."""
        if kind == 1:
            self._stdout.feed_data(data)
        elif kind == 2 and not self.started.done():
            self._head += data
            line, sep, rest = self._head.partition(b"\n")
            if sep:
                self._pid = int(line) if line.isdigit() else 0
                self.started.set_result(None)
                self._feed_stderr(bytes(rest))
        elif kind == 2:
            self._feed_stderr(data)

    def _feed_stderr(self, data: bytes) -> None:
        room = _STDERR_KEEP - self._stderr_fed
        if data and room > 0:
            self._stderr.feed_data(data[:room])
            self._stderr_fed += min(len(data), room)

    def _ended(self) -> None:
        self._stdout.feed_eof()
        self._stderr.feed_eof()
        if not self.started.done():
            self.started.set_result(None)

    @property
    def pid(self) -> int:
        """The process's pid inside the container (0 if it never said)."""
        return self._pid

    @property
    def returncode(self) -> int | None:
        """The exit status once :meth:`wait` saw it end (137 when killed)."""
        return self._returncode

    @property
    def stdin(self) -> _Stdin | None:
        """The process's input."""
        return self._stdin

    @property
    def stdout(self) -> asyncio.StreamReader:
        """The process's output."""
        return self._stdout

    @property
    def stderr(self) -> asyncio.StreamReader:
        """The first MiB of the process's error output."""
        return self._stderr

    async def wait(self) -> int:
        """Wait for the process to end; its exit status."""
        if self._returncode is not None:
            return self._returncode
        if self._stream is not None:
            await asyncio.shield(self._stream.closed)
        if self._killing is not None:
            await asyncio.gather(self._killing, return_exceptions=True)
        if self._returncode is None:
            self._returncode = await _exit_code(self._exec_id) if self._exec_id else _KILLED
        return self._returncode

    def kill(self) -> None:
        """SIGKILL the process (inside the container); ProcessLookupError once it has ended."""
        if self._returncode is not None or self._stream is None or self._stream.closed.done():
            raise ProcessLookupError(f"process {self._pid} in the sandbox has exited")
        if self._killing is None:
            self._killing = asyncio.ensure_future(self._kill())

    async def _kill(self) -> None:
        if self._pid:
            with contextlib.suppress(RunnerError, OSError):
                await self._sandbox._exec(["kill", "-KILL", str(self._pid)], None, 30, 4096)
        if self._stream is not None:
            self._stream.close()

    def detach(self) -> None:
        """Drop the connection (``stop()``: the container's removal ends the process)."""
        if self._stream is not None:
            self._stream.close()


class _Stdin:
    """A spawned process's stdin: ``close()`` half-closes the connection (output goes on)."""

    def __init__(self, stream: EngineStream) -> None:
        self._stream = stream
        self._ended = False

    def write(self, data: bytes) -> None:
        """Queue ``data`` for the process."""
        if self._ended:
            raise ConnectionResetError("the process's input is closed")
        self._stream.write(data)

    async def drain(self) -> None:
        """Wait until the engine has taken what was queued."""
        await self._stream.drain()

    def close(self) -> None:
        """End the input."""
        if not self._ended:
            self._ended = True
            self._stream.end_input()

    def is_closing(self) -> bool:
        """Whether the input was ended (or the connection is gone)."""
        return self._ended or self._stream.closed.done()

    async def wait_closed(self) -> None:
        """Nothing to wait for: the half-close is sent at once."""


class _Capped:
    """The first ``limit`` bytes of a stream, and whether it had more."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.truncated = False

    def add(self, data: bytes) -> None:
        room = self.limit - len(self.kept)
        self.truncated |= len(data) > room
        self.kept += data[: max(room, 0)]


async def _converse(stream: EngineStream, data: bytes | None) -> None:
    """Send ``data`` (a command that stops reading early is fine), end the input, and wait
    for the end of the output."""
    if data is not None:
        with contextlib.suppress(ConnectionError):
            stream.write(data)
            await stream.drain()
        stream.end_input()
    await stream.closed


async def _exit_code(exec_id: str) -> int:
    """The exit status of a finished exec (the engine may take a moment to record it)."""
    for _ in range(50):
        try:
            info = await asyncio.to_thread(engine().api.exec_inspect, exec_id)
        except docker.errors.DockerException:
            return _KILLED  # the container is gone, and the command with it
        if not info.get("Running") and info.get("ExitCode") is not None:
            return int(info["ExitCode"])
        await asyncio.sleep(0.1)
    return _KILLED


_FILE_ERRORS: tuple[tuple[str, type[OSError]], ...] = (
    ("No such file", FileNotFoundError),
    ("Is a directory", IsADirectoryError),
    ("Permission denied", PermissionError),
    ("Read-only file system", PermissionError),
)


def _raise_for(r: ExecResult, where: str) -> None:
    """Nothing for a file command that worked; else the OSError its message means."""
    if r.truncated:
        raise OSError(f"{where}: larger than the sandbox's limit")
    if r.ok:
        return
    msg = _last_line(r.stderr)
    for marker, error in _FILE_ERRORS:
        if marker in msg:
            raise error(f"{where}: {msg}")
    raise OSError(f"{where}: {msg or f'exit status {r.returncode}'}")


def _readable_by_all(path: Path) -> bool:
    """Whether every file under ``path`` is world-readable (directories also searchable)."""
    for p in [path, *path.rglob("*")] if path.is_dir() else [path]:
        need = stat.S_IROTH | (stat.S_IXOTH if p.is_dir() else 0)
        if not p.is_symlink() and p.stat().st_mode & need != need:
            return False
    return True


def _private_copy(source: Path, dest: Path, user: tuple[int, int]) -> None:
    """Copy ``source`` to ``dest`` readable by ``user`` only: as root, owned by it with
    directories 0700 and files 0600 (0700 if executable); otherwise owned by us and our
    group, 0750/0640 (the container joins that group). Modes are set explicitly, so the
    umask does not matter."""
    if source.is_dir():
        shutil.copytree(source, dest, symlinks=True)
    else:
        shutil.copy2(source, dest)
    root = os.geteuid() == 0
    paths = [dest, *dest.rglob("*")] if dest.is_dir() else [dest]
    for p in paths:
        if p.is_symlink():
            continue
        executable = p.is_dir() or p.stat().st_mode & stat.S_IXUSR
        if root:
            os.chown(p, *user)
            p.chmod(0o700 if executable else 0o600)
        else:
            os.chown(p, -1, os.getegid())
            p.chmod(0o750 if executable else 0o640)


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _last_line(data: bytes) -> str:
    lines = data.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else ""


async def _remove(ident: str) -> None:
    def remove() -> None:
        engine().api.remove_container(ident, force=True)

    try:
        await asyncio.to_thread(remove)
    except docker.errors.NotFound:
        pass
    except docker.errors.DockerException as e:
        if "already in progress" not in engine_error(e):
            # Not raised: stop() runs during unwinding; the label lets a later cleanup find it.
            log.warning("could not remove sandbox container %s: %s", ident[:12], engine_error(e))
