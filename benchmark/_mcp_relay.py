"""A folder family's environment inside the sandbox: per trial, a state directory of files and
the family's own stdio MCP server command started over it, its messages relayed to and from
the trial's channel; on ``dump``, the directory's files (and the verifier command's verdict).

Used by ``_mcp_server.py --external CONFIG`` (mounted beside it, like ``_mcp_mux.py``): the
control session's ``open``/``dump``/``close`` call :class:`Relay`, and each trial's channel is
relayed to its server's stdio as is (the server's own ``initialize`` answer, tools and
results reach the client unchanged). Standard library, anyio and the SDK's message types only.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import json
import os
import shutil
from typing import Any

import anyio
from mcp import types
from mcp.shared.message import SessionMessage

try:
    from _sandbox_exec import run_limited  # in a sandbox: next to the server
except ImportError:  # pragma: no cover - on the host (tests)
    from benchmark._sandbox_exec import run_limited

LINE_LIMIT = 16 * 1024 * 1024
"""Longest message line read from a trial's server."""
MAX_DUMP_FILES = 2000
"""Files and folders an end state lists at most."""
MAX_DUMP_FILE = 1024 * 1024
"""Largest file an end state carries (larger ones make the state a problem)."""
MAX_DUMP_BYTES = 8 * 1024 * 1024
"""Largest total size of an end state's files."""
VERDICT_OUTPUT = 65536
"""Bytes of the verifier's output read."""
_STDERR_LINES = 20


class Trial:
    """One trial's server process and state directory."""

    def __init__(self, state_dir: str, check: dict[str, Any] | None) -> None:
        self.state_dir = state_dir
        self.check = check
        self.proc: asyncio.subprocess.Process | None = None
        self.stderr: collections.deque[str] = collections.deque(maxlen=_STDERR_LINES)
        self.pending: set[Any] = set()

    def why_gone(self) -> str:
        status = self.proc.returncode if self.proc is not None else None
        last = next((line for line in reversed(self.stderr) if line.strip()), "")
        return f"the trial's MCP server exited with status {status}" + (f": {last}" if last else "")


def _place(command: list[str], places: dict[str, str]) -> list[str]:
    out = []
    for arg in command:
        for name, value in places.items():
            arg = arg.replace("{" + name + "}", value)
        out.append(arg)
    return out


def _inside(root: str, rel: str) -> str:
    """``root/rel`` for a relative path that stays inside ``root`` (checked by vwt on the host
    too), else ValueError."""
    path = os.path.normpath(os.path.join(root, rel))
    if os.path.isabs(rel) or not path.startswith(root + os.sep):
        raise ValueError(f"state path {rel!r} leaves the state directory")
    return path


