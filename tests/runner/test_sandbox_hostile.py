"""Hostile code in the Docker sandbox: each attack is contained and reported, never a hang.

Every attack runs through both ways code runs in a sandbox: ``DockerSandbox.exec`` (the
runner's one-shot commands) and ``run_limited`` inside a family backend served from the
sandbox (how model-written code and test suites run). Afterwards the sandbox still works (or
is removed by ``stop()``), nothing is left running in it, and nothing on the host changed.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import NamedTuple

import docker.errors
import pytest

from benchmark import BackendTrial, host_site
from benchmark._mcp_backend import SANDBOX_EXEC_FILE, SERVER_FILE
from runner._docker_api import engine
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import docker_status
from tests.benchmark.test_sandbox_exec import ESCAPE, backend_mounts, runner_backend

_AVAILABLE, _REASON = docker_status()
pytestmark = [
    pytest.mark.docker,
    pytest.mark.skipif(not _AVAILABLE, reason=f"{_REASON}; run `make sandbox`"),
]

CHANNELS = ("exec", "backend")
MAX_OUTPUT = 65536
SLACK_S = 15.0
"""How much longer than its time limit an attack may take to be reported (a loaded host)."""


class Outcome(NamedTuple):
    """What a channel reports about one command."""

    exit: int
    timed_out: bool
    stdout: str
    stderr: str
    truncated: bool
    seconds: float


class Hostile(NamedTuple):
    """A started sandbox, a way to run commands in it, and the backend serving from it."""

    sandbox: DockerSandbox
    run: Callable[[list[str], float], Awaitable[Outcome]]
    backend: BackendTrial


@asynccontextmanager
async def hostile(channel: str, tmp_path: Path, **kwargs: object) -> AsyncIterator[Hostile]:
    """A DockerSandbox (``kwargs`` to it) with the command-running backend; ``run`` goes
    through ``channel``. On exit the sandbox still answers, has no command left running, and
    is removed."""
    tmp_path.chmod(0o755)
    server = runner_backend(tmp_path)
    sb = DockerSandbox(mounts=backend_mounts(server), **kwargs)  # type: ignore[arg-type]
    async with sb, server.serve(sb), server.trial({}) as backend:

        async def run(argv: list[str], timeout_s: float) -> Outcome:
            started = time.monotonic()
            if channel == "exec":
                r = await sb.exec(argv, timeout=timeout_s)
                out = (r.returncode, r.timed_out, r.stdout.decode(errors="replace"))
                return Outcome(*out, r.stderr.decode(errors="replace"), r.truncated, 0.0)._replace(
                    seconds=time.monotonic() - started
                )
            args = {"argv": argv, "timeout_s": timeout_s, "max_output": MAX_OUTPUT}
            d = await backend.call("run", args)
            seconds = time.monotonic() - started
            return Outcome(
                d["exit"], d["timed_out"], d["stdout"], d["stderr"], d["truncated"], seconds
            )

        yield Hostile(sb, run, backend)
        await assert_usable(sb, run)
        name = sb.container
    assert_removed(name)


LIST_PROCESSES = "for p in /proc/[0-9]*; do tr '\\0\\n' '  ' < $p/cmdline; echo; done"
OWN_PROCESSES = (
    "/sbin/docker-init",  # the container's init (its idle command is exactly "cat")
    "python3 vwt/mcp_server.py",
    f"sh -c {LIST_PROCESSES}",  # this listing, under exec's wrapper
    "sh -c t=$1",
    "timeout --signal=KILL",
    "tr ",
)


async def assert_usable(sb: DockerSandbox, run: Callable[..., Awaitable[Outcome]]) -> None:
    """The sandbox runs commands through both channels and nothing of an attack is left."""
    leftovers: list[str] = []
    for _ in range(20):  # processes killed just now may take a moment to be reaped
        r = await sb.exec(["sh", "-c", LIST_PROCESSES])
        assert r.ok, r.stderr
        running = [line.strip() for line in r.stdout.decode().splitlines() if line.strip()]
        assert "cat" in running, running
        leftovers = [c for c in running if c != "cat" and not c.startswith(OWN_PROCESSES)]
        if not leftovers:
            break
        await asyncio.sleep(0.5)
    assert not leftovers, leftovers
    ok = await run(["python3", "-c", "print('still here')"], 30)
    assert (ok.exit, ok.stdout) == (0, "still here\n"), ok


def assert_removed(container: str) -> None:
    """``container`` no longer exists."""
    with pytest.raises(docker.errors.NotFound):
        engine().api.inspect_container(container)


def assert_killed_in_time(o: Outcome, limit: float) -> None:
    """``o`` reports the command killed at its time limit, and came back in time."""
    assert o.timed_out and o.exit == 137, o
    assert limit <= o.seconds < limit + SLACK_S, o


def _go(coro: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(coro(), 300))


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_fork_bomb_hits_the_pid_limit_and_dies_with_its_command(
    channel: str, tmp_path: Path
) -> None:
    # Each call starts two more in the background and returns: the leader exits at once.
    bomb = ["sh", "-c", "b() { b | b & }; b; sleep 3"]

    async def main() -> None:
        async with hostile(channel, tmp_path, pids_limit=64) as h:
            o = await h.run(bomb, 10)
            assert not o.timed_out and o.seconds < 10 + SLACK_S, o
            assert "fork" in o.stderr.lower() or "resource" in o.stderr.lower(), o

    _go(main)


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_memory_hog_is_killed_by_the_memory_limit(channel: str, tmp_path: Path) -> None:
    hog = ["python3", "-c", "blocks = []\nwhile True:\n    blocks.append('x' * (1 << 24))"]

    async def main() -> None:
        async with hostile(channel, tmp_path, memory="128m") as h:
            o = await h.run(hog, 60)
            assert (o.exit, o.timed_out) == (137, False), o

    _go(main)


PROBE_NETWORK = """\
import socket
results = []
for host, port in (("1.1.1.1", 53), ("172.17.0.1", 2375), ("10.0.0.1", 80)):
    s = socket.socket()
    s.settimeout(3)
    try:
        s.connect((host, port))
        results.append("connected")
    except OSError as e:
        results.append(type(e).__name__)
