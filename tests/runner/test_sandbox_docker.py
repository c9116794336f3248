"""DockerSandbox against the real engine and the locally built image (skips without them)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import docker.errors
import pytest

from runner._docker_api import engine
from runner._sandbox_base import Mount
from runner._sandbox_docker import DEFAULT_IMAGE, LABEL, DockerProcess, DockerSandbox
from runner._sandbox_engine import docker_status, remove_stale_sandboxes
from runner.errors import RunnerError
from tests.runner.test_sandbox_local import json_roundtrip

_AVAILABLE, _REASON = docker_status()
pytestmark = [
    pytest.mark.docker,
    pytest.mark.skipif(not _AVAILABLE, reason=f"{_REASON}; run `make sandbox`"),
]


def in_docker(fn: Callable[[DockerSandbox], Awaitable[None]], **kwargs: object) -> None:
    """Run ``fn`` against a started DockerSandbox (``kwargs`` to its constructor)."""

    async def main() -> None:
        async with DockerSandbox(**kwargs) as sb:  # type: ignore[arg-type]
            await fn(sb)

    asyncio.run(main())


def inspect(container: str, *path: str) -> Any:
    """One field of the engine's description of ``container`` (None if it is gone)."""
    try:
        value: Any = engine().api.inspect_container(container)
    except docker.errors.NotFound:
        return None
    for key in path:
        value = value[key]
    return value


def gone(container: str) -> bool:
    """Whether the engine no longer knows ``container``."""
    try:
        engine().api.inspect_container(container)
    except docker.errors.NotFound:
        return True
    return False


def test_exec_runs_python3_in_the_workdir() -> None:
    async def check(sb: DockerSandbox) -> None:
        r = await sb.exec(
            ["python3", "-c", "import os, sys; print(sys.version_info[:2], os.getcwd())"]
        )
        assert r.ok and r.stdout.decode().strip() == "(3, 11) /sandbox"
        echoed = await sb.exec(["cat"], input=b"in\x00put")
        assert echoed.stdout == b"in\x00put"
        failed = await sb.exec(["sh", "-c", "echo oops >&2; exit 3"])
        assert (failed.returncode, failed.stderr) == (3, b"oops\n")

    in_docker(check)


def test_relative_paths_follow_a_custom_workdir() -> None:
    async def check(sb: DockerSandbox) -> None:
        await sb.write_file("f.txt", b"here")
        r = await sb.exec(["sh", "-c", "pwd; cat /work/f.txt"])
        assert r.stdout == b"/work\nhere"

    in_docker(check, workdir="/work")


def test_timeout_kills_the_command_inside_the_container() -> None:
    async def check(sb: DockerSandbox) -> None:
        r = await sb.exec(["sh", "-c", "echo started; exec sleep 600"], timeout=1)
        assert r.timed_out and not r.ok and r.stdout == b"started\n"
        left = await sb.exec(["sh", "-c", "cat /proc/[0-9]*/cmdline | tr '\\0' ' '"])
        assert "sleep 600" not in left.stdout.decode()

    in_docker(check)


def test_there_is_no_network_inside() -> None:
    probe = (
        "import socket\n"
        "s = socket.socket()\n"
        "s.settimeout(5)\n"
        "try:\n"
        "    s.connect(('1.1.1.1', 53))\n"
        "    print('connected')\n"
        "except OSError as e:\n"
        "    print('refused', e.errno)\n"
    )

    async def check(sb: DockerSandbox) -> None:
        r = await sb.exec(["python3", "-c", probe])
        assert r.stdout.decode().startswith("refused")
        nics = await sb.exec(["ls", "/sys/class/net"])
        assert nics.stdout.split() == [b"lo"]
        assert inspect(sb.container, "HostConfig", "NetworkMode") == "none"

    in_docker(check)


def test_memory_cpu_and_process_limits_are_applied() -> None:
    async def check(sb: DockerSandbox) -> None:
        host = inspect(sb.container, "HostConfig")
        assert host["Memory"] == host["MemorySwap"] == 256 * 1024 * 1024
        assert host["NanoCpus"] == 500_000_000
        assert host["PidsLimit"] == 64
        assert host["CapDrop"] == ["ALL"]
        assert host["SecurityOpt"] == ["no-new-privileges"]
        assert host["ReadonlyRootfs"] is True
        assert host["IpcMode"] == "none"
        assert inspect(sb.container, "Config", "User") == "65534:65534"
        forks = await sb.exec(["sh", "-c", "for i in $(seq 100); do sleep 5 & done; wait"])
        assert not forks.ok and b"fork" in forks.stderr.lower()

    in_docker(check, memory="256m", cpus=0.5, pids_limit=64)


