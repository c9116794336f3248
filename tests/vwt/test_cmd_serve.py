"""`vwt serve`: the service in its own process, stopped by Ctrl-C; bad options refused."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from conditions import Cycle
from submissions import MAX_BUNDLE_BYTES
from tests.submissions.conftest import open_cycle_at, spec_with
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


@pytest.fixture
def cycle(tmp_path: Path) -> Cycle:
    """An open cycle."""
    return open_cycle_at(tmp_path / "home", spec_with())


def test_serve_prints_its_url_serves_logs_and_stops_on_ctrl_c(cycle: Cycle) -> None:
    command = [sys.executable, "-m", "vwt", "serve", "--home", str(cycle.home), "--port", "0"]
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    server = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    try:
        assert server.stdout is not None
        first = server.stdout.readline()
        assert first.startswith(f"serving cycle {cycle.id} (state open) at http://127.0.0.1:")
        url = first.split(" at ")[1].strip()
        info = httpx.get(f"{url}/api/v1/cycle", timeout=10)
        assert info.status_code == 200 and info.json()["state"] == "open"
        assert httpx.get(f"{url}/nothing", timeout=10).status_code == 404
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0, err
    assert "reverse proxy" in err and "Ctrl-C stops" in err and "Traceback" not in err
    assert "client addresses as connected (no --trusted-proxy)" in err
    assert err.rstrip().endswith("stopped")
    assert "6 uploads per minute, 2 uploads at once (8 in all), 16,777,216 bytes" in err
    assert "60 s per upload, 10 s per request head" in err
    log = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert [(x["route"], x["status"]) for x in log] == [("/api/v1/cycle", 200), (None, 404)]


def test_serve_refuses_a_home_without_a_cycle(tmp_path: Path) -> None:
    code, out = vwt("serve", "--home", str(tmp_path / "none"), "--port", "0")
    assert code == 2 and "error: no release cycle" in out and "hint:" in out


def test_serve_refuses_a_port_in_use(cycle: Cycle) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out = vwt("serve", "--home", str(cycle.home), "--port", str(port))
    assert code == 2 and f"error: cannot listen on 127.0.0.1:{port}" in out
    assert "pick another --port" in out


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--port", "70000"),
        ("--max-upload-bytes", str(MAX_BUNDLE_BYTES + 1)),
        ("--uploads-per-minute", "0"),
        ("--upload-seconds", "0"),
        ("--head-seconds", "-1"),
    ],
)
def test_serve_refuses_limits_out_of_range(cycle: Cycle, option: str, value: str) -> None:
    code, out = vwt("serve", "--home", str(cycle.home), option, value)
    assert code == 2 and option in out