try:
    socket.getaddrinfo("deb.debian.org", 80)
    results.append("resolved")
except OSError as e:
    results.append(type(e).__name__)
print(" ".join(results))
"""


@pytest.mark.parametrize("channel", CHANNELS)
def test_there_is_no_network_to_reach(channel: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with hostile(channel, tmp_path) as h:
            o = await h.run(["python3", "-c", PROBE_NETWORK], 30)
            assert o.exit == 0, o
            assert "connected" not in o.stdout and "resolved" not in o.stdout, o
            assert len(o.stdout.split()) == 4, o

    _go(main)


PROBE_WRITES = """\
import os, sys
targets = sys.argv[1:]
for path in targets:
    try:
        with open(path, "a") as f:
            f.write("pwned")
        print("WROTE", path)
    except OSError as e:
        print("refused", path, type(e).__name__)
for path in ("vwt/backend.py", "/opt/vwt/README.txt"):
    try:
        os.chmod(path, 0o777)
        print("WROTE chmod", path)
    except OSError as e:
        print("refused chmod", path, type(e).__name__)
with open("mine.txt", "w") as f:
    f.write("the work tree is writable")
print("work tree ok")
"""
OUTSIDE = [
    "/etc/passwd",
    "/pwned",
    "/usr/lib/python3.11/os.py",
    "/opt/vwt/README.txt",
    "/opt/vwt/new.txt",
    "/opt/new.txt",
    "vwt/backend.py",
    "vwt/mcp_server.py",
    "vwt/tools.json",
    "vwt/_mcp_mux.py",
    "/opt/vwt-site/mcp/__init__.py",
    "vwt/_sandbox_exec.py",
    "vwt/new.py",
    "/proc/sys/kernel/hostname",
    "/sys/kernel/new",
]


def _digest(path: Path) -> str:
    files = sorted(p for p in [path, *path.rglob("*")] if p.is_file())
    return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()


@pytest.mark.parametrize("channel", CHANNELS)
def test_writes_outside_the_work_tree_are_refused(channel: str, tmp_path: Path) -> None:
    image_dir = Path(__file__).parents[2] / "scripts" / "sandbox-image"
    watched = [SERVER_FILE, SANDBOX_EXEC_FILE, image_dir, host_site() / "mcp"]
    before = [_digest(p) for p in watched]

    async def main() -> None:
        async with hostile(channel, tmp_path) as h:
            backend_file = (tmp_path / "backend.py").read_bytes()
            o = await h.run(["python3", "-c", PROBE_WRITES, *OUTSIDE], 30)
            assert o.exit == 0 and "WROTE" not in o.stdout, o
            assert o.stdout.count("refused") == len(OUTSIDE) + 2, o
            assert o.stdout.endswith("work tree ok\n"), o
            assert await h.sandbox.read_file("mine.txt") == b"the work tree is writable"
            assert (tmp_path / "backend.py").read_bytes() == backend_file

    _go(main)
    assert [_digest(p) for p in watched] == before


@pytest.mark.parametrize("channel", CHANNELS)
def test_sleeping_past_the_limit_is_killed_and_reported(channel: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with hostile(channel, tmp_path) as h:
            o = await h.run(["sh", "-c", "echo started; sleep 600"], 2)
            assert_killed_in_time(o, 2)
            assert o.stdout == "started\n"

    _go(main)


IGNORE_TERM = """\
import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGHUP, signal.SIG_IGN)
if os.fork() == 0:
    time.sleep(600)
