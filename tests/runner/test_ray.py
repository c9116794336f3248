"""The Ray runtime: loopback only, an existing cluster by address, batches that fail legibly."""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchmark import default_cycle_spec_path
from conditions import CycleSpec
from runner import TrialStore, execute
from runner._worker import run_batch
from submissions import reference_bundles
from tests.runner.test_execute import source_plan
from tests.runner.test_worker import cpu_hogs

pytestmark = pytest.mark.ray

SPEC = CycleSpec.load(default_cycle_spec_path())
ROOT = Path(__file__).resolve().parents[2]


def _descendants(root: int) -> set[int]:
    """``root`` and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        found.add(pid)
        todo += children.get(pid, [])
    return found


def _socket_inodes(pids: set[int]) -> dict[str, int]:
    """Socket inode → owning pid, for the open files of ``pids``."""
    owned = {}
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                owned[target[8:-1]] = pid
    return owned


def _address(hex_address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    raw = bytes.fromhex(hex_address)
    if len(raw) == 4:
        return ipaddress.IPv4Address(raw[::-1])
    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
    v6 = ipaddress.IPv6Address(words)
    return v6.ipv4_mapped or v6


def _listening(owned: dict[str, int]) -> list[tuple[str, int, int]]:
    """(address, port, pid) of every TCP socket in LISTEN state among ``owned`` inodes."""
    out = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and inode in owned:
                host, port = local.split(":")
                out.append((str(_address(host)), int(port, 16), owned[inode]))
    return out


def test_every_ray_server_listens_on_loopback_only(ray_runtime: None) -> None:
    import ray

    @ray.remote
    def pid() -> int:
        return os.getpid()

    workers = set(ray.get([pid.remote() for _ in range(4)]))
    tree = _descendants(os.getpid())
    assert workers <= tree  # the workers (and raylet, GCS) are this session's processes
    listening = _listening(_socket_inodes(tree))
    owners = {p for _, _, p in listening}
    assert len(listening) >= 4 and owners & workers  # GCS, raylet, driver, workers at least
    exposed = [(a, port) for a, port, _ in listening if not ipaddress.ip_address(a).is_loopback]
    assert exposed == []
    assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")


_CONNECT = """
import json, ray
from runner import start_ray
start_ray()
print(json.dumps({"gcs": ray.get_runtime_context().gcs_address,
                  "nodes": len(ray.nodes()),
                  "answer": ray.get(ray.remote(lambda: 41 + 1).remote())}))
ray.shutdown()
"""


def test_vwt_ray_address_joins_an_existing_cluster(ray_runtime: None) -> None:
    """A second driver given the session cluster's address joins it: no second cluster."""
    import ray

    gcs = ray.get_runtime_context().gcs_address
    env = {**os.environ, "VWT_RAY_ADDRESS": gcs, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _CONNECT],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {"gcs": gcs, "nodes": len(ray.nodes()), "answer": 42}


def test_a_batch_that_cannot_run_fails_legibly_through_ray(ray_runtime: None) -> None:
    import ray

    remote: Any = ray.remote(max_retries=0)(run_batch)
    with pytest.raises(Exception) as failed:
        ray.get(remote.remote('{"not": "a batch"}', "local", 2))
    message = str(failed.value)
    assert "BatchFailed: ValidationError" in message
    assert "Failed to deserialize" not in message


def test_workers_run_at_the_drivers_priority(ray_runtime: None) -> None:
    """Ray's default (nice 15) starved workers beside any load: 32 trials beside 3 CPU hogs
    took 235 s instead of 14 s."""
    import ray

    @ray.remote
    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, 0)

    assert set(ray.get([niceness.remote() for _ in range(4)])) == {
        os.getpriority(os.PRIO_PROCESS, 0)
    }


@pytest.mark.slow
def test_a_phase_through_ray_under_cpu_contention_has_no_invalid_trials(
    ray_runtime: None, tmp_path: Path
) -> None:
    batches = source_plan(reference_bundles()[2:3], tasks=8, batch_size=16)
    store = TrialStore(tmp_path / "t.sqlite")
    with cpu_hogs():
        result = execute(store, batches, sandbox="local", max_attempts=1)  # no retries
    attempts = store.attempts()
    assert result.ran == 32 and len(attempts) == 32
    assert [r.invalid for r in attempts if r.outcome == "invalid"] == []
