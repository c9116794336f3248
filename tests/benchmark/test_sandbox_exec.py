"""run_limited: exit status, output caps, time limits that kill the whole process group, and
the contract a family backend imports it by (beside the backend server, in both sandboxes)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

import pytest

from benchmark import BackendTrial, McpBackend
from benchmark._sandbox_exec import OPT_ENV, opt_dir, run_limited
from runner._sandbox_base import Mount, Sandbox
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import docker_status
from runner._sandbox_local import LocalSandbox
from tests.runner.test_sandbox_local import running

RUNNER_BACKEND = """\
from _sandbox_exec import opt_dir, run_limited


class BackendError(Exception):
    pass


class Backend:
    def __init__(self, state):
        self.state = state

    def call(self, tool, args):
        if tool == "opt":
            return opt_dir()
        return run_limited(args["argv"], ".", args["timeout_s"], args.get("max_output", 65536))

    def dump(self):
        return self.state
"""
"""A backend that runs commands through ``_sandbox_exec`` imported as a sandbox offers it."""


def assert_result(r: dict[str, object], exit: int, *, timed_out: bool = False) -> None:
    """``r`` has the run_limited shape, exit status ``exit`` and the timeout flag given."""
    assert set(r) == {"exit", "stdout", "stderr", "timed_out", "truncated"}
    assert (r["exit"], r["timed_out"]) == (exit, timed_out), r


def assert_dies(pid: int) -> None:
    """Process ``pid`` is gone (or a zombie) within 5 s: a SIGKILL takes effect asynchronously."""
    deadline = time.monotonic() + 5
    while running(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(pid), f"process {pid} still runs"


def test_exit_status_output_and_environment(tmp_path: Path) -> None:
    r = run_limited(["sh", "-c", "echo out; echo err >&2; pwd; exit 3"], str(tmp_path), 10)
    assert_result(r, 3)
    assert (r["stdout"], r["stderr"]) == (f"out\n{tmp_path}\n", "err\n")
    env = run_limited(["sh", "-c", "echo $A-$HOME"], str(tmp_path), 10, env={"A": "set"})
    assert env["stdout"] == f"set-{Path.home()}\n"
    quiet = run_limited(["cat"], str(tmp_path), 10)  # stdin is empty, never the caller's
    assert_result(quiet, 0)


def test_missing_and_unexecutable_programs_answer_as_a_shell_would(tmp_path: Path) -> None:
    (tmp_path / "script.sh").write_text("echo hi\n")
    missing = run_limited(["no-such-program-vwt"], str(tmp_path), 10)
    assert_result(missing, 127)
    assert "no-such-program-vwt" in str(missing["stderr"])
    assert_result(run_limited(["./absent"], str(tmp_path), 10), 127)
    assert_result(run_limited(["./script.sh"], str(tmp_path), 10), 126)


def test_a_command_that_cannot_be_started_is_reported_not_raised(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def no_fork(*args: object, **kwargs: object) -> None:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(subprocess, "Popen", no_fork)
    r = run_limited(["true"], str(tmp_path), 10)
    assert_result(r, 126)
    assert r["stderr"] == "true: Resource temporarily unavailable\n"


def test_bad_arguments_raise(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="needs a command"):
        run_limited([], str(tmp_path), 1)
    with pytest.raises(ValueError, match="bad limits"):
        run_limited(["true"], str(tmp_path), 0)
    with pytest.raises(NotADirectoryError):
        run_limited(["true"], str(tmp_path / "absent"), 1)


def test_the_time_limit_kills_the_whole_group_even_when_sigterm_is_ignored(
    tmp_path: Path,
) -> None:
    script = "trap '' TERM; sleep 60 & echo $!; wait"
    started = time.monotonic()
    r = run_limited(["sh", "-c", script], str(tmp_path), 0.5)
    assert time.monotonic() - started < 50  # not held until the 60 s child ends
    assert_result(r, 137, timed_out=True)
    assert_dies(int(str(r["stdout"]).strip()))


def test_children_left_behind_die_when_the_command_exits(tmp_path: Path) -> None:
    started = time.monotonic()
    r = run_limited(["sh", "-c", "sleep 60 & echo $!"], str(tmp_path), 30)
    assert time.monotonic() - started < 30  # returned with the command, not at its limit
    assert_result(r, 0)
    assert_dies(int(str(r["stdout"]).strip()))


def test_a_command_that_closes_its_output_still_runs_to_its_end(tmp_path: Path) -> None:
    r = run_limited(["sh", "-c", "exec >&- 2>&-; sleep 0.3; touch done"], str(tmp_path), 10)
    assert_result(r, 0)
    assert (tmp_path / "done").exists()


def test_output_is_capped_and_a_flood_neither_blocks_nor_fills_memory(tmp_path: Path) -> None:
    flood = run_limited(["yes"], str(tmp_path), 1, max_output=1000)
    assert_result(flood, 137, timed_out=True)
    assert flood["truncated"] and flood["stdout"] == "y\n" * 500
    big = "import sys; sys.stderr.write('e' * 300000); print('done')"
    r = run_limited([sys.executable, "-c", big], str(tmp_path), 10, max_output=100)
    assert_result(r, 0)
    assert r["truncated"] and r["stdout"] == "done\n" and r["stderr"] == "e" * 100
    exact = run_limited(["printf", "abc"], str(tmp_path), 10, max_output=3)
    assert exact["stdout"] == "abc" and not exact["truncated"]


def test_a_signal_death_is_128_plus_the_signal(tmp_path: Path) -> None:
    assert_result(run_limited(["sh", "-c", "kill -KILL $$"], str(tmp_path), 10), 137)
    assert_result(run_limited(["sh", "-c", "kill -TERM $$"], str(tmp_path), 10), 143)


def test_opt_dir_is_the_env_var_else_the_repository_copy(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(OPT_ENV, str(tmp_path))
    assert opt_dir() == str(tmp_path)
    monkeypatch.delenv(OPT_ENV)
    assert Path(opt_dir()) == Path(__file__).parents[2] / "scripts" / "sandbox-image"


async def assert_runs_through_backend(sb: Sandbox, backend: McpBackend) -> None:
    """A backend served in ``sb`` imports run_limited beside the server: a command's exit code
    comes back, one past its time limit is killed (137, timed out), and the library directory
    is the sandbox's."""
    async with backend.serve(sb), backend.trial({}) as t:
        ok = await t.call("run", {"argv": ["true"], "timeout_s": 5})
        assert_result(ok, 0)
        slow = {"argv": ["sleep", "30"], "timeout_s": 0.5}
        assert_result(await t.call("run", slow), 137, timed_out=True)
        opt = await t.call("opt")
        if isinstance(sb, LocalSandbox):
            # Commands running as nobody (under root) get a copy of it in the work tree.
            assert opt == (opt_dir() if sb.user is None else str(sb.workdir / ".vwt-opt"))
        else:
            assert opt == "/opt/vwt"


