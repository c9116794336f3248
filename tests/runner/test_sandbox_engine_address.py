"""The sandbox reaches the engine ``DOCKER_HOST`` names: a second ``dockerd`` on a socket of
its own, given the image through the SDK (``save`` from the first engine, ``load`` into it),
runs a locked-down sandbox while the first engine never sees it."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import docker
import docker.errors
import pytest

from runner._docker_api import engine
from runner._sandbox_docker import DEFAULT_IMAGE, LABEL, DockerSandbox
from runner._sandbox_engine import docker_status, remove_stale_sandboxes

_AVAILABLE, _REASON = docker_status()
pytestmark = [
    pytest.mark.docker,
    pytest.mark.slow,
    pytest.mark.skipif(not _AVAILABLE, reason=f"{_REASON}; run `make sandbox`"),
]

START_S = 120.0


def _why_no_second_engine() -> str | None:
    if shutil.which("dockerd") is None:
        return "no dockerd on PATH to start a second engine"
    if os.geteuid() != 0:
        return "starting a second dockerd needs root"
    return None


@pytest.fixture
def second_engine() -> Iterator[str]:
    """A second dockerd on its own socket, data and exec roots (no bridge, no iptables);
    its address. Stopped and its directories removed afterwards."""
    why = _why_no_second_engine()
    if why is not None:
        pytest.skip(why)
    # Short paths: the socket and containerd's sockets under the exec root have a length limit.
    root = Path(tempfile.mkdtemp(prefix="vwt-d2-", dir="/tmp"))
    sock, pidfile = root / "d.sock", root / "d.pid"
    address = f"unix://{sock}"
    argv = ["dockerd", "--host", address, "--data-root", str(root / "data")]
    argv += ["--exec-root", str(root / "exec"), "--pidfile", str(pidfile)]
    argv += ["--bridge", "none", "--iptables=false", "--ip-masq=false"]
    with open(root / "dockerd.log", "wb") as log:
        daemon = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + START_S
        while True:
            try:  # negotiating the API version is the first request
                client = docker.DockerClient(base_url=address, version="auto", timeout=60)
                break
            except docker.errors.DockerException:
                if daemon.poll() is not None or time.monotonic() > deadline:
                    tail = (root / "dockerd.log").read_text(errors="replace")[-600:]
                    pytest.skip(f"a second dockerd did not start: {tail}")
                time.sleep(0.2)
        # The image moves engine to engine through the API (`docker save | docker load`).
        client.images.load(engine().images.get(DEFAULT_IMAGE).save(named=True))
        client.close()
        yield address
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(60)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait(30)
        shutil.rmtree(root, ignore_errors=True)


def test_a_sandbox_runs_on_the_engine_docker_host_names(
    second_engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", second_engine)
    available, reason = docker_status()
    assert available and second_engine in reason, reason
    seen: list[str] = []

    async def main() -> None:
        async with DockerSandbox() as sb:
            r = await sb.exec(["sh", "-c", "id -u; ls /sys/class/net; cat"], input=b"in")
            assert r.ok and r.stdout == b"65534\nlo\nin", r
            await sb.write_file("out/f.txt", b"via the second engine")
            assert await sb.read_file("out/f.txt") == b"via the second engine"
            host = engine().api.inspect_container(sb.container)["HostConfig"]
            assert (host["NetworkMode"], host["IpcMode"], host["ReadonlyRootfs"]) == (
                "none",
                "none",
                True,
            )
            assert host["CapDrop"] == ["ALL"] and host["PidsLimit"] == 256
            seen.append(sb.container)

    asyncio.run(main())
    (name,) = seen
    with pytest.raises(docker.errors.NotFound):
        engine().api.inspect_container(name)  # removed by stop(), on the second engine
    assert remove_stale_sandboxes() == []
    monkeypatch.delenv("DOCKER_HOST")
    with pytest.raises(docker.errors.NotFound):
        engine().api.inspect_container(name)  # and the first engine never had it
    mine = f"{LABEL}.owner={socket.gethostname()}:{os.getpid()}"
    assert engine().containers.list(all=True, filters={"label": mine}) == []
