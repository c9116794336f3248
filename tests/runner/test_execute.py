"""Executing batches on Ray: storing as they finish, resuming, retrying invalid trials (every
attempt kept), and the workers' network guard."""

from __future__ import annotations

import os
import signal
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from benchmark import default_cycle_spec_path
from conditions import CycleSpec
from runner import (
    EXECUTOR_ENV,
    Batch,
    RunnerError,
    TrialRecord,
    TrialStore,
    execute,
    load_group,
    plan_phase,
    stream_batch,
)
from runner._plan import BATCH_SIZE
from runner._worker import Called, Item
from submissions import Bundle, reference_bundles
from tests._netguard import NetworkBlocked

pytestmark = pytest.mark.ray


@pytest.fixture(params=["ray", "local"])
def executor(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test with batches on Ray, then on the driver's local process pool."""
    monkeypatch.setenv(EXECUTOR_ENV, request.param)
    return str(request.param)


SPEC = CycleSpec.load(default_cycle_spec_path())


def test_execute_stores_every_trial_then_resume_is_a_no_op(
    ray_runtime: None, tmp_path: Path, executor: str
) -> None:
    batches = source_plan(reference_bundles()[1:2], batch_size=3)
    planned = {t.key for b in batches for t in b.trials}
    assert len(batches) == 4 and len(planned) == 8
    store = TrialStore(tmp_path / "t.sqlite")
    seen: list[tuple[int, int]] = []
    first = execute(store, batches, sandbox="local", progress=lambda d, t: seen.append((d, t)))
    assert (first.planned, first.already_stored, first.ran) == (8, 0, 8)
    assert first.failed_batches == []
    assert store.valid_keys() == planned
    # the total is known before the runtime starts; then the count only grows
    assert seen[0] == (0, 8) and seen[-1] == (8, 8)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    before, reported = store.records(), len(seen)
    second = execute(store, batches, sandbox="local", progress=lambda d, t: seen.append((d, t)))
    assert (second.planned, second.already_stored, second.ran) == (8, 8, 0)
    assert store.records() == before and len(seen) == reported


def test_execute_runs_only_what_is_missing(ray_runtime: None, tmp_path: Path) -> None:
    def plan(k: int) -> Any:
        return source_plan(k=k)

    store = TrialStore(tmp_path / "t.sqlite")
    execute(store, plan(1), sandbox="local")
    kept = store.records()
    result = execute(store, plan(2), sandbox="local")
    assert (result.already_stored, result.ran) == (2, 2)
    assert [r for r in store.records() if r.trial == 0] == kept


def source_plan(
    bundles: Sequence[Bundle] = (), *, tasks: int = 2, k: int = 2, batch_size: int = BATCH_SIZE
) -> list[Batch]:
    """The frozen-phase batches of ``bundles`` and the baseline in the default source."""
    return plan_phase(
        cycle=SPEC.cycle,
        cycle_seed=SPEC.seed,
        phase="frozen",
        conditions=[(SPEC.source.id, SPEC.source)],
        bundles=list(bundles),
        tasks_per_split=tasks,
        k=k,
        batch_size=batch_size,
    )


Worker = Callable[[str, str, int], Iterator[list[Item]]]


def failing_first(marks: Path, times: int, trial: int = 0) -> Worker:
    """The real (streaming) worker, except that the first ``times`` attempts of every trial
    with index ``trial`` come back invalid (as a provider timeout would make them). ``marks``
    (a directory all Ray workers see) counts attempts."""

    def run(
        batch_json: str, sandbox_kind: str = "auto", concurrency: int = 16, share: int = 1
    ) -> Iterator[list[Item]]:
        for rows in stream_batch(batch_json, sandbox_kind, concurrency, share):
            out = []
            for row in rows:
                if isinstance(row, Called):
                    out.append(row)
                    continue
                record = TrialRecord.model_validate_json(row.record)
                mark = marks / record.key
                seen = int(mark.read_text()) if mark.exists() else 0
                mark.write_text(str(seen + 1))
                if record.trial == trial and seen < times:
                    invalid = f"model: Timeout: injected ({seen + 1})"
                    record = record.model_copy(update={"outcome": "invalid", "invalid": invalid})
                out.append(row._replace(record=record.model_dump_json()))
            yield out

    return run


def test_an_invalid_trial_is_retried_in_the_same_run_and_every_attempt_kept(
    ray_runtime: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executor: str
) -> None:
    monkeypatch.setattr("runner._execute.stream_batch", failing_first(tmp_path, times=2))
    store = TrialStore(tmp_path / "t.sqlite")
    seen: list[tuple[int, int]] = []
    batches = source_plan()
    result = execute(store, batches, sandbox="local", progress=lambda d, t: seen.append((d, t)))
    # 4 trials; the 2 with trial index 0 fail twice, then pass: 4 + 2 * 2 attempts
    assert (result.planned, result.already_stored, result.ran, result.retried) == (4, 0, 8, 4)
    assert result.still_invalid == 0 and result.first_invalid is None
    assert seen[-1] == (8, 8)
    attempts = store.attempts()
    assert len(attempts) == 8
    first = [r for r in attempts if r.trial == 0]
    assert sorted((r.attempt, r.outcome == "invalid") for r in first) == [
        (1, True),
        (1, True),
        (2, True),
        (2, True),
        (3, False),
        (3, False),
    ]
    latest = store.records()
    assert len(latest) == 4 and all(r.outcome != "invalid" for r in latest)
    assert {r.attempt for r in latest if r.trial == 0} == {3}


def test_trials_still_invalid_after_the_attempts_are_rerun_next_time_and_only_they(
    ray_runtime: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executor: str
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setattr("runner._execute.stream_batch", failing_first(marks, times=99))
    store = TrialStore(tmp_path / "t.sqlite")
    batches = source_plan()
    down = execute(store, batches, sandbox="local", max_attempts=2)
    assert (down.ran, down.retried, down.still_invalid) == (6, 2, 2)
    assert down.first_invalid is not None
    assert "trial 0 (baseline, attempt 2): model: Timeout: injected (2)" in down.first_invalid
    valid_before = [r for r in store.records() if r.outcome != "invalid"]
    assert len(valid_before) == 2

    monkeypatch.setattr("runner._execute.stream_batch", stream_batch)  # the provider is back
    up = execute(store, batches, sandbox="local")
    assert (up.planned, up.already_stored, up.ran, up.retried, up.still_invalid) == (4, 2, 2, 2, 0)
    assert [r for r in store.records() if r.trial == 1] == valid_before  # never re-run
    assert sorted(r.attempt for r in store.records() if r.trial == 0) == [3, 3]
    assert len(store.attempts()) == 8


def dying_after_first_rows(marks: Path) -> Worker:
    """The real streaming worker, counting how often each trial runs (in ``marks``); the
    first time a group of batches runs, its worker process dies (SIGKILL) after handing out
    its first finished trials, and the trials still running die with it."""

    def run(
        group_json: str, sandbox_kind: str = "auto", concurrency: int = 16, share: int = 1
    ) -> Iterator[list[Item]]:
        batch = load_group(group_json)[0]
        first = not (marks / f"batch-{batch.condition_id}-{batch.arm}").exists()
        (marks / f"batch-{batch.condition_id}-{batch.arm}").touch()
        for rows in stream_batch(group_json, sandbox_kind, 1, share):
            for row in rows:
                if isinstance(row, Called):
                    continue
                mark = marks / TrialRecord.model_validate_json(row.record).key
                mark.write_text(str(int(mark.read_text()) + 1 if mark.exists() else 1))
            yield rows
            if first:
                time.sleep(1.5)  # the driver stores what it was handed
                os.kill(os.getpid(), signal.SIGKILL)

    return run


def test_a_crashed_batch_keeps_what_it_streamed_and_runs_only_the_rest_again(
    ray_runtime: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executor: str
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    monkeypatch.setattr("runner._execute.stream_batch", dying_after_first_rows(marks))
    store = TrialStore(tmp_path / "t.sqlite")
    batches = source_plan(k=3)
    result = execute(store, batches, sandbox="local")
    planned = {t.key for b in batches for t in b.trials}
    assert store.valid_keys() == planned and result.ran == len(planned) == 6
    # every trial ran exactly once: none of the streamed ones was run again after the crash
    assert {k: int((marks / k).read_text()) for k in planned} == dict.fromkeys(planned, 1)
    assert len(result.failed_batches) == 1 and "trials lost" in result.failed_batches[0]
    assert len(store.attempts()) == 6


def test_max_attempts_must_be_positive(tmp_path: Path) -> None:
    with pytest.raises(RunnerError, match="at least 1"):
        execute(TrialStore(tmp_path / "t.sqlite"), source_plan(), max_attempts=0)


def _dial_out() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(2)
        s.connect(("93.184.216.34", 80))
    return "connected"


def test_a_ray_worker_cannot_reach_the_network(ray_runtime: None) -> None:
    import ray

    with pytest.raises(NetworkBlocked, match="non-loopback"):
        ray.get(ray.remote(max_retries=0)(_dial_out).remote())


def test_ray_workers_are_handed_the_families_without_changing_the_drivers_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a long-lived driver (the service, a test worker) would otherwise keep the folders of its
    # first run in its own environment, and load them into every later run's sim
    import runner._execute as execute_module
    from benchmark import ENTRY_POINTS_ENV, FOLDERS_ENV

    given: dict[str, Any] = {}
    monkeypatch.setattr(execute_module, "start_ray", lambda **kw: given.update(kw))
    monkeypatch.setattr(execute_module, "RayStreams", lambda worker: None)
    monkeypatch.setenv(EXECUTOR_ENV, "ray")
    monkeypatch.delenv(FOLDERS_ENV, raising=False)
    monkeypatch.delenv(ENTRY_POINTS_ENV, raising=False)
    before = dict(os.environ)
    execute_module._executor([], 1, ("SOME_KEY",))
    assert dict(os.environ) == before
    assert given["forward"] == ("SOME_KEY",)
    assert set(given["env"]) == {ENTRY_POINTS_ENV, FOLDERS_ENV}
    assert "support_ops" in given["env"][ENTRY_POINTS_ENV]
