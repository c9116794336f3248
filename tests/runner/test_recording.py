"""Every trial's model calls reach the store with it, blobs shared by trials stored once,
secrets never; with the cache, a run again after trials broke off asks the model only what it
had not answered (counted at a sim server on loopback)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmark import CallDocument, default_cycle_spec_path
from benchmark.sim import FaultPlan, SimServer
from conditions import CycleSpec, ModelEndpoint
from reports import call_file
from runner import EXECUTOR_ENV, Batch, TrialRecord, TrialStore, execute, plan_phase
from runner._dev import dev_condition
from submissions import Bundle, reference_bundles, reference_dir

MODEL = "openai/acme-2"
KEY_ENV = "VWT_TEST_RECORDING_KEY"
KEY = "sk-test-recording-7f3a9c1e55"


def _plan(
    endpoint: ModelEndpoint | None, bundles: list[Bundle], tasks: int = 3, k: int = 2
) -> list[Batch]:
    spec = CycleSpec.load(default_cycle_spec_path())
    source = spec.source
    if endpoint is not None:
        data: dict[str, Any] = spec.model_dump(mode="json")
        data["catalogue"]["models"].append({"model": MODEL, "version": "2", "provider": "acme"})
        data["endpoints"] = {MODEL: endpoint.model_dump(mode="json")}
        spec = CycleSpec.model_validate(data)
    condition = dev_condition(source, MODEL if endpoint else None, endpoint)
    return plan_phase(
        cycle=spec.cycle,
        cycle_seed=spec.seed,
        phase="dev",
        conditions=[(condition.id, condition)],
        bundles=bundles,
        tasks_per_split=tasks,
        k=k,
        interfaces=spec.interfaces,
        endpoints=spec.endpoints,
    )


@pytest.fixture()
def local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXECUTOR_ENV, "local")


def test_the_store_holds_every_call_of_every_trial_and_shared_blobs_once(
    tmp_path: Path, local: None
) -> None:
    store = TrialStore(tmp_path / "t.sqlite")
    execute(store, _plan(None, reference_bundles()[1:2]), sandbox="local")
    records = store.records()
    assert len(records) == 12
    per_trial = 0
    tools: set[str | None] = set()
    for r in records:
        assert r.calls_sha256 is not None
        calls = store.calls(r.calls_sha256)
        assert calls is not None and len(calls) == r.turns
        # the trace is the messages, each tool result with its MCP exchange beside it
        stored = json.loads(store.trace(r.trace_sha256) or b"")
        trace = [{k: v for k, v in m.items() if k != "mcp"} for m in stored]
        for call in calls:
            sent = list(call.request.messages)
            assert sent == trace[: len(sent)]  # requests are the trace as it grew
            assert call.message == trace[len(sent)]  # and each reply is the next message
            assert call.request.model == r.model
        raw = store.blob(r.calls_sha256)
        assert raw is not None
        doc = CallDocument.model_validate_json(raw)
        per_trial += len(doc.blob_hashes())
        tools |= {c.request.tools for c in doc.calls}
    assert len(tools) == 1  # one tool list blob for every request of the condition
    with sqlite3.connect(store.path) as db:
        (blobs,) = db.execute("SELECT COUNT(*) FROM blobs").fetchone()
        (replies,) = db.execute("SELECT COUNT(*) FROM replies").fetchone()
    assert blobs < per_trial  # shared system prompts, instructions and tools are kept once
    assert replies == sum(r.turns for r in records)


def _secret_bundle() -> Bundle:
    """The prompt-recipe submission with the key pasted into its recipe."""
    b = reference_bundles()[1]
    files = {p: f"{t}\n\nservice token: {KEY}\n" for p, t in b.files.items()}
    return Bundle(manifest=b.manifest, files=files)


def _decompressed(path: Path) -> bytes:
    with sqlite3.connect(path) as db:
        rows = [
            b for (b,) in db.execute("SELECT body FROM blobs UNION ALL SELECT body FROM traces")
        ]
        texts = [
            r
            for (r,) in db.execute("SELECT record FROM trials UNION ALL SELECT reply FROM replies")
        ]
    return b"".join(zlib.decompress(b) for b in rows) + "".join(texts).encode()


class _Hooked(SimServer):
    """A sim server that calls ``after`` once each request is answered or refused."""

    def __init__(self) -> None:
        super().__init__(log=lambda _: self.after())

    def after(self) -> None:
        """Nothing by default."""


@pytest.fixture()
def server() -> Iterator[_Hooked]:
    s = _Hooked()
    with s:
        yield s


def test_a_key_in_the_environment_never_reaches_the_store_or_a_release(
    tmp_path: Path, local: None, server: _Hooked, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)  # sent with every request, and pasted into an artifact
    endpoint = ModelEndpoint(api_base=server.url, api_key_env=KEY_ENV)
    store = TrialStore(tmp_path / "t.sqlite")
    execute(store, _plan(endpoint, [_secret_bundle()], tasks=2, k=1), sandbox="local")
    records = store.records()
    assert records and all(r.outcome != "invalid" for r in records)
    assert server.stats.answered == sum(r.turns for r in records)
    with_arm = next(r for r in records if r.arm == "with")
    calls = store.calls(with_arm.calls_sha256 or "")
    assert calls and "[redacted]" in json.dumps(calls[0].request.messages)
    for path in tmp_path.iterdir():  # the database, its WAL and journal, raw
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY.encode() not in _decompressed(store.path)
    published = [call_file(r.calls_sha256 or "", store.blob) for r in records]
    assert all(published)
    assert not any(KEY.encode() in zlib.decompress(p or b"", wbits=31) for p in published)


def _stop_after(server: _Hooked, answered: int) -> None:
    """From the ``answered``-th answer on, every request is refused (400: not retried), as if
    the run had broken off there."""

    def after() -> None:
        if server.stats.answered >= answered:
            server.faults = FaultPlan(fail_first=10**9, status=400)

    server.after = after  # type: ignore[method-assign]


def _made(records: list[TrialRecord], store: TrialStore) -> tuple[set[str], set[str]]:
    """Request hashes of the calls the model answered, and of those the cache answered."""
    made: set[str] = set()
    cached: set[str] = set()
    for r in records:
        for c in CallDocument.model_validate_json(store.blob(r.calls_sha256 or "") or b"").calls:
            if c.reply.message is not None:
                (cached if c.reply.cached else made).add(c.request_sha)
    return made, cached


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_a_run_again_with_the_cache_asks_nothing_already_answered(
    tmp_path: Path, local: None, server: _Hooked, monkeypatch: pytest.MonkeyPatch, cache: bool
) -> None:
    monkeypatch.setenv(KEY_ENV, "k-test-cache-001")
    endpoint = ModelEndpoint(api_base=server.url, api_key_env=KEY_ENV)
    batches = _plan(endpoint, [], tasks=4, k=2)
    store = TrialStore(tmp_path / "t.sqlite")
    _stop_after(server, 12)
    first = execute(store, batches, sandbox="local", max_attempts=1)
    assert first.still_invalid > 0
    with sqlite3.connect(store.path) as db:
        answered_before = {k for (k,) in db.execute("SELECT request_sha FROM replies")}
    assert len(answered_before) == server.stats.answered  # every answer stored, trial or not

    server.faults, server.after = FaultPlan(), lambda: None  # type: ignore[method-assign]
    requests_before = server.stats.requests
    again = execute(store, batches, sandbox="local", cache=[store] if cache else ())
    records = [r for r in store.records() if r.attempt > 1]
    assert again.still_invalid == 0 and records
    made, cached = _made(records, store)
    asked = server.stats.requests - requests_before
    assert asked == again.model_calls and again.cached_calls == len(cached)
    if cache:
        assert cached and cached <= answered_before
        assert not made & answered_before  # nothing answered before was asked again
    else:
        assert not cached and made & answered_before  # without it, they are asked again


VWT = str(Path(sys.executable).with_name("vwt"))
REPO = Path(__file__).resolve().parents[2]


def _dev(home: Path, spec: Path, *extra: str) -> subprocess.Popen[bytes]:
    """`vwt run dev` of the prompt-recipe submission at the spec's served model, in its own
    process group (its worker processes included)."""
    argv = [VWT, "run", "dev", "--spec", str(spec), "--model", MODEL, "--home", str(home)]
    argv += ["--submission", str(reference_dir("prompt-recipe")), "--tasks", "4", "--k", "2"]
    return subprocess.Popen(
        [*argv, "--sandbox", "local", "--json", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(REPO), EXECUTOR_ENV: "local", KEY_ENV: "k-crash-1"},
    )


@pytest.mark.slow
def test_a_run_killed_mid_trial_asks_again_only_what_was_not_answered(
    tmp_path: Path, server: _Hooked
) -> None:
    endpoint = ModelEndpoint(api_base=server.url, api_key_env=KEY_ENV)
    data: dict[str, Any] = CycleSpec.load(default_cycle_spec_path()).model_dump(mode="json")
    data["catalogue"]["models"].append({"model": MODEL, "version": "2", "provider": "acme"})
    data["endpoints"] = {MODEL: endpoint.model_dump(mode="json")}
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(data))
    home = tmp_path / "dev"

    def hang() -> None:  # from the 20th answer on, requests hang: the run is caught mid-trial
        if server.stats.answered >= 20:
            server.faults = FaultPlan(delay_s=60)

    server.after = hang  # type: ignore[method-assign]
    run = _dev(home, spec)
    deadline = time.monotonic() + 600
    while server.stats.answered < 20 and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(2)  # the driver writes what it was handed within half a second
    answered = server.stats.answered
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    (store_path,) = home.glob("dev-*.sqlite")
    with sqlite3.connect(store_path) as db:
        before = {k for (k,) in db.execute("SELECT request_sha FROM replies")}
        stored = {k for (k,) in db.execute("SELECT key FROM trials")}
    assert len(before) == answered and len(stored) < 16  # every answer kept, trials unfinished

    server.faults, server.after = FaultPlan(), lambda: None  # type: ignore[method-assign]
    asked_before = server.stats.requests
    again = _dev(home, spec, "--cache")
    out, _ = again.communicate(timeout=900)
    assert again.returncode == 0, out.decode()[-2000:]
    execution = json.loads(out)["execution"]
    store = TrialStore(store_path)
    rerun = [r for r in store.records() if r.key not in stored]
    made, cached = _made(rerun, store)
    assert server.stats.requests - asked_before == execution["model_calls"] == len(made)
    assert execution["cached_calls"] == len(cached) > 0
    assert not made & before  # no request answered before the crash was asked again