def test_commands_run_unprivileged_on_a_read_only_root() -> None:
    async def check(sb: DockerSandbox) -> None:
        ids = await sb.exec(["sh", "-c", "id -u; id -g"])
        assert ids.ok and ids.stdout.split() == [b"65534", b"65534"]
        for path in ("/x", "/usr/bin/x", "/etc/passwd"):
            wrote = await sb.exec(["sh", "-c", f"echo x > {path}"])
            assert not wrote.ok, path
        root = await sb.exec(["touch", "/x"])
        assert b"Read-only file system" in root.stderr
        scratch = await sb.exec(["sh", "-c", "echo scratch > /tmp/s && cat /tmp/s"])
        assert scratch.ok and scratch.stdout == b"scratch\n"
        await sb.write_file("out/w.txt", b"in the workdir")
        assert await sb.read_file("out/w.txt") == b"in the workdir"
        # Scratch is small and holds no programs.
        big = await sb.exec(["sh", "-c", "head -c 32m /dev/zero > /tmp/big"])
        assert not big.ok and b"No space left" in big.stderr
        script = "cp /bin/true /tmp/t && /tmp/t"
        assert not (await sb.exec(["sh", "-c", script])).ok
        privileged = await sb.exec(["su", "-c", "id"])
        assert not privileged.ok
        # No shared-memory area to fill or to pass data through: /dev/shm is not there.
        shm = await sb.exec(["sh", "-c", "echo x > /dev/shm/x"])
        assert not shm.ok and b"/dev/shm" in shm.stderr

    in_docker(check)


def test_files_the_sandbox_user_cannot_read_are_mounted_from_a_readable_copy(
    tmp_path: Path,
) -> None:
    secret_dir = tmp_path / "private"
    secret_dir.mkdir(mode=0o700)
    (secret_dir / "backend.py").write_text("print('ran')\n")
    (secret_dir / "backend.py").chmod(0o600)
    (tmp_path / "one.py").write_text("x = 1\n")
    (tmp_path / "one.py").chmod(0o600)
    staged: list[Path] = []

    async def check(sb: DockerSandbox) -> None:
        r = await sb.exec(["python3", "vwt/d/backend.py"])
        assert r.ok and r.stdout == b"ran\n", r.stderr
        assert await sb.read_file("vwt/one.py") == b"x = 1\n"
        assert sb._staging is not None
        staged.append(sb._staging)

    mounts = [Mount(secret_dir, "vwt/d"), Mount(tmp_path / "one.py", "vwt/one.py")]
    in_docker(check, mounts=mounts)
    assert (secret_dir / "backend.py").stat().st_mode & 0o777 == 0o600
    assert staged and not staged[0].exists()


@pytest.mark.parametrize("umask", [0o077, 0o022], ids=["umask-077", "umask-022"])
def test_private_copies_are_readable_by_the_sandbox_user_only(tmp_path: Path, umask: int) -> None:
    secret = tmp_path / "kit"
    (secret / "tasks").mkdir(parents=True)
    (secret / "tasks" / "t.json").write_text("{}")
    (secret / "run.sh").write_text("echo ran\n")
    (secret / "run.sh").chmod(0o700)
    secret.chmod(0o700)
    seen: list[tuple[Path, int, int, int]] = []

    async def check(sb: DockerSandbox) -> None:
        r = await sb.exec(["sh", "-c", "cat kit/tasks/t.json && sh kit/run.sh"])
        assert r.ok and r.stdout == b"{}ran\n", r.stderr
        assert sb._staging is not None
        for p in [sb._staging, *sb._staging.rglob("*")]:
            st = p.lstat()
            seen.append((p, st.st_uid, st.st_gid, st.st_mode & 0o777))

    old = os.umask(umask)
    try:
        in_docker(check, mounts=[Mount(secret, "kit")])
    finally:
        os.umask(old)
    assert len(seen) == 5  # the staging directory, the copy, its two files and its directory
    staging, *copies = seen
    assert staging[3] & 0o077 == 0, staging  # nobody else can even look inside
    for path, uid, gid, mode in copies:
        assert mode & 0o007 == 0, (path, oct(mode))  # never world-readable
        if os.geteuid() == 0:
            assert (uid, gid) == (65534, 65534) and mode & 0o077 == 0, (path, uid, oct(mode))
        else:
            assert gid == os.getegid(), (path, gid)


