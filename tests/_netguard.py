"""Refuse every non-loopback connection, so a hidden download fails here, not on a user's machine.

Installed in the test process by ``conftest.py`` and in Ray workers via Ray's
``worker_process_setup_hook``.
"""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

_original_connect = socket.socket.connect
_original_connect_ex = socket.socket.connect_ex


class NetworkBlocked(RuntimeError):
    """A test tried to reach a non-loopback address."""


def _allowed(address: Any) -> bool:
    if isinstance(address, str | bytes):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) and address else address
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name that would need DNS


def _check(sock: socket.socket, address: Any) -> None:
    if sock.family == socket.AF_UNIX or _allowed(address):
        return
    raise NetworkBlocked(f"non-loopback connection attempted during tests: {address!r}")


def _connect(self: socket.socket, address: Any) -> None:
    _check(self, address)
    _original_connect(self, address)


def _connect_ex(self: socket.socket, address: Any) -> int:
    _check(self, address)
    return _original_connect_ex(self, address)


def install() -> None:
    """Patch ``socket.socket`` so non-loopback connects raise :class:`NetworkBlocked`."""
    socket.socket.connect = _connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _connect_ex  # type: ignore[method-assign]
