"""A real two-node Ray cluster on this machine (a head and a worker node started with `ray
start`, one CPU each): `vwt run frozen --ray-address` joins it, its code reaches the workers
through Ray's runtime environment, trials run on both nodes (each record names its node), and
only the driver writes the store."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from runner import store_for
from tests.vwt.test_cmd_run import closed_cycle

pytestmark = [pytest.mark.slow, pytest.mark.ray]

BIN = Path(sys.executable).parent
REPO = Path(__file__).resolve().parents[2]
MARK = "VWT_TEST_CLUSTER"
"""Environment variable every process of the test cluster inherits: how teardown finds them."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cluster_pids(mark: str) -> list[int]:
    pids = []
    needle = f"{MARK}={mark}".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


def _stop(mark: str) -> None:
    """Kill this test's cluster only (`ray stop` would stop every Ray on the machine)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in _cluster_pids(mark):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        time.sleep(1)


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, dict[str, str]]]:
    """(address, environment) of a running head + worker node, torn down afterwards."""
    mark = uuid.uuid4().hex
    # Ray's socket paths live under the temp dir and must stay under 108 bytes (AF_UNIX):
    # pytest's per-worker temp dirs are too deep for them
    temp = Path(tempfile.mkdtemp(prefix="vwt-ray-", dir="/tmp"))
    env = {
        **os.environ,
        MARK: mark,
        "RAY_USAGE_STATS_ENABLED": "0",
        # a head started here turns token authentication on: every client sends the token
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": uuid.uuid4().hex + uuid.uuid4().hex,
    }
    # a Ray runtime started in this process before (another module's, on this worker) set
    # this to keep itself on one machine: a cluster of nodes must not inherit it
    env.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)
    port = _free_port()
    common = ["--num-cpus", "1", "--node-ip-address", "127.0.0.1", "--disable-usage-stats"]
    head = [str(BIN / "ray"), "start", "--head", "--port", str(port), "--temp-dir", str(temp)]
    address = f"127.0.0.1:{port}"
    try:
        for argv in (
            [*head, "--include-dashboard", "false", *common],
            [str(BIN / "ray"), "start", "--address", address, *common],
        ):
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
        yield address, env
    finally:
        _stop(mark)
        shutil.rmtree(temp, ignore_errors=True)


def _nodes(env: dict[str, str], address: str) -> set[str]:
    script = (
        f"import json, ray; ray.init(address={address!r}, logging_level='ERROR'); "
        "print(json.dumps([n['NodeID'] for n in ray.nodes() if n['Alive']]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_a_run_joins_a_two_node_cluster_and_its_trials_run_on_both_nodes(
    cluster: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    address, env = cluster
    nodes = _nodes(env, address)
    assert len(nodes) == 2
    cycle = closed_cycle(tmp_path / "home")
    # the option, not the environment, names the cluster; the code comes from this checkout
    run_env = {**env, "PYTHONPATH": str(REPO)}
    run_env.pop("RAY_ADDRESS", None)
    run_env.pop("VWT_RAY_ADDRESS", None)
    done = subprocess.run(
        [
            str(BIN / "vwt"),
            "run",
            "frozen",
            "--home",
            str(cycle.home),
            "--sandbox",
            "local",
            "--ray-address",
            address,
            "--json",
        ],
        env=run_env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    records = store_for(cycle.home).records("frozen")
    assert records and all(r.outcome != "invalid" for r in records)
    ran_on = {r.node for r in records}
    assert ran_on == nodes, f"trials ran on {ran_on}, the cluster has {nodes}"