print("ignoring", flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_process_that_ignores_sigterm_is_killed_with_its_children(
    channel: str, tmp_path: Path
) -> None:
    async def main() -> None:
        async with hostile(channel, tmp_path) as h:
            o = await h.run(["python3", "-c", IGNORE_TERM], 2)
            assert_killed_in_time(o, 2)
            assert o.stdout == "ignoring\n"

    _go(main)


@pytest.mark.parametrize("channel", CHANNELS)
def test_a_stdout_flood_is_capped_and_stopped_at_the_limit(channel: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with hostile(channel, tmp_path) as h:
            o = await h.run(["yes", "flood"], 3)
            assert_killed_in_time(o, 3)
            cap = MAX_OUTPUT if channel == "backend" else h.sandbox.max_output
            assert o.truncated and len(o.stdout) == cap, (len(o.stdout), o.truncated)
            assert o.stdout.startswith("flood\nflood\n")

    _go(main)


@pytest.mark.parametrize("channel", CHANNELS)
def test_children_left_running_die_with_their_command(channel: str, tmp_path: Path) -> None:
    async def main() -> None:
        async with hostile(channel, tmp_path) as h:
            o = await h.run(["sh", "-c", "sleep 600 & sleep 600 & echo left"], 30)
            assert (o.exit, o.timed_out, o.stdout) == (0, False, "left\n"), o
            assert o.seconds < SLACK_S

    _go(main)


@pytest.mark.parametrize("channel", CHANNELS)
def test_filling_the_work_tree_stops_at_its_size(channel: str, tmp_path: Path) -> None:
    fill = ["sh", "-c", "head -c 300m /dev/zero > big; echo status $?"]

    async def main() -> None:
        async with hostile(channel, tmp_path) as h:
            o = await h.run(fill, 60)
            assert o.exit == 0 and o.stdout != "status 0\n", o
            assert "No space left" in o.stderr, o
            await h.sandbox.exec(["rm", "big"])

    _go(main)


def test_processes_taken_out_of_the_group_die_with_their_command(tmp_path: Path) -> None:
    # Only run_limited adopts such orphans; exec runs the runner's own commands, not models'.
    async def main() -> None:
        async with hostile("backend", tmp_path) as h:
            o = await h.run(["python3", "-c", ESCAPE], 30)
            assert (o.exit, o.timed_out) == (0, False), o
            assert o.seconds < SLACK_S, "the escaped processes held the pipes"
            o = await h.run(["sh", "-c", "setsid sleep 600 & echo $!"], 30)
            assert o.exit == 0, o

    _go(main)