class Relay:
    """The trials of one batch: their servers, state directories and verifier runs."""

    def __init__(self, config: dict[str, Any], root: str) -> None:
        """Trials of the server command in ``config`` (``command``, ``places``, ``verifier``,
        ``verifier_timeout_s``, ``concurrency``), under the directory ``root``."""
        self.command: list[str] = list(config["command"])
        self.places = {k: os.path.abspath(v) for k, v in config["places"].items()}
        self.verifier: list[str] | None = config.get("verifier")
        self.verifier_timeout_s = float(config.get("verifier_timeout_s") or 20)
        self.slots = anyio.Semaphore(int(config.get("concurrency") or 4))
        self.root = os.path.abspath(os.path.join(root, "vwt-trials"))
        os.makedirs(self.root, exist_ok=True)
        self.open: dict[str, Trial] = {}

    async def start(self, token: str, state: dict[str, Any]) -> None:
        """Write ``state``'s files and folders into a new directory and start the server over
        it (waiting for a free slot: at most ``concurrency`` servers run at once)."""
        await self.slots.acquire()
        trial = Trial(os.path.join(self.root, token), state.get("check"))
        self.open[token] = trial
        try:
            await self._start(trial, state)
        except BaseException:
            await self.close(token)
            raise

    async def _start(self, trial: Trial, state: dict[str, Any]) -> None:
        os.makedirs(trial.state_dir)
        for rel in state.get("dirs", ()):
            os.makedirs(_inside(trial.state_dir, rel), exist_ok=True)
        for rel, text in state.get("files", {}).items():
            path = _inside(trial.state_dir, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        argv = _place(self.command, {**self.places, "state": trial.state_dir})
        if shutil.which(argv[0]) is None and not os.path.isfile(argv[0]):
            raise RuntimeError(
                f"the family's server program {argv[0]!r} is not in this sandbox (an image of "
                "an older recipe has no nodejs: run `make sandbox`)"
            )
        trial.proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=trial.state_dir,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=LINE_LIMIT,
        )

    async def serve(
        self,
        token: str,
        read: anyio.abc.ObjectReceiveStream[SessionMessage | Exception],
        write: anyio.abc.ObjectSendStream[SessionMessage],
    ) -> None:
        """Relay the trial's channel to its server until either side ends. Requests left
        unanswered when the server exits are answered with a JSON-RPC error naming its exit
        status and last stderr line."""
        trial = self.open[token]
        proc = trial.proc
        assert proc is not None and proc.stdin and proc.stdout and proc.stderr
        stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr

        async def inbound() -> None:
            async for item in read:
                if not isinstance(item, SessionMessage):
                    continue
                message = item.message.root
                if isinstance(message, types.JSONRPCRequest):
                    trial.pending.add(message.id)
                line = item.message.model_dump_json(by_alias=True, exclude_none=True)
                with contextlib.suppress(ConnectionError, RuntimeError):
                    stdin.write(line.encode() + b"\n")
                    await stdin.drain()
            with contextlib.suppress(ConnectionError, RuntimeError, OSError):
                stdin.close()

        async def outbound() -> None:
            while line := await stdout.readline():
                try:
                    message = types.JSONRPCMessage.model_validate_json(line)
                except ValueError:
                    continue  # not a message: a server printing to stdout
                root = message.root
                if isinstance(root, types.JSONRPCResponse | types.JSONRPCError):
                    trial.pending.discard(root.id)
                await write.send(SessionMessage(message))
            await proc.wait()
            for ident in sorted(trial.pending, key=str):
                error = types.ErrorData(code=types.INTERNAL_ERROR, message=trial.why_gone())
                reply = types.JSONRPCError(jsonrpc="2.0", id=ident, error=error)
                await write.send(SessionMessage(types.JSONRPCMessage(reply)))
            trial.pending.clear()

        async def errors() -> None:
            while line := await stderr.readline():
                trial.stderr.append(line.decode(errors="replace").rstrip())

        async with anyio.create_task_group() as tg:
            tg.start_soon(errors)

            async def out_then_stop() -> None:
                with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                    await outbound()
                tg.cancel_scope.cancel()

            tg.start_soon(out_then_stop)
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await inbound()
            tg.cancel_scope.cancel()

    async def dump(self, token: str) -> dict[str, Any]:
        """The trial's state directory now (``files`` as text, ``binary`` as digests,
        ``dirs``; a ``problem`` instead where it breaks the limits) and, for a task the
        verifier command checks, its ``verdict`` (or why there is none: ``verifier_error``)."""
        trial = self.open[token]
        state = _read_state(trial.state_dir)
        if trial.check is not None and self.verifier and "problem" not in state:
            state.update(await self._verify(token, trial))
        return state

    async def _verify(self, token: str, trial: Trial) -> dict[str, Any]:
        check = trial.check or {}
        task_file = os.path.join(self.root, f"{token}.task.json")
        with open(task_file, "w", encoding="utf-8") as f:
            json.dump(check, f)
        assert self.verifier is not None
        argv = _place(self.verifier, self.places)
        env = {
            "VWT_TASK": task_file,
            "VWT_STATE": trial.state_dir,
            "VWT_FAMILY": self.places["family"],
            **_check_env(check.get("check", {})),
        }
        done = await anyio.to_thread.run_sync(
            lambda: run_limited(argv, trial.state_dir, self.verifier_timeout_s, VERDICT_OUTPUT, env)
        )
        return _verdict(done)

    async def close_all(self) -> None:
        """Stop every trial still open (the batch ends)."""
        for token in list(self.open):
            await self.close(token)

    async def close(self, token: str) -> None:
        """Stop the trial's server and remove its directory. (The server stays in the relay's
        process group, so whatever ends the sandbox's processes ends it too.)"""
        trial = self.open.pop(token, None)
        if trial is None:
            return
        try:
            if trial.proc is not None:
                with contextlib.suppress(ProcessLookupError):
                    trial.proc.kill()
                await trial.proc.wait()
        finally:
            shutil.rmtree(trial.state_dir, ignore_errors=True)
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(self.root, f"{token}.task.json"))
            self.slots.release()


