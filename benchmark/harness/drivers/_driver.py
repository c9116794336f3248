"""What every framework driver shares: reading the trial, refusing any connection but
loopback, writing the result. Standard library only (it runs in the framework's environment)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import os
import socket
import sys
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


def main(run: Run) -> None:
    """Read the trial, guard the network, run it, write the result (DriverResult). An error
    the framework raises propagates: the process exits non-zero and the trial is invalid."""
    with open(sys.argv[1], encoding="utf-8") as f:
        trial = json.load(f)
    guard_network()
    result = asyncio.run(run(trial))
    result.update(v=1, blocked=BLOCKED)
    path = trial["result"]
    with open(path + ".part", "w", encoding="utf-8") as f:
        json.dump(result, f)
    os.replace(path + ".part", path)
