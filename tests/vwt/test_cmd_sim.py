"""`vwt sim models | serve` through the real CLI (serve also as a real foreground process)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmark.sim import SIM_MODELS
from vwt.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]


def test_models_lists_the_catalogue() -> None:
    result = runner.invoke(app, ["sim", "models"], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    for name in ("acme-2", "orbit-2"):
        row = next(line for line in result.output.splitlines() if f" {name} " in line)
        spec = SIM_MODELS[name]
        followed = ", ".join(f for f, p in spec.follows.items() if p >= 0.5)
        assert spec.provider in row and followed in row and spec.on_conflict in row
        assert f"{spec.read_conventions:.2f}" in row


def test_serve_help_names_every_fault() -> None:
    result = runner.invoke(app, ["sim", "serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    for option in ("--port", "--fail-first", "--error-rate", "--status", "--delay", "--seed"):
        assert option in result.output
    assert "--drop-rate" in result.output and "--malformed-rate" in result.output


def test_rates_that_do_not_fit_are_refused_before_serving() -> None:
    result = runner.invoke(app, ["sim", "serve", "--error-rate", "0.7", "--drop-rate", "0.5"])
    assert result.exit_code == 2
    assert "at most 1" in result.output and "hint:" in result.output


def test_a_port_in_use_is_a_user_error() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = runner.invoke(app, ["sim", "serve", "--port", str(port)])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output and "hint:" in result.output


def _post(url: str) -> int:
    body = json.dumps({"model": "acme-2", "messages": [{"role": "user", "content": "hi"}]})
    req = urllib.request.Request(f"{url}/chat/completions", data=body.encode())
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return e.code


@pytest.mark.timeout(60)
@pytest.mark.parametrize("status", [503, 404])
def test_serve_runs_in_the_foreground_until_ctrl_c(status: int) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "200"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "vwt", "sim", "serve", "--fail-first", "1", "--status", str(status)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert proc.stdout is not None
        head = [proc.stdout.readline() for _ in range(8)]
        root = re.search(r"http://127\.0\.0\.1:\d+", head[0])
        assert root, head
        for variable, base in (("OPENAI", "/v1"), ("ANTHROPIC", ""), ("GEMINI", "/v1beta")):
            said = f"{variable}_API_BASE={root.group(0)}{base} "
            assert any(said in line for line in head), (said, head)
        url = root.group(0) + "/v1"
        assert [_post(url), _post(url)] == [status, 200]
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 0, out
    assert f"request 0 (openai-chat-completions): fault error (HTTP {status})" in out
    assert "request 1 (openai-chat-completions): answered (HTTP 200)" in out
    assert "stopped: 2 requests, 1 answered, 0 rejected, faults: 1 error" in out
