"""A framework's process server for one batch: the driver started once with ``--serve``
imports the framework, then forks a process per trial (``drivers/_driver.py``).

Each trial still runs in a process of its own — its own process group, killed whole at its time
limit; a crash ends only it — but no longer pays the interpreter's start and the framework's
import (seconds of CPU each; ``bench/harness_overhead.py``). The server reports each trial's
pid and exit status as JSON lines on its stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Mapping
from pathlib import Path

KEPT = 4096
"""Bytes of the server's stderr kept (the last ones), for its own failure."""
_CLOSE_S = 10.0
"""How long the server may take to exit once its stdin is closed."""


class ServerGone(Exception):
    """The process server exited (or never started): its trials cannot run."""


class _Trial:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.started: asyncio.Future[int] = loop.create_future()
        self.ended: asyncio.Future[int] = loop.create_future()


def _kill(trial: _Trial) -> None:
    """Kill the trial's process group, if it started."""
    started = trial.started
    if started.done() and not started.cancelled() and started.exception() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(started.result(), signal.SIGKILL)


class ProcessServer:
    """The process server of one framework for one batch (``start`` … ``close``, one event
    loop)."""

    def __init__(self, python: Path, driver: Path, environ: Mapping[str, str], cwd: str) -> None:
        """A server running ``driver`` on ``python`` in ``cwd`` with exactly ``environ``."""
        self.python, self.driver, self.environ, self.cwd = python, driver, dict(environ), cwd
        self._proc: asyncio.subprocess.Process | None = None
        self._trials: dict[str, _Trial] = {}
        self._err = b""
        self._tasks: list[asyncio.Task[None]] = []
        self.gone: str | None = None
        """Why the server is gone, once it is."""

    async def start(self) -> None:
        """Start the server process (it imports the framework while the first trials wait)."""
        self._proc = await asyncio.create_subprocess_exec(
            str(self.python),
            "-s",
            str(self.driver),
            "--serve",
            cwd=self.cwd,
            env=self.environ,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        self._tasks = [
            asyncio.create_task(self._read_events()),
            asyncio.create_task(self._read_errors()),
        ]

    @property
    def alive(self) -> bool:
        """Whether the server still takes trials."""
        return self._proc is not None and self.gone is None

    async def _read_errors(self) -> None:
        assert self._proc is not None and self._proc.stderr is not None
        while chunk := await self._proc.stderr.read(65536):
            self._err = (self._err + chunk)[-KEPT:]

    async def _read_events(self) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        try:
            while line := await self._proc.stdout.readline():
                try:
                    event = json.loads(line)
                    trial = self._trials[event["trial"]]
                    done = trial.started if event["event"] == "started" else trial.ended
                    if not done.done():
                        done.set_result(int(event["value"]))
                except (ValueError, KeyError, TypeError):
                    continue  # not an event of ours (a framework printing at import)
        finally:
            code = await self._proc.wait()
            with contextlib.suppress(asyncio.CancelledError):
                await self._tasks[1]
            said = self._err.decode("utf-8", "replace").strip().splitlines()
            self.gone = f"its process server exited with status {code}" + (
                f": {said[-1][:500]}" if said else ""
            )
            for trial in self._trials.values():
                for future in (trial.started, trial.ended):
                    if not future.done():
                        future.set_exception(ServerGone(self.gone))

    async def run(self, path: Path, limit: float) -> int | None:
        """Run the trial whose file is ``path``; its exit status (negative: killed by that
        signal), or None when it outlived ``limit`` seconds and was killed. Raises
        :class:`ServerGone` when the server is gone."""
        if not self.alive or self._proc is None or self._proc.stdin is None:
            raise ServerGone(self.gone or "its process server is not running")
        key = str(path)
        trial = self._trials[key] = _Trial(asyncio.get_running_loop())
        deadline = asyncio.get_running_loop().time() + limit
        try:
            self._proc.stdin.write(key.encode() + b"\n")
            await self._proc.stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as e:
            raise ServerGone(self.gone or f"its process server stopped reading ({e})") from None
        try:
            async with asyncio.timeout_at(deadline):
                await asyncio.shield(trial.started)
                return await asyncio.shield(trial.ended)
        except TimeoutError:
            _kill(trial)
            with contextlib.suppress(TimeoutError, ServerGone):
                await asyncio.wait_for(asyncio.shield(trial.ended), _CLOSE_S)
            return None
        finally:
            ended = trial.ended
            if not ended.done() or ended.cancelled() or ended.exception() is not None:
                _kill(trial)  # cancelled, or its server is gone: the trial's process goes too
            del self._trials[key]

    async def close(self) -> None:
        """Stop the server: it kills what still runs and exits once its stdin closes."""
        proc = self._proc
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), _CLOSE_S)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
