"""Trusted proxies: a client's ``X-Forwarded-For`` is believed only from a proxy the operator
named, so a local process cannot forge its address in the access log or dodge the
per-address limits; by default no proxy is trusted."""

from __future__ import annotations

import io
import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from service import ServiceError, ServiceLimits, running_server, trusted_proxies
from tests.submissions.conftest import open_cycle_at, spec_with
from vwt.cli import app

FORGED = ["203.0.113.7", "203.0.113.8", "203.0.113.9"]


def _anonymous_gets(home: Path, trusted: tuple[str, ...]) -> tuple[list[int], list[str]]:
    """The statuses of three anonymous requests from loopback, each claiming another address
    in ``X-Forwarded-For`` (2 requests a minute per address), and the logged clients."""
    log = io.StringIO()
    limits = ServiceLimits(requests_per_minute=2)
    with running_server(home, limits, access_log=log, trusted=trusted) as url:
        statuses = [
            httpx.get(f"{url}/api/v1/cycle", headers={"X-Forwarded-For": a}, timeout=30).status_code
            for a in FORGED
        ]
    clients = [json.loads(line)["client"] for line in log.getvalue().splitlines()]
    return statuses, clients


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The home of an open cycle."""
    return open_cycle_at(tmp_path / "home", spec_with()).home


def test_by_default_a_forwarded_address_is_not_believed(home: Path) -> None:
    statuses, clients = _anonymous_gets(home, ())
    assert clients == ["127.0.0.1"] * 3
    assert statuses == [200, 200, 429]  # one address, over its limit whatever it claims


def test_a_trusted_proxy_names_the_client(home: Path) -> None:
    statuses, clients = _anonymous_gets(home, trusted_proxies(["127.0.0.1"]))
    assert clients == FORGED
    assert statuses == [200, 200, 200]  # three clients, one request each


def test_only_the_named_proxy_is_trusted(home: Path) -> None:
    statuses, clients = _anonymous_gets(home, trusted_proxies(["10.1.2.3", "192.168.0.0/16"]))
    assert clients == ["127.0.0.1"] * 3 and statuses == [200, 200, 429]


def test_trusted_proxies_are_addresses_or_networks() -> None:
    assert trusted_proxies([" 10.0.0.1 ", "10.0.0.1/8", "::1", "10.0.0.1"]) == (
        "10.0.0.1",
        "10.0.0.0/8",
        "::1",
    )
    for bad in ("*", "proxy.example", "10.0.0.1/99", ""):
        with pytest.raises(ServiceError) as err:
            trusted_proxies([bad])
        assert "is not an IP address or network" in str(err.value) and err.value.hint


def test_serve_refuses_a_trusted_proxy_that_is_not_an_address(home: Path) -> None:
    args = ["serve", "--home", str(home), "--port", "0", "--trusted-proxy", "*"]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    assert result.exit_code == 2, result.output
    assert "error: trusted proxy '*' is not an IP address or network" in result.output
    assert "hint:" in result.output and "--trusted-proxy 127.0.0.1" in result.output
