"""A framework harness's process and its loopback endpoints, with a stand-in framework
(``_fake_driver.py``, vwt's own Python): model calls go through the gateway and are recorded,
tools go over MCP through the drift proxy, and a framework that crashes, exits non-zero,
hangs or floods its output ends only its own trial, ``invalid`` with the cause."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import zlib
from pathlib import Path

import httpx
import pytest

from benchmark import CallDocument, default_cycle_spec_path, load_litellm
from benchmark.harness import HARNESSES, TIMEOUT_ENV
from conditions import CycleSpec, TaskFamilyAxis
from runner import Batch, TrialRecord, TrialStore, execute, plan_phase
from runner._worker import run_batch_async, unpack_call_blobs
from submissions import reference_bundles
from tests.benchmark.harness._fakes import CRASHES_ON_THE_FIRST_TASK, FakeFramework

SPEC = CycleSpec.load(default_cycle_spec_path())


def _batches(harness: str, tasks: int = 2, with_recipe: bool = False) -> list[Batch]:
    """The source condition on the support-ops dev split under ``harness``: task 0 names
    ticket TCK-10000, task 1 TCK-10001."""
    source = SPEC.source.model_copy(
        update={
            "task_family": TaskFamilyAxis(family="support_ops", split="dev"),
            "harness": harness,
        }
    )
    bundles = [b for b in reference_bundles() if b.manifest.name == "prompt-recipe"]
    return plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=[(source.id, source)],
        bundles=bundles if with_recipe else [],
        tasks_per_split=tasks,
        k=1,
    )


def _records(
    harness: FakeFramework, monkeypatch: pytest.MonkeyPatch, server: bool = True
) -> list[TrialRecord]:
    """The records of a batch of 2 trials under ``harness``: as a batch runs them (one process
    server forking a process per trial), or (``server`` False) a fresh process per trial."""
    load_litellm()  # as a worker does before its first batch: not on a trial's clock
    monkeypatch.setitem(HARNESSES, harness.id, harness)
    if not server:
        monkeypatch.setattr(FakeFramework, "session", lambda self: contextlib.nullcontext())
    (batch,) = _batches(harness.id)
    rows = asyncio.run(run_batch_async(batch, "local", concurrency=2))
    return [TrialRecord.model_validate_json(r.record) for r in rows]


def test_a_framework_process_works_through_the_gateway_and_mcp(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = FakeFramework("plain")
    monkeypatch.setitem(HARNESSES, fake.id, fake)
    (batch,) = _batches(fake.id, with_recipe=True)[1:]
    assert batch.arm == "with"
    rows = asyncio.run(run_batch_async(batch, "local", concurrency=2))
    outcomes = []
    for row in rows:
        record = TrialRecord.model_validate_json(row.record)
        assert record.harness == "fake@plain" and record.invalid is None, record.invalid
        outcomes.append(record.outcome)
        trace = json.loads(zlib.decompress(row.trace))
        assert trace[0]["role"] == "system" and "<recipe" in trace[0]["content"]
        assert "INTERFACE CHANGE:" in trace[0]["content"]  # the stop protocol is kept
        # every model call went through the gateway: recorded, one per turn
        blobs = unpack_call_blobs(row.calls)
        document = CallDocument.model_validate_json(blobs[record.calls_sha256 or ""])
        assert len(document.calls) == record.turns >= 2
        assert record.usage.calls == record.turns
        # each tool message carries the MCP exchange behind it
        calls = {
            tc["id"]: tc["function"]
            for m in trace
            if m["role"] == "assistant"
            for tc in m.get("tool_calls") or []
        }
        tools = [m for m in trace if m["role"] == "tool"]
        assert len(tools) == record.tool_calls >= 1
        for m in tools:
            params = m["mcp"]["request"]["params"]
            assert params["name"] == calls[m["tool_call_id"]]["name"]
            assert params["arguments"] == json.loads(calls[m["tool_call_id"]]["arguments"])
    assert "success" in outcomes  # the recipe's model does the work through the stand-in


@pytest.mark.parametrize("server", [True, False], ids=["server", "per-trial"])
def test_a_crash_ends_only_its_trial_invalid_with_the_cause(
    monkeypatch: pytest.MonkeyPatch, server: bool
) -> None:
    fake = FakeFramework("crash", {"FAKE_CRASH_ON": "TCK-10000"})
    records = _records(fake, monkeypatch, server)
    crashed, other = records
    assert crashed.outcome == "invalid" and crashed.turns == 1
    assert crashed.invalid == (
        "harness fake@crash: the framework exited with status 1: RuntimeError: boom: the fake "
        "framework crashed on purpose"
    )
    assert other.outcome != "invalid" and other.invalid is None and other.turns >= 2


def test_a_non_zero_exit_is_invalid_naming_the_status(monkeypatch: pytest.MonkeyPatch) -> None:
    for record in _records(FakeFramework("exit", {"FAKE_EXIT": "3"}), monkeypatch):
        assert record.outcome == "invalid"
        assert record.invalid == "harness fake@exit: the framework exited with status 3"


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie no longer does: its parent is gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def _ends(pid: int) -> bool:
    """Whether process ``pid`` stops running within a minute: a SIGKILL takes effect when the
    process is next scheduled, which on a loaded machine is not at once."""
    for _ in range(600):
        if not _running(pid):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("server", [True, False], ids=["server", "per-trial"])
def test_a_hang_is_killed_at_the_limit_with_its_children(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: bool
) -> None:
    pidfile = tmp_path / "pids"
    monkeypatch.setenv(TIMEOUT_ENV, "45")
    env = {"FAKE_HANG_ON": "TCK-10000", "FAKE_PIDFILE": str(pidfile)}
    hung, other = _records(FakeFramework("hang", env), monkeypatch, server)
    assert hung.outcome == "invalid"
    assert hung.invalid == "harness fake@hang: no result within 45 s (the framework was killed)"
    assert other.outcome != "invalid", other.invalid
    pids = list(map(int, pidfile.read_text().split()))  # the driver and the child it started
    assert len(pids) == 2 and all(map(_ends, pids))


def test_a_lost_process_server_ends_the_trials_in_flight_invalid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pidfile = tmp_path / "pid"
    env = {"FAKE_KILL_PARENT_ON": "TCK-10000", "FAKE_PIDFILE": str(pidfile)}
    for record in _records(FakeFramework("killer", env), monkeypatch):  # in flight, or after
        assert record.outcome == "invalid"
        assert record.invalid == "harness fake@killer: its process server exited with status -9"
    assert _ends(int(pidfile.read_text()))  # its trial's process did not outlive it


def test_a_flood_of_output_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"FAKE_NOISE": "8", "FAKE_EXIT": "2"}  # 8 MiB on each stream, then exit 2
    for record in _records(FakeFramework("noise", env), monkeypatch):
        assert record.invalid == (
            "harness fake@noise: the framework exited with status 2: the last line of the noise"
        )


def test_a_connection_off_loopback_is_refused_and_noted(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeFramework("phone", {"FAKE_PHONE_HOME": "1"})
    records = _records(fake, monkeypatch)
    assert all(r.invalid is None for r in records)
    # the notes are in the run (not the record): run one trial directly
    from benchmark import McpBackend, family, run_trial, serve
    from benchmark._seeds import request_seed
    from benchmark.harness import AgentArtifacts
    from runner import Mount, make_sandbox

    (batch,) = _batches(fake.id, tasks=1)
    fam = family("support_ops")

    async def go() -> list[str]:
        backend = McpBackend.of(fam)
        sandbox = make_sandbox("local", mounts=[Mount(*m) for m in backend.mounts()])
        async with sandbox, backend.serve(sandbox):
            result = await run_trial(
                fam,
                fam.generate("dev", 0, batch.split_seed),
                serve(fam.env_id, batch.interface),
                backend,
                model=batch.condition.model.model,
                harness=fake,
                artifacts=AgentArtifacts(),
                seed=request_seed(1, "baseline"),
            )
        return result.run.notes

    assert asyncio.run(go()) == ["fake@phone blocked a connection to 192.0.2.1:443"]


def test_an_invalid_framework_trial_is_retried_and_every_attempt_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A broken harness plugin registered here; a small run's worker processes are forked from
    # this one, so they have it too.
    monkeypatch.setitem(HARNESSES, "fake@crash", CRASHES_ON_THE_FIRST_TASK)
    store = TrialStore(tmp_path / "t.sqlite")
    done = execute(store, _batches("fake@crash"), sandbox="local", max_attempts=2)
    assert done.retried == 1 and done.still_invalid == 1
    assert done.first_invalid is not None and "RuntimeError: boom" in done.first_invalid
    latest = {r.task_index: r for r in store.records("frozen")}
    assert latest[0].outcome == "invalid" and latest[0].attempt == 2
    assert latest[1].outcome != "invalid" and latest[1].attempt == 1


def test_the_endpoints_answer_only_the_trials_token(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmark import ModelPolicy
    from benchmark.harness import AgentRun
    from benchmark.harness._loopback import Loopback

    async def no_tool(name: str, args: dict[str, object]) -> object:
        raise AssertionError("not called")

    async def go() -> tuple[int, int, int]:
        loop = Loopback(
            model="sim/acme-2",
            seed=1,
            endpoint=None,
            policy=ModelPolicy(),
            run=AgentRun(),
            tools=[],
            call=no_tool,  # type: ignore[arg-type]
            log=None,
        )
        async with loop.serving(), httpx.AsyncClient() as http:
            body = {"model": "acme-2", "messages": [{"role": "user", "content": "hi"}]}
            url = loop.model_url + "/chat/completions"
            anonymous = await http.post(url, json=body)
            wrong = await http.post(url, json=body, headers={"Authorization": "Bearer nope"})
            mcp = await http.post(loop.mcp_url, json={}, headers={"Authorization": "Bearer x"})
        return anonymous.status_code, wrong.status_code, mcp.status_code

    assert asyncio.run(go()) == (401, 401, 401)


def test_a_trial_does_nothing_until_the_server_has_reported_its_pid(tmp_path: Path) -> None:
    """Otherwise a trial could kill its server before the pid that lets vwt kill the trial was
    reported, and outlive everything (as a loaded CI once showed). The server's stdout here is
    a full pipe, so it cannot report: the trial must not start until the pipe is read."""
    import fcntl
    import subprocess
    import sys

    drivers = Path(__file__).resolve().parents[3] / "benchmark" / "harness" / "drivers"
    driver = tmp_path / "marker_driver.py"
    driver.write_text(
        "import sys, pathlib\n"
        f"sys.path.insert(0, {str(drivers)!r})\n"
        "import _driver\n"
        "async def run(trial):\n"
        "    pathlib.Path(trial['marker']).write_text('ran')\n"
        "    return {'ended': 'answered', 'final': ''}\n"
        "_driver.main(run)\n"
    )
    trial = tmp_path / "t1" / "trial.json"
    trial.parent.mkdir()
    marker = tmp_path / "ran"
    trial.write_text(json.dumps({"marker": str(marker), "result": str(trial.parent / "out")}))
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETFL, os.O_NONBLOCK)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(write, b"x" * 4096)  # fill the pipe: the server's first report blocks
    fcntl.fcntl(write, fcntl.F_SETFL, 0)
    server = subprocess.Popen(
        [sys.executable, "-s", str(driver), "--serve"],
        stdin=subprocess.PIPE,
        stdout=write,
        start_new_session=True,
    )
    os.close(write)
    try:
        assert server.stdin is not None
        server.stdin.write(f"{trial}\n".encode())
        server.stdin.flush()
        for _ in range(30):  # the trial would have written its marker by now
            time.sleep(0.1)
            assert not marker.exists()
        reported = b""
        while b'"ended"' not in reported:
            reported += os.read(read, 65536)
        assert marker.read_text() == "ran"  # once reported, it ran
        assert reported.index(b'"started"') < reported.index(b'"ended"')
        server.stdin.close()
        assert server.wait(60) == 0
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, 9)
        os.close(read)
