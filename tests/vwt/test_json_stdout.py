"""``--json``: stdout is the one JSON document, whatever else prints there meanwhile (Ray's
driver relays its workers' output and its own notices, "(raylet) A worker died…", to
stdout); all that goes to stderr instead."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from submissions import reference_dir
from vwt.cli import app

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
NOISE = "noise from a Ray worker"

# Imported by every Python process on PYTHONPATH; only Ray's workers print, all their life
# (a worker's lines reach the driver once it runs a task of the driver's job).
_SITECUSTOMIZE = f"""
import sys, threading, time
if any("default_worker" in a for a in sys.argv):
    def _noise():
        while True:
            print({NOISE!r}, flush=True)
            time.sleep(0.2)
    threading.Thread(target=_noise, daemon=True).start()
"""


@pytest.mark.slow
@pytest.mark.ray
def test_a_ray_backed_dev_run_prints_only_its_json_on_stdout(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join((str(site), str(REPO))),
        "VWT_EXECUTOR": "ray",  # the run is small: it would run locally otherwise
    }
    env.pop("VWT_RAY_ADDRESS", None)
    skill = reference_dir("typed-skill")
    argv = [str(BIN / "vwt"), "run", "dev", "--home", str(tmp_path / "dev"), "--sandbox", "local"]
    done = subprocess.run(
        [*argv, "--submission", str(skill), "--tasks", "2", "--k", "1", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    assert NOISE in done.stderr  # the workers did print, and it went to stderr
    document = json.loads(done.stdout)
    assert document["tasks"] == 2 and document["execution"]["ran"] > 0


def test_in_process_the_document_is_the_output_and_stdout_comes_back(tmp_path: Path) -> None:
    before = sys.stdout
    result = CliRunner().invoke(app, ["families", "list", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["families"]
    assert sys.stdout is before
