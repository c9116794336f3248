"""The runner's handle on a family's MCP server in a sandbox: start it, open trials on it
through its control channel, connect MCP client sessions to a trial's tools, notice its death.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import weakref
from collections.abc import AsyncIterator, Awaitable, Mapping, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import mcp
from mcp import ClientSession, types

from benchmark._mcp_mux import CONTROL, Mux
from benchmark._sandbox_types import ExternalServer, ServerProcess, ServerSandbox
from benchmark._task import Family
from benchmark.errors import BenchmarkError
from drift import InterfaceVersion, list_all_tools, unwrapped

T = TypeVar("T")
log = logging.getLogger(__name__)

SERVER_FILE = Path(__file__).with_name("_mcp_server.py")
MUX_FILE = Path(__file__).with_name("_mcp_mux.py")
RELAY_FILE = Path(__file__).with_name("_mcp_relay.py")
"""The per-trial server relay of folder families (an external server command per trial)."""
SERVERS_ENV = "VWT_MCP_SERVERS"
"""Environment variable: the directory of installed MCP servers (scripts/mcp-servers-setup.sh
installs into the repository's ``.mcp-servers`` by default)."""
SANDBOX_EXEC_FILE = Path(__file__).with_name("_sandbox_exec.py")
"""The standard-library command runner backends import, mounted beside the server (whose
directory the server makes importable)."""
IMAGE_SITE = "/opt/vwt-site"
"""Where the Docker image holds the ``mcp`` SDK and its dependencies (scripts/sandbox-setup.sh)."""

TIMEOUT_ENV = "VWT_BACKEND_TIMEOUT_S"
"""Environment variable: seconds a backend may stay silent with a request pending."""
DEFAULT_TIMEOUT_S = 120.0
_SLICE_S = 1.0
"""Seconds between checks of a pending request."""
_EXIT_GRACE_S = 2.0
"""How long a broken connection waits for the server's exit to be seen, to name it the cause."""
_STDERR_LINES = 20


class BackendUnavailable(Exception):
    """The backend's MCP server died or stopped answering: an infrastructure failure."""


class BackendCallError(Exception):
    """A tool call came back as an MCP tool error (``isError``); the message is its text."""


def mcp_servers_dir() -> Path:
    """The directory of installed MCP servers: ``$VWT_MCP_SERVERS``, else the repository's
    ``.mcp-servers`` (where ``scripts/mcp-servers-setup.sh`` installs them)."""
    named = os.environ.get(SERVERS_ENV, "").strip()
    if named:
        return Path(named).resolve()
    return Path(__file__).resolve().parent.parent / ".mcp-servers"


def backend_timeout(environ: Mapping[str, str] | None = None) -> float:
    """The backend silence limit: ``VWT_BACKEND_TIMEOUT_S`` (seconds, default 120)."""
    raw = (os.environ if environ is None else environ).get(TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not 0 < value <= 3600:
        raise BenchmarkError(
            f"{TIMEOUT_ENV}={raw!r} is not a number of seconds in (0, 3600]",
            f"set {TIMEOUT_ENV} to e.g. 300, or unset it for the default ({DEFAULT_TIMEOUT_S:g} s)",
        )
    return value


def host_site() -> Path:
    """The host directory holding the ``mcp`` SDK (and, beside it, its dependencies)."""
    return Path(mcp.__file__).resolve().parent.parent


def server_site(kind: str) -> str:
    """The directory a family's MCP server finds the ``mcp`` SDK in, in a sandbox of
    ``kind`` ("local" or "docker"): locally the host's (:func:`host_site`), in Docker the
    image's (:data:`IMAGE_SITE`)."""
    return str(host_site()) if kind == "local" else IMAGE_SITE


def _may(path: Path, user: tuple[int, int], bits: int) -> bool:
    """Whether ``user`` (uid, gid; not root) has the permission ``bits`` (r=4, w=2, x=1) on
    ``path`` by its mode."""
    st = path.stat()
    uid, gid = user
    shift = 6 if st.st_uid == uid else 3 if st.st_gid == gid else 0
    return (st.st_mode >> shift) & bits == bits


def check_site_for(python: Sequence[str], user: tuple[int, int]) -> None:
    """Refuse (BenchmarkError) to serve from the host's SDK through ``python`` as ``user`` —
    a local sandbox under root runs its processes as nobody with the system python3 — unless
    that user can read the SDK where it is and ``python`` is this interpreter's version (the
    SDK's compiled dependencies are built for it)."""
    site = host_site()
    blocked = next((p for p in [*reversed(site.parents), site] if not _may(p, user, 1)), None)
    package = site / "mcp" / "__init__.py"
    if blocked is not None or not _may(site, user, 5) or not _may(package, user, 4):
        where = blocked or site
        raise BenchmarkError(
            f"the MCP SDK at {site} is not readable by uid {user[0]} ({where}), as whom the "
            "local sandbox runs family servers under root",
            f"make it readable (chmod o+rX on {where} and the SDK), install vwt where every "
            "user can read it, or use the Docker sandbox (make sandbox)",
        )
    tag = _cache_tag(tuple(python))
    if tag != sys.implementation.cache_tag:
        raise BenchmarkError(
            f"the local sandbox's interpreter {python[0]} is {tag or 'not usable'}, the MCP "
            f"SDK at {site} was installed for {sys.implementation.cache_tag}",
            "run vwt from a virtual environment of the system's python3 (make .venv does), "
            "or use the Docker sandbox (make sandbox)",
        )


@functools.cache
def _cache_tag(python: tuple[str, ...]) -> str:
    """``sys.implementation.cache_tag`` of interpreter ``python`` ('' if it does not run)."""
    code = "import sys; print(sys.implementation.cache_tag)"
    try:
        done = subprocess.run(
            [*python, "-c", code], capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def _last_error(lines: Sequence[str]) -> str:
    """The line of a server's stderr that says why it died: the last naming an error, else
    the last with words (a traceback's frames of exception groups are drawn with | and +)."""
    texts = [line.strip(" |+-") for line in lines]
    texts = [t for t in texts if any(c.isalnum() for c in t)]
    named = [t for t in texts if "Error" in t or "Exception" in t]
    return (named or texts or [""])[-1]


class McpBackend:
    """The MCP server of one or several families (:meth:`of_families`) for a sandbox group's
    trials, in one sandbox.

    Make it, give the sandbox :meth:`mounts`, then ``async with backend.serve(sandbox):``.
    Each trial :meth:`open_trial` s a backend state (through the control channel on the
    server's stdio, which only this object holds), :meth:`connect` s an MCP client session to
    that state's tools (another channel of the same pipes, see :mod:`benchmark._mcp_mux`),
    :meth:`dump` s its end state and :meth:`close_trial` s it.

    Every request goes through :meth:`guard`: it fails as :class:`BackendUnavailable` when the
    server process exits (naming its status and last stderr line), or when the server stays
    silent (answers no request at all, of any trial) for ``timeout`` seconds of this event
    loop's running time while the request is pending. Time the loop spends blocked elsewhere
    (a check due after 1 s that comes after 2 s or more) does not count, nor does time the
    server spends answering requests queued before it: load slows trials down but does not
    make them invalid.
    """

    CLOSE_GRACE_S = 5.0
    """Seconds :meth:`close` waits for each step of the server's end (its control session,
    its exit after stdin closes, its exit after a kill)."""

    def __init__(
        self,
        backend_file: Path | None,
        tools: Sequence[Mapping[str, Any]],
        name: str = "backend",
        timeout: float | None = None,
        *,
        external: ExternalServer | None = None,
        others: Mapping[str, tuple[Path, Sequence[Mapping[str, Any]]]] | None = None,
    ) -> None:
        """Prepare (not start) the server of the backend module ``backend_file`` (a
        ``Backend`` class and a ``BackendError``, standard library only) serving ``tools``
        (MCP tool definitions) — or, with ``external`` (and no backend file), the relay that
        starts that server command per trial; ``name`` names it in messages and is the
        family the backend is of; ``others`` (family → backend file and tools) are more
        families the same server serves; ``timeout``: the silence limit (default
        :func:`backend_timeout`)."""
        self.name = name
        self.timeout = backend_timeout() if timeout is None else timeout
        self.external = external
        self._dir = Path(tempfile.mkdtemp(prefix="vwt-mcp-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._dir, True)
        self._files = {
            "vwt/mcp_server.py": SERVER_FILE,
            "vwt/_sandbox_exec.py": SANDBOX_EXEC_FILE,
            "vwt/_mcp_mux.py": MUX_FILE,
        }
        self._dirs: dict[str, Path] = {}
        self.families: tuple[str, ...] = ()
        """The families whose backends the server serves (none for a relay)."""
        if external is not None:
            self._files["vwt/_mcp_relay.py"] = RELAY_FILE
            self._files["vwt/external.json"] = self._external_config(external)
            self._dirs[FAMILY_TARGET] = external.family_dir
            if external.servers_dir is not None:
                self._dirs[SERVERS_TARGET] = external.servers_dir
        elif backend_file is not None:
            served = {name: (backend_file, tools), **(others or {})}
            for i, (module, listed) in enumerate(served.values()):
                tools_file = self._dir / f"tools-{i}.json"
                tools_file.write_text(json.dumps(list(listed)), encoding="utf-8")
                self._files[f"vwt/tools-{i}.json"] = tools_file
                self._files[f"vwt/backend-{i}.py"] = module
            self.families = tuple(served)
        else:
            raise ValueError("McpBackend needs a backend file or an external server")
        self._proc: ServerProcess | None = None
        self._exited: asyncio.Future[int] | None = None
        self._stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self._control: ClientSession | None = None
        self._mux: Mux | None = None
        self._drain: asyncio.Future[None] | None = None
        self._keeper: asyncio.Future[None] | None = None
        self._closing = asyncio.Event()
        self._heard = 0

    def _external_config(self, external: ExternalServer) -> Path:
        config = self._dir / "external.json"
        data = {
            "command": list(external.command),
            "places": {"family": FAMILY_TARGET, "servers": SERVERS_TARGET},
            "verifier": list(external.verifier) if external.verifier else None,
            "verifier_timeout_s": external.verifier_timeout_s,
            "concurrency": external.concurrency,
        }
        config.write_text(json.dumps(data), encoding="utf-8")
        return config

    @classmethod
    def of(
        cls, family: Family, version: InterfaceVersion | None = None, timeout: float | None = None
    ) -> McpBackend:
        """The server of ``family``'s canonical backend and tools; for a family whose
        environment is a server command (a folder family), the relay of the release that
        ``version`` (default: the base) runs on."""
        ext = family.external_server(version)
        if ext is not None:
            return cls(None, ext.tools, family.id, timeout, external=ext)
        return cls.of_families([family], timeout)

    @classmethod
    def of_families(cls, families: Sequence[Family], timeout: float | None = None) -> McpBackend:
        """One server of the canonical backends and tools of ``families`` (none of them a
        folder family's relay): trials name their family as they open."""
        first, *rest = families
        if any(f.external_server(None) is not None for f in families):
            raise ValueError("a relay serves one family's release: use McpBackend.of")
        others = {f.id: (f.backend_file(), f.base_tools().to_mcp()) for f in rest}
        return cls(
            first.backend_file(), first.base_tools().to_mcp(), first.id, timeout, others=others
        )

    def mounts(self) -> list[tuple[Path, str, bool]]:
        """(host path, sandbox path, read-only) of the files and directories the server
        needs, all read-only."""
        files = [(host, target, True) for target, host in self._files.items()]
        return files + [(host, target, True) for target, host in self._dirs.items()]

    def argv(self, python: Sequence[str], site: str) -> list[str]:
        """The command that starts the server, run by ``python`` with the SDK in ``site``."""
        if self.external is not None:
            serves = ["--external", "vwt/external.json"]
        else:
            serves = [
                arg
                for i, fid in enumerate(self.families)
                for arg in ("--family", fid, f"vwt/backend-{i}.py", f"vwt/tools-{i}.json")
            ]
        return [*python, "vwt/mcp_server.py", *serves, "--site", site]

    @property
    def sent(self) -> int:
        """Messages written to the server so far (all sessions)."""
        return self._mux.sent if self._mux is not None else 0

    def _hear(self) -> None:
        self._heard += 1

    @contextlib.asynccontextmanager
    async def serve(self, sandbox: ServerSandbox) -> AsyncIterator[None]:
        """:meth:`start` the server for the body, then :meth:`close` it."""
        try:
            await self.start(sandbox)
            yield
        finally:
            await self.close()

    async def start(self, sandbox: ServerSandbox) -> None:
        """Start the server in ``sandbox`` (its ``python``, the SDK where
        :func:`server_site` says) and its control channel. Call :meth:`close` afterwards.

        A local sandbox running as another user (nobody, under root) serves from the host's
        SDK only once :func:`check_site_for` finds it usable."""
        if self._proc is not None:
            raise RuntimeError("the MCP server was started already")
        if sandbox.kind == "local" and sandbox.user is not None:
            await asyncio.to_thread(check_site_for, sandbox.python, sandbox.user)
        argv = self.argv(sandbox.python, server_site(sandbox.kind))
        self._proc = proc = await sandbox.spawn(argv)
        self._exited = asyncio.ensure_future(proc.wait())
        self._drain = asyncio.ensure_future(self._drain_stderr(proc))
        ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
        self._keeper = asyncio.ensure_future(self._keep(proc, ready))
        self._control = await self.guard(ready, "the control channel's start")
        if self.external is not None:
            await self._check_tools(self.external)

    async def _check_tools(self, external: ExternalServer) -> None:
        """Refuse (BenchmarkError) a server command whose tools are not the ones its release
        declares: a first trial's server is asked for its ``tools/list``."""
        async with self.trial({"files": {}, "dirs": []}) as probe:
            listed = await self.guard(list_all_tools(probe.session), "tools/list")
        served = {t.name: t.inputSchema for t in listed}
        declared = {str(t["name"]): t.get("inputSchema") for t in external.tools}
        if served == declared:
            return
        differ = sorted(
            n for n in served.keys() | declared.keys() if served.get(n) != declared.get(n)
        )
        raise BenchmarkError(
            f"the server of {external.release} ({self.name}) lists other tools than its tools "
            f"file declares: {', '.join(differ[:5])} differ",
            "write the tools file from the server's own tools/list (docs/folder-families.md), or "
            "install the release the family names",
        )

    async def _keep(self, proc: ServerProcess, ready: asyncio.Future[ClientSession]) -> None:
        """Hold the pipes' multiplexer and the control session until :meth:`close`, in a task
        of their own: when the server dies under them, what fails there ends the trials'
        requests (as BackendUnavailable), never the task that runs the batch."""
        try:
            async with (
                Mux(proc.stdout, proc.stdin, self._hear) as mux,
                mux.channel(CONTROL) as streams,
                ClientSession(*streams) as control,
            ):
                self._mux = mux
                await control.initialize()
                if not ready.done():
                    ready.set_result(control)
                await self._closing.wait()
        except BaseException as e:
            if not ready.done():
                ready.set_exception(BackendUnavailable(f"the control channel failed: {e!r}"))
        finally:
            self._mux = None

    async def close(self) -> None:
        """Stop the server (stdin closed; killed if still running after 5 s) and remove its
        files. Safe to call twice; nothing raised while stopping escapes."""
        self._control = None
        self._closing.set()
        if self._keeper is not None:
            # a control session still starting (a silent server) never sees the event
            done, _ = await asyncio.wait([self._keeper], timeout=self.CLOSE_GRACE_S)
            if not done:
                self._keeper.cancel()
            await asyncio.gather(self._keeper, return_exceptions=True)
        if self._proc is not None:
            await self._stop(self._proc)
        self._cleanup()

    async def _drain_stderr(self, proc: ServerProcess) -> None:
        assert proc.stderr is not None
        while line := await proc.stderr.readline():
            self._stderr.append(line.decode(errors="replace").rstrip())

    async def _stop(self, proc: ServerProcess) -> None:
        """Close stdin, wait for the exit, kill the server if it does not; never raises.

        The server may exit between the wait's timeout and the kill (reaped, but its wait
        not yet returned), so a kill of a process that is gone (ProcessLookupError) is an
        expected end, and then a fresh wait sees its status."""
        assert self._exited is not None
        grace = self.CLOSE_GRACE_S
        try:
            if proc.stdin is not None and not proc.stdin.is_closing():
                proc.stdin.close()
            done, _ = await asyncio.wait([self._exited], timeout=grace)
            if not done and proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                again = asyncio.ensure_future(proc.wait())
                either = [self._exited, again]
                await asyncio.wait(either, timeout=grace, return_when=asyncio.FIRST_COMPLETED)
                again.cancel()
                await asyncio.gather(again, return_exceptions=True)
        except Exception as e:  # stopping never fails a batch: the sandbox kills what is left
            log.warning("stopping the MCP server of %s: %r", self.name, e)
        finally:
            pending = [f for f in (self._drain, self._exited) if f is not None and not f.done()]
            for f in pending:
                f.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    def exit_cause(self) -> str | None:
        """Why the server is gone (its exit status and last stderr line), or None if running."""
        if self._exited is None or not self._exited.done() or self._proc is None:
            return None
        last = _last_error(self._stderr)
        status = self._proc.returncode
        ended = "was stopped" if status is None else f"exited with status {status}"
        why = f"MCP server (pid {self._proc.pid}) {ended}"
        return why + (f": {last}" if last else "")

    async def lost(self) -> str | None:
        """Why the server is gone, waiting a moment for its exit to be seen (a broken
        connection is seen first); None while it runs."""
        if self._exited is not None and not self._exited.done():
            await asyncio.wait([self._exited], timeout=_EXIT_GRACE_S)
        return self.exit_cause()

    async def guard(self, aw: Awaitable[T], what: str) -> T:
        """``aw``'s result; BackendUnavailable when the server exits or stays silent for
        ``timeout`` seconds while it is pending (see the class)."""
        task = asyncio.ensure_future(aw)
        try:
            return await self._watch(task, what)
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def _watch(self, task: asyncio.Future[T], what: str) -> T:
        loop = asyncio.get_running_loop()
        silent, heard = 0.0, self._heard
        waiting: list[asyncio.Future[Any]] = [task]
        if self._exited is not None:
            waiting.append(self._exited)
        while True:
            if task.done():
                try:
                    return task.result()
                except Exception as e:
                    cause = await self.lost()
                    if cause is not None:
                        raise BackendUnavailable(f"{cause} (at {what})") from e
                    raise
            if (cause := self.exit_cause()) is not None:
                raise BackendUnavailable(f"{cause} (at {what})")
            step = min(_SLICE_S, self.timeout - silent)
            started = loop.time()
            await asyncio.wait(waiting, timeout=step, return_when=asyncio.FIRST_COMPLETED)
            elapsed = loop.time() - started
            if self._heard != heard:  # the server is working through earlier requests
                silent, heard = 0.0, self._heard
            elif elapsed < 2 * step:
                # A slice the loop overran (blocked elsewhere) does not count: answers that
                # arrived meanwhile are still unread, several task switches away.
                silent += elapsed
            if silent >= self.timeout and not task.done():
                pid = self._proc.pid if self._proc is not None else "?"
                raise BackendUnavailable(
                    f"MCP server (pid {pid}) silent for {self.timeout:g} s with {what} pending "
                    f"(limit: {TIMEOUT_ENV})"
                )

    async def _control_call(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        if self._control is None:
            raise BackendUnavailable("the MCP server is not running")
        limit = timedelta(seconds=_HTTP_LIMIT_S)
        call = self._control.call_tool(tool, args, read_timeout_seconds=limit)
        result = await self.guard(call, f"control request {tool!r}")
        if result.isError or result.structuredContent is None:
            text = " ".join(getattr(c, "text", "") for c in result.content)
            raise BackendUnavailable(f"control request {tool!r} failed: {text}")
        return result.structuredContent

    async def open_trial(self, state: dict[str, Any], family: str | None = None) -> str:
        """Start a trial of ``family`` (needed where the server serves several) from
        ``state``; its token (for :meth:`connect`)."""
        args: dict[str, Any] = {"state": state}
        if len(self.families) > 1:
            if family not in self.families:
                raise ValueError(f"this server serves {list(self.families)}, not {family!r}")
            args["family"] = family
        return str((await self._control_call("open", args))["trial"])

    async def dump(self, trial: str) -> dict[str, Any]:
        """The trial's current backend state."""
        state = (await self._control_call("dump", {"trial": trial}))["state"]
        return dict(state)

    async def close_trial(self, trial: str) -> None:
        """Drop the trial's backend state."""
        await self._control_call("close", {"trial": trial})

    @contextlib.asynccontextmanager
    async def connect(self, trial: str) -> AsyncIterator[ClientSession]:
        """An initialized MCP client session to ``trial``'s canonical tools."""
        if self._mux is None:
            raise BackendUnavailable("the MCP server is not running")
        async with (
            unwrapped(),
            self._mux.channel(trial) as (read, write),
            ClientSession(read, write) as session,
        ):
            await self.guard(session.initialize(), "a trial session's start")
            yield session

    @contextlib.asynccontextmanager
    async def trial(
        self, state: dict[str, Any], family: str | None = None
    ) -> AsyncIterator[BackendTrial]:
        """A trial (of ``family``, as for :meth:`open_trial`) from ``state`` with a session to
        its canonical tools, closed afterwards."""
        token = await self.open_trial(state, family)
        try:
            async with self.connect(token) as session:
                yield BackendTrial(self, token, session)
        finally:
            await self.close_trial(token)


class BackendTrial:
    """One open trial's canonical tools, called over MCP with JSON in and out."""

    def __init__(self, backend: McpBackend, token: str, session: ClientSession) -> None:
        self.backend, self.token, self.session = backend, token, session

    async def call(self, tool: str, args: dict[str, Any] | None = None) -> Any:
        """The JSON result of canonical tool ``tool`` (its text, where a server answers in
        text); BackendCallError on a tool error."""
        call = self.session.call_tool(tool, args or {})
        result = await self.backend.guard(call, f"tools/call {tool!r}")
        text = "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
        if result.isError:
            raise BackendCallError(text)
        try:
            return json.loads(text)
        except ValueError:
            return text

    async def dump(self) -> dict[str, Any]:
        """The trial's current backend state."""
        return await self.backend.dump(self.token)


FAMILY_TARGET = "vwt/family"
"""Where a folder family's folder is mounted in the sandbox ({family})."""
SERVERS_TARGET = "vwt/servers"
"""Where the installed MCP servers are mounted in the sandbox ({servers})."""


_HTTP_LIMIT_S = 3600.0
"""The SDK's own per-request limit: the silence watchdog decides first."""