def test_a_writable_mount_the_sandbox_user_cannot_write_is_refused(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    with pytest.raises(RunnerError, match="not writable by uid 65534") as err:
        DockerSandbox(mounts=[Mount(tmp_path, "/out", read_only=False)])
    assert "chown 65534" in (err.value.hint or "")


def test_mounts_are_read_only_when_asked(tmp_path: Path) -> None:
    ro, rw = tmp_path / "ro", tmp_path / "rw"
    ro.mkdir()
    rw.mkdir()
    rw.chmod(0o777)  # writable by the sandbox's unprivileged user
    (ro / "f.txt").write_text("original")

    async def check(sb: DockerSandbox) -> None:
        assert await sb.read_file("in/ro/f.txt") == b"original"
        with pytest.raises(PermissionError, match="Read-only"):
            await sb.write_file("in/ro/f.txt", b"changed")
        touched = await sb.exec(["touch", "in/ro/new"])
        assert touched.returncode != 0
        await sb.write_file("/out/new.txt", b"result")

    in_docker(check, mounts=[Mount(ro, "in/ro"), Mount(rw, "/out", read_only=False)])
    assert (ro / "f.txt").read_text() == "original"
    assert not (ro / "new").exists()
    assert (rw / "new.txt").read_bytes() == b"result"


def test_files_round_trip_and_missing_files_raise() -> None:
    async def check(sb: DockerSandbox) -> None:
        await sb.write_file("a/b/c.bin", bytes(range(256)))
        assert await sb.read_file("/sandbox/a/b/c.bin") == bytes(range(256))
        with pytest.raises(FileNotFoundError):
            await sb.read_file("missing.txt")
        with pytest.raises(IsADirectoryError):
            await sb.read_file("a")

    in_docker(check)


def test_spawn_round_trips_json_lines() -> None:
    big = "y" * 200_000

    async def check(sb: DockerSandbox) -> None:
        replies = await json_roundtrip(sb, [{"n": 1}, {"big": big}])
        assert [r["echo"] for r in replies] == [{"n": 1}, {"big": big}]

    in_docker(check)


def test_stop_removes_the_container_and_kills_spawned_clients() -> None:
    async def main() -> tuple[str, DockerProcess]:
        sb = DockerSandbox()
        await sb.start()
        await json_roundtrip(sb, [{"ping": True}])
        name, proc = sb.container, sb._procs[0]
        assert inspect(name, "State", "Running") is True
        assert inspect(name, "Config", "Labels", LABEL) == "1"
        await sb.stop()
        await sb.stop()
        return name, proc

    name, proc = asyncio.run(main())
    assert proc.stdout.at_eof()
    assert gone(name)


def test_a_missing_image_is_a_user_error_naming_make_sandbox() -> None:
    assert docker_status("vwt-sandbox:no-such-tag")[0] is False
    assert "not built" in docker_status("vwt-sandbox:no-such-tag")[1]

    async def start() -> None:
        await DockerSandbox("vwt-sandbox:no-such-tag").start()

    with pytest.raises(RunnerError) as err:
        asyncio.run(start())
    assert "make sandbox" in (err.value.hint or "")


def test_remove_stale_sandboxes_removes_only_containers_of_dead_owners() -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    labels = {LABEL: "1", f"{LABEL}.owner": f"{socket.gethostname()}:{dead.pid}"}
    orphan = engine().containers.run(
        DEFAULT_IMAGE, ["sleep", "1h"], detach=True, network_mode="none", labels=labels
    )

    async def check(sb: DockerSandbox) -> None:
        removed = await asyncio.to_thread(remove_stale_sandboxes)
        assert orphan.name in removed and sb.container not in removed
        assert inspect(sb.container, "State", "Running") is True

    try:
        in_docker(check)
        assert gone(orphan.id)
    finally:
        if not gone(orphan.id):
            orphan.remove(force=True)


def test_the_environment_backend_serves_from_the_locked_down_sandbox() -> None:
    from benchmark import McpBackend, family

    fam = family("support_ops")
    task = fam.tasks("sealed", 1, 5)[0]
    backend = McpBackend.of(fam)
    mounts = [Mount(*m) for m in backend.mounts()]

    async def check(sb: DockerSandbox) -> None:
        async with backend.serve(sb), backend.trial(task.initial_state) as t:
            refund = task.reference_calls[0]
            result = await t.call(refund.name, refund.arguments)
            assert result["status"] == "issued"

    in_docker(check, mounts=mounts)


def test_the_workdir_may_be_the_scratch_tmp() -> None:
    async def check(sb: DockerSandbox) -> None:
        await sb.write_file("f.txt", b"x")
        r = await sb.exec(["sh", "-c", "pwd; id -u; cat /tmp/f.txt"])
        assert r.ok and r.stdout == b"/tmp\n65534\nx"

    in_docker(check, workdir="/tmp")


def test_the_image_holds_scripts_sandbox_image_at_opt_vwt_read_only() -> None:
    source = Path(__file__).parents[2] / "scripts" / "sandbox-image"
    want = {
        str(p.relative_to(source)): p.read_bytes()
        for p in sorted(source.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    listing = (
        "import os, sys\n"
        "root = os.environ['VWT_SANDBOX_OPT']\n"
        "for d, dirs, files in os.walk(root):\n"
        "    dirs[:] = [x for x in dirs if x != '__pycache__']\n"
        "    for f in files:\n"
        "        p = os.path.join(d, f)\n"
        "        print(os.path.relpath(p, root), os.stat(p).st_uid, open(p, 'rb').read().hex())\n"
    )

    async def check(sb: DockerSandbox) -> None:
        r = await sb.exec(["python3", "-c", listing])
        assert r.ok, r.stderr
        rows = [line.split(" ") for line in r.stdout.decode().splitlines()]
        got = {path: bytes.fromhex(data) for path, _, data in rows}
        assert got == want, "the image is stale: run `make sandbox`"
        assert {uid for _, uid, _ in rows} == {"0"}
        assert (await sb.exec(["sh", "-c", "echo $VWT_SANDBOX_OPT"])).stdout == b"/opt/vwt\n"
        for path in ("/opt/vwt/README.txt", "/opt/vwt/new"):
            assert not (await sb.exec(["sh", "-c", f"echo x >> {path}"])).ok, path

    in_docker(check)


def test_the_image_holds_its_python_byte_compiled_so_no_start_compiles_it() -> None:
    # The sandbox user cannot write __pycache__ under /opt: a module without a valid cached
    # file there is compiled again by every process that imports it (each batch's server).
    check_caches = (
        "import importlib.util, os, struct, sys\n"
        "stale, seen = [], 0\n"
        "for root in ('/opt/vwt', '/opt/vwt-site'):\n"
        "    for d, dirs, files in os.walk(root):\n"
        "        for f in files:\n"
        "            if not f.endswith('.py'):\n"
        "                continue\n"
        "            src = os.path.join(d, f)\n"
        "            seen += 1\n"
        "            try:\n"
        "                head = open(importlib.util.cache_from_source(src), 'rb').read(16)\n"
        "            except OSError:\n"
        "                stale.append(src); continue\n"
        "            magic, flags, mtime, size = head[:4], *struct.unpack('<3I', head[4:])\n"
        "            st = os.stat(src)\n"
        "            want = (int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF)\n"
        "            if magic != importlib.util.MAGIC_NUMBER or flags or (mtime, size) != want:\n"
        "                stale.append(src)\n"
        "print(seen, len(stale), *stale[:5])\n"
    )

    async def check(sb: DockerSandbox) -> None:
        r = await sb.exec(["python3", "-c", check_caches])
        assert r.ok, r.stderr
        seen, stale, *examples = r.stdout.decode().split()
        assert int(seen) > 500, "the SDK's modules are not in the image"
        assert int(stale) == 0, f"not byte-compiled: {examples}; run `make sandbox`"

    in_docker(check)


def test_an_image_without_the_mcp_sdk_is_not_usable() -> None:
    """The base image (no SDK, no label) would fail every batch: it is reported, not used."""
    base = f"{DEFAULT_IMAGE}-base"
    try:
        engine().images.get(base)
    except docker.errors.ImageNotFound:
        pytest.skip(f"{base} is not built")
    available, reason = docker_status(base)
    assert not available and "has no MCP SDK" in reason and "make sandbox" in reason
    assert docker_status(DEFAULT_IMAGE)[0]


HOLDER = """
import asyncio, sys
from runner._sandbox_docker import DockerSandbox

async def main():
    sb = DockerSandbox()
    await sb.start()
    print(sb.container, flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""
"""Starts a sandbox, says its container's name, and waits to be killed."""


def test_a_container_ends_with_its_owner_even_when_the_owner_is_killed() -> None:
    # A driver or worker killed with SIGKILL runs no cleanup: the container must not outlive
    # it (it ends when the owner's connection does, and removes itself).
    repo = Path(__file__).parents[2]
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], cwd=repo, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        name = holder.stdout.readline().strip()
        assert name.startswith("vwt-sandbox-") and inspect(name, "State", "Running") is True
    finally:
        holder.kill()
        holder.wait()
    deadline = time.monotonic() + 120  # a loaded engine is slow to stop and remove
    while not gone(name) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert gone(name), f"{name} outlived its killed owner"
