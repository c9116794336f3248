"""The test suite itself refuses non-loopback connections."""

import socket

import pytest

from tests._netguard import NetworkBlocked


def test_public_address_is_refused() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(NetworkBlocked):
        s.connect(("93.184.216.34", 80))


def test_loopback_is_allowed() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as client:
            client.connect(server.getsockname())
            assert client.getpeername() == server.getsockname()
