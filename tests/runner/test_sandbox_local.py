"""LocalSandbox: commands, timeouts, files, mounts, spawned JSON-lines processes, stop."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from runner import _sandbox_proc
from runner._sandbox_base import Mount, Sandbox
from runner._sandbox_local import LocalSandbox
from runner.errors import RunnerError

ECHO_SERVER = b"""\
import json, os, sys
for line in sys.stdin:
    msg = json.loads(line)
    sys.stdout.write(json.dumps({"echo": msg, "pid": os.getpid()}) + "\\n")
    sys.stdout.flush()
"""
"""A JSON-lines echo server, standard library only, as an environment backend would be."""


async def json_roundtrip(sandbox: Sandbox, messages: list[object]) -> list[dict[str, object]]:
    """Start the echo server in ``sandbox`` and send it ``messages`` one line each."""
    await sandbox.write_file("srv/echo.py", ECHO_SERVER)
    proc = await sandbox.spawn(["python3", "srv/echo.py"])
    assert proc.stdin is not None and proc.stdout is not None
    replies = []
    for msg in messages:
        proc.stdin.write(json.dumps(msg).encode() + b"\n")
        await proc.stdin.drain()
        replies.append(json.loads(await asyncio.wait_for(proc.stdout.readline(), 30)))
    return replies


def running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie awaiting its reaper."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def in_sandbox(
    fn: Callable[[LocalSandbox], Awaitable[None]], mounts: list[Mount] | None = None
) -> None:
    """Run ``fn`` against a started LocalSandbox in a fresh event loop."""

    async def main() -> None:
        async with LocalSandbox(mounts=mounts or []) as sb:
            await fn(sb)

    asyncio.run(main())


def test_exec_runs_in_the_workdir_with_a_minimal_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("VWT_TEST_SECRET", "do-not-leak")

    async def check(sb: LocalSandbox) -> None:
        pwd = await sb.exec(["pwd"])
        assert pwd.ok and pwd.stdout.decode().strip() == str(sb.workdir)
        env = (await sb.exec(["env"])).stdout.decode()
        assert "VWT_TEST_SECRET" not in env
        assert f"HOME={sb.workdir}" in env.splitlines()

    in_sandbox(check)


def test_exec_passes_input_and_reports_exit_status() -> None:
    async def check(sb: LocalSandbox) -> None:
        echoed = await sb.exec(["cat"], input=b"hello\x00world")
        assert echoed.stdout == b"hello\x00world" and not echoed.timed_out
        failed = await sb.exec(["sh", "-c", "echo oops >&2; exit 3"])
        assert (failed.returncode, failed.stderr, failed.ok) == (3, b"oops\n", False)
        missing = await sb.exec(["no-such-command-vwt"])
        assert missing.returncode == 127 and b"no-such-command-vwt" in missing.stderr

    in_sandbox(check)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root has a user to drop to")
@pytest.mark.parametrize("way", ["setpriv", "user="])
def test_under_root_commands_run_as_nobody_with_no_other_group_either_way(
    way: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if way == "setpriv" and _sandbox_proc._SETPRIV is None:
        pytest.skip("no setpriv on /usr/bin:/bin")
    if way == "user=":  # where there is no setpriv: Python's own drop
        monkeypatch.setattr(_sandbox_proc, "_SETPRIV", None)
    ids = "id -u; id -g; id -G; grep CapEff /proc/self/status"

    async def check(sb: LocalSandbox) -> None:
        r = await sb.exec(["sh", "-c", ids])
        assert r.ok and r.stdout.decode().split() == [*["65534"] * 3, "CapEff:", "0" * 16], r
        proc = await sb.spawn(["sh", "-c", f"{ids}; cat"])
        assert proc.stdout is not None
        out = [(await proc.stdout.readline()).decode().split() for _ in range(4)]
        assert out == [["65534"], ["65534"], ["65534"], ["CapEff:", "0" * 16]]
        missing = await sb.exec(["no-such-command-vwt"])
        assert missing.returncode == 127 and b"no-such-command-vwt" in missing.stderr
        await sb.write_file("plain.txt", b"not a program")
        cannot = await sb.exec([str(sb.workdir / "plain.txt")])
        assert cannot.returncode == 126 and b"plain.txt" in cannot.stderr, cannot

    in_sandbox(check)


def test_timeout_kills_the_command_and_its_children_and_keeps_partial_output() -> None:
    async def check(sb: LocalSandbox) -> None:
        started = time.monotonic()
        r = await sb.exec(["sh", "-c", "sleep 600 & echo $!; wait"], timeout=0.5)
        assert time.monotonic() - started < 300  # not held until the 600 s child ends
        assert r.timed_out and not r.ok and r.returncode < 0
        assert not running(int(r.stdout.decode().strip()))

    in_sandbox(check)


def test_exec_keeps_at_most_max_output_of_a_flood(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LocalSandbox, "max_output", 1000)

    async def check(sb: LocalSandbox) -> None:
        flood = await sb.exec(["yes"], timeout=1)
        assert flood.timed_out and flood.truncated and flood.stdout == b"y\n" * 500
        short = await sb.exec(["sh", "-c", "printf 12345; printf abc >&2"])
        assert (short.stdout, short.stderr, short.truncated) == (b"12345", b"abc", False)

    in_sandbox(check)


def test_files_resolve_inside_the_workdir() -> None:
    async def check(sb: LocalSandbox) -> None:
        await sb.write_file("a/b/c.txt", b"data")
        assert await sb.read_file("a/b/c.txt") == b"data"
        assert (await sb.exec(["cat", "a/b/c.txt"])).stdout == b"data"
        await sb.write_file("/abs.txt", b"x")
        assert (sb.workdir / "abs.txt").read_bytes() == b"x"
        assert sb.host_path("../../etc/passwd") == sb.workdir / "etc/passwd"
        with pytest.raises(FileNotFoundError):
            await sb.read_file("missing.txt")

    in_sandbox(check)


def test_read_only_mounts_are_copies_and_writable_mounts_reach_the_host(tmp_path: Path) -> None:
    ro, rw = tmp_path / "ro", tmp_path / "rw"
    ro.mkdir()
    rw.mkdir()
    rw.chmod(0o777)  # writable by nobody, whom commands run as under root
    (ro / "f.txt").write_text("original")

    async def check(sb: LocalSandbox) -> None:
        assert await sb.read_file("in/ro/f.txt") == b"original"
        await sb.exec(["sh", "-c", "echo changed > in/ro/f.txt"])
        await sb.write_file("out/new.txt", b"result")

    in_sandbox(check, [Mount(ro, "in/ro"), Mount(rw, "/out", read_only=False)])
    assert (ro / "f.txt").read_text() == "original"
    assert (rw / "new.txt").read_bytes() == b"result"


def test_bad_mounts_are_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="does not exist"):
        LocalSandbox(mounts=[Mount(tmp_path / "absent", "x")])
    for target in ("../escape", "/", "a,b"):
        with pytest.raises(RunnerError, match="not allowed"):
            LocalSandbox(mounts=[Mount(tmp_path, target)])


def test_spawn_round_trips_json_lines() -> None:
    big = "x" * 200_000  # longer than asyncio's default 64 KiB line limit

    async def check(sb: LocalSandbox) -> None:
        replies = await json_roundtrip(sb, [{"n": 1}, ["two"], {"big": big}])
        assert [r["echo"] for r in replies] == [{"n": 1}, ["two"], {"big": big}]
        assert len({r["pid"] for r in replies}) == 1

    in_sandbox(check)


def test_stop_kills_spawned_processes_and_removes_the_workdir() -> None:
    async def main() -> tuple[Path, int, asyncio.subprocess.Process]:
        sb = LocalSandbox()
        await sb.start()
        reply = (await json_roundtrip(sb, [{"ping": True}]))[0]
        proc = sb._procs[0]
        workdir = sb.workdir
        await sb.stop()
        await sb.stop()  # a second stop is harmless
        assert isinstance(reply["pid"], int)
        return workdir, reply["pid"], proc

    workdir, pid, proc = asyncio.run(main())
    assert proc.returncode is not None and not running(pid)
    assert not workdir.exists()


def test_lifecycle_misuse_is_refused() -> None:
    sb = LocalSandbox()
    with pytest.raises(RuntimeError, match="not started"):
        _ = sb.workdir

    async def twice() -> None:
        async with sb:
            with pytest.raises(RuntimeError, match="already started"):
                await sb.start()

    asyncio.run(twice())


def test_a_start_failing_part_way_removes_what_it_made() -> None:
    """``async with`` a sandbox whose start fails after making its working directory (as a
    cancelled start would) leaves nothing behind."""
    made: list[Path] = []

    class Failing(LocalSandbox):
        async def start(self) -> None:
            await super().start()
            made.append(self.workdir)
            raise RuntimeError("cancelled part-way")

    async def go() -> None:
        with pytest.raises(RuntimeError, match="part-way"):
            async with Failing():
                pass

    asyncio.run(go())
    assert len(made) == 1 and not made[0].exists()