def runner_backend(tmp_path: Path) -> McpBackend:
    """The MCP server of a backend that runs commands (:data:`RUNNER_BACKEND`)."""
    (tmp_path / "backend.py").write_text(RUNNER_BACKEND)
    return McpBackend(tmp_path / "backend.py", [], "runner", timeout=120)


def backend_mounts(backend: McpBackend) -> list[Mount]:
    """The worker's mounts for ``backend``."""
    return [Mount(*m) for m in backend.mounts()]


def test_a_backend_imports_it_beside_the_server_in_a_local_sandbox(tmp_path: Path) -> None:
    async def main() -> None:
        backend = runner_backend(tmp_path)
        async with LocalSandbox(mounts=backend_mounts(backend)) as sb:
            await assert_runs_through_backend(sb, backend)

    asyncio.run(main())


ESCAPE = """\
import os, time
if os.fork() == 0:
    os.setsid()
    child = os.fork()
    if child == 0:
        time.sleep(600)
    print(os.getpid(), child, flush=True)
    time.sleep(600)
"""
"""Leaves two sleepers in a session of their own (outside the command's process group),
holding its stdout; prints their pids."""


def test_a_backend_kills_what_a_command_took_out_of_its_group(tmp_path: Path) -> None:
    async def main() -> None:
        backend = runner_backend(tmp_path)
        async with (
            LocalSandbox(mounts=backend_mounts(backend)) as sb,
            backend.serve(sb),
            backend.trial({}) as t,
        ):
            await check_escapes(t, sb.python[0])

    asyncio.run(main())


async def check_escapes(t: BackendTrial, python: str) -> None:
    """Processes a command left outside its group die when it ends, and hold up nothing
    (``python``: an interpreter the sandbox's user can run)."""
    args = {"argv": [python, "-c", ESCAPE], "timeout_s": 30}
    started = time.monotonic()
    r = await t.call("run", args)
    assert time.monotonic() - started < 30, "the escaped process held the pipes"
    assert_result(r, 0)
    for pid in str(r["stdout"]).split():
        assert_dies(int(pid))
    escaped_pipe = ["sh", "-c", "setsid sleep 600 & echo $!"]
    r = await t.call("run", {"argv": escaped_pipe, "timeout_s": 30})
    assert_dies(int(str(r["stdout"]).strip()))


_AVAILABLE, _REASON = docker_status()


@pytest.mark.docker
@pytest.mark.skipif(not _AVAILABLE, reason=f"{_REASON}; run `make sandbox`")
def test_a_backend_imports_it_beside_the_server_in_a_docker_sandbox(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)

    async def main() -> None:
        backend = runner_backend(tmp_path)
        async with DockerSandbox(mounts=backend_mounts(backend)) as sb:
            await assert_runs_through_backend(sb, backend)

    asyncio.run(main())
