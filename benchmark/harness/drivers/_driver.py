"""What every framework driver shares: reading the trial, refusing any connection but
loopback, writing the result. Standard library only (it runs in the framework's environment)."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import os
import resource
import select
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Coroutine
from typing import Any

BLOCKED: list[str] = []
"""Connections refused (anything but loopback), as host:port."""
_CONNECT = socket.socket.connect
_CONNECT_EX = socket.socket.connect_ex
_GETADDRINFO = socket.getaddrinfo


def _loopback(host: object) -> bool:
    if host in (None, "localhost", b"localhost"):
        return True
    try:
        return ipaddress.ip_address(
            host.decode() if isinstance(host, bytes) else str(host)
        ).is_loopback
    except ValueError:
        return False


def _refuse(host: object, port: object) -> OSError:
    BLOCKED.append(f"{host}:{port}")
    return ConnectionRefusedError(f"vwt's framework driver connects only to loopback, not {host}")


def _check(sock: socket.socket, address: Any) -> None:
    if sock.family == getattr(socket, "AF_UNIX", None) or not isinstance(address, tuple):
        return
    if not _loopback(address[0]):
        raise _refuse(address[0], address[1])


def _connect(self: socket.socket, address: Any) -> None:
    _check(self, address)
    _CONNECT(self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    _check(self, address)
    return _CONNECT_EX(self, address)


def _getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
    if not _loopback(host):  # not even a DNS query leaves the machine
        raise _refuse(host, port)
    return _GETADDRINFO(host, port, *args, **kwargs)


def guard_network() -> None:
    """Refuse every connection (and name lookup) but loopback, remembering each in BLOCKED:
    the framework talks to vwt's endpoints only, and any telemetry fails here."""
    setattr(socket.socket, "connect", _connect)  # noqa: B010 (a method of the C type)
    setattr(socket.socket, "connect_ex", _connect_ex)  # noqa: B010
    socket.getaddrinfo = _getaddrinfo


Run = Callable[[dict[str, Any]], Coroutine[Any, Any, dict[str, Any]]]
"""A framework's run of one trial: the trial (DriverInput) → the result's fields."""

SERVE = "--serve"
"""The argument that makes a driver a process server (see :func:`serve`)."""
OUTPUT_LIMIT = 16 * 1024 * 1024
"""Largest file a trial's process may write (its stderr file included)."""


def run_one(run: Run, path: str) -> None:
    """Run the trial in the file ``path`` and write its result (DriverResult). An error the
    framework raises propagates: the trial's process exits non-zero, the trial is invalid."""
    with open(path, encoding="utf-8") as f:
        trial = json.load(f)
    result = asyncio.run(run(trial))
    result.update(v=1, blocked=BLOCKED)
    out = trial["result"]
    with open(out + ".part", "w", encoding="utf-8") as f:
        json.dump(result, f)
    os.replace(out + ".part", out)


def _child(run: Run, path: str, go: int) -> None:
    """In a forked process: become a process group of its own (killed whole at the time
    limit), wait until the server has reported this pid (a byte on ``go``; end of file: the
    server is gone, so nobody could kill this process: exit), write stderr to the trial's
    folder (bounded), run the trial, exit."""
    code = 1
    try:
        os.setpgid(0, 0)
        if os.read(go, 1) != _GO:
            os._exit(1)
        os.close(go)
        work = os.path.dirname(path)
        null = os.open(os.devnull, os.O_RDWR)
        err = os.open(os.path.join(work, "stderr"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.dup2(err, 2)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT, OUTPUT_LIMIT))
        os.chdir(work)
        os.environ.update(HOME=work, TMPDIR=work)
        run_one(run, path)
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os._exit(code)


_GO = b"g"
"""What the server writes to a trial's process once it has reported its pid."""


def _say(event: str, path: str, value: int) -> None:
    sys.stdout.write(json.dumps({"event": event, "trial": path, "value": value}) + "\n")
    sys.stdout.flush()


def serve(run: Run) -> None:
    """Serve trials until stdin closes: each line names a trial file; the trial runs in a
    process forked from this one, which has imported the framework once (a process per trial
    without paying the framework's import each time). Reports ``started`` (the child's pid,
    its process group) and ``ended`` (its exit status, negative for a signal) as JSON lines.
    When stdin closes, children still running are killed."""
    running: dict[int, str] = {}
    pending = b""
    reading = True
    while reading or running:
        if reading:
            ready = bool(select.select([0], [], [], 0.02)[0])
        else:
            ready = False
            time.sleep(0.02)
        if ready:
            chunk = os.read(0, 65536)
            reading = bool(chunk)
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in filter(None, (x.decode().strip() for x in lines)):
                go, going = os.pipe()
                pid = os.fork()
                if pid == 0:
                    os.close(going)
                    _child(run, line, go)
                os.close(go)
                with contextlib.suppress(OSError):  # the child may have done it already
                    os.setpgid(pid, pid)
                running[pid] = line
                _say("started", line, pid)  # reported before the trial can do anything
                with contextlib.suppress(OSError):
                    os.write(going, _GO)
                os.close(going)
        if not reading:
            for pid in running:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            if pid in running:
                _say("ended", running.pop(pid), os.waitstatus_to_exitcode(status))


def main(run: Run) -> None:
    """``driver.py TRIAL.json``: run one trial in this process. ``driver.py --serve``: serve
    trials (see :func:`serve`). Either way no connection but loopback is made."""
    guard_network()
    if sys.argv[1] == SERVE:
        serve(run)
    else:
        run_one(run, sys.argv[1])