def _check_env(check: dict[str, Any]) -> dict[str, str]:
    """``VWT_CHECK_<KEY>`` for each text, number or boolean of a task's check."""
    out = {}
    for key, value in check.items():
        if isinstance(value, bool):
            out[f"VWT_CHECK_{key.upper()}"] = "true" if value else "false"
        elif isinstance(value, str | int | float):
            out[f"VWT_CHECK_{key.upper()}"] = str(value)
    return out


def _verdict(done: dict[str, Any]) -> dict[str, Any]:
    """The verdict a verifier run printed (its last non-empty stdout line, a JSON object with
    a boolean ``passed`` and optional ``reasons``), else why there is none."""
    lines = [line for line in str(done["stdout"]).splitlines() if line.strip()]
    try:
        verdict = json.loads(lines[-1]) if lines else None
    except ValueError:
        verdict = None
    reasons = verdict.get("reasons", []) if isinstance(verdict, dict) else None
    if (
        isinstance(verdict, dict)
        and isinstance(verdict.get("passed"), bool)
        and isinstance(reasons, list)
        and all(isinstance(r, str) for r in reasons)
    ):
        return {
            "verdict": {"passed": verdict["passed"], "reasons": [r[:500] for r in reasons[:50]]}
        }
    err = [line for line in str(done["stderr"]).splitlines() if line.strip()]
    how = "timed out" if done["timed_out"] else f"exit {done['exit']}"
    said = (err or lines or [""])[-1][:300]
    return {"verifier_error": f"printed no JSON verdict ({how})" + (f": {said}" if said else "")}


def _read_state(root: str) -> dict[str, Any]:
    """The files and folders under ``root``, bounded; links and other non-files are not
    followed, and are listed in ``binary`` as "not a regular file"."""
    files: dict[str, str] = {}
    binary: dict[str, str] = {}
    dirs: list[str] = []
    total = 0
    for here, subdirs, names in os.walk(root):
        rel_here = os.path.relpath(here, root)
        prefix = "" if rel_here == "." else rel_here + "/"
        links = [d for d in subdirs if os.path.islink(os.path.join(here, d))]
        subdirs[:] = [d for d in subdirs if d not in links]
        dirs += [prefix + d for d in subdirs]
        names = [*names, *links]
        for name in names:
            rel = prefix + name
            path = os.path.join(here, name)
            if len(files) + len(binary) + len(dirs) > MAX_DUMP_FILES:
                return {"problem": f"more than {MAX_DUMP_FILES} files and folders"}
            if os.path.islink(path) or not os.path.isfile(path):
                binary[rel] = "not a regular file"
                continue
            size = os.path.getsize(path)
            total += size
            if size > MAX_DUMP_FILE or total > MAX_DUMP_BYTES:
                return {"problem": f"{rel}: the files are larger than the state limits"}
            with open(path, "rb") as f:
                data = f.read(MAX_DUMP_FILE + 1)
            try:
                files[rel] = data.decode("utf-8")
            except UnicodeDecodeError:
                binary[rel] = "sha256:" + hashlib.sha256(data).hexdigest()
    return {"files": files, "binary": binary, "dirs": sorted(dirs)}
