"""Replaying trials from their call records: the same task, interface, environment, agent loop
and tools, with every model call answered from the record.

A replay runs the trial as the runner does (:func:`runner._worker.run_batch_async`, so
``run_trial`` and everything under it is the real code), except that each trial's call log
answers the model calls from the recorded ones in order (:class:`benchmark.CallLog`); a request
that is not the recorded one ends the trial as a divergence naming the first differing field.
The replayed record is then compared with the recorded one: outcome, tool calls, end-state
verdict, trace. Nothing is written anywhere.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from benchmark import (
    CacheEntry,
    CallLog,
    ReplayCall,
    family,
    interface_version,
    secret_values,
)
from benchmark.harness import AgentArtifacts
from conditions import Condition, Cycle
from drift import InterfaceVersion
from runner._phase import store_for
from runner._records import Batch, TrialRecord, TrialSpec
from runner._sandbox import resolve_sandbox_kind
from runner._worker import run_batch_async
from runner.errors import RunnerError
from submissions import BundleStore

COMPARED = (
    "outcome",
    "critical",
    "verifier_reasons",
    "safe_stop",
    "invalid",
    "turns",
    "tool_calls",
    "tool_errors",
    "trace_sha256",
    "schema_digests",
    "generator_version",
    "verifier_version",
)
"""Record fields a replay must reproduce, in the order a difference is reported."""
REPLAY_BATCH = 72
"""Trials replayed per sandbox."""


class ReplaySource(Protocol):
    """Where recorded trials come from: a cycle's home or a release."""

    where: str
    """What is replayed (a store's or a release's path), for messages."""

    def condition(self, condition_id: str) -> Condition:
        """The condition a record ran in."""
        ...

    def artifacts(self, bundle_hash: str) -> AgentArtifacts:
        """The artifacts of a bundle."""
        ...

    def interfaces(self) -> Sequence[InterfaceVersion]:
        """Interface versions defined beyond the built-in ones."""
        ...

    def calls(self, calls_sha256: str) -> tuple[ReplayCall, ...]:
        """A record's model calls; raises a user error if they are missing or altered."""
        ...


class ReplayedTrial(BaseModel):
    """How one trial's replay went."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(description="Trial key.")
    task_id: str = Field(description="Task id.")
    phase: str = Field(description="Phase of the recorded trial.")
    recorded: str = Field(description="The recorded outcome.")
    replayed: str | None = Field(description="The replay's outcome (None: not replayed).")
    identical: bool = Field(description="Every compared field is as recorded.")
    difference: str | None = Field(
        description="The divergence, or the first record field that differs; why it was not "
        "replayed if it was not."
    )


class ReplaySummary(BaseModel):
    """What a replay of several trials found."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    where: str = Field(description="What was replayed.")
    trials: tuple[ReplayedTrial, ...] = Field(description="Each trial, in key order.")

    @property
    def replayed(self) -> int:
        """Trials replayed."""
        return sum(t.replayed is not None for t in self.trials)

    @property
    def identical(self) -> int:
        """Trials whose replay reproduced the record."""
        return sum(t.identical for t in self.trials)

    def line(self) -> str:
        """``N replayed, M identical``, and which diverged or could not be replayed."""
        text = f"{self.replayed} replayed, {self.identical} identical"
        diverged = [t for t in self.trials if t.replayed is not None and not t.identical]
        skipped = [t for t in self.trials if t.replayed is None]
        if diverged:
            text += "; diverged: " + ", ".join(f"{t.key[:12]} ({t.difference})" for t in diverged)
        if skipped:
            text += f"; {len(skipped)} not replayable (first: {skipped[0].difference})"
        return text


def sample_records(records: Sequence[TrialRecord], n: int, seed: int) -> list[TrialRecord]:
    """``n`` of ``records`` (all if fewer), drawn without replacement with
    ``numpy.random.default_rng(seed)`` from the records in key order; returned in key order."""
    ordered = sorted(records, key=lambda r: r.key)
    if n >= len(ordered):
        return ordered
    picked = np.random.default_rng(seed).choice(len(ordered), size=n, replace=False)
    return [ordered[i] for i in sorted(int(i) for i in picked)]


def _first_field(recorded: TrialRecord, replayed: TrialRecord) -> str | None:
    for name in COMPARED:
        a, b = getattr(recorded, name), getattr(replayed, name)
        if a != b:
            return f"{name} (recorded {a!r}, replayed {b!r})"
    return None


def _group(records: Sequence[TrialRecord]) -> dict[tuple[object, ...], list[TrialRecord]]:
    groups: dict[tuple[object, ...], list[TrialRecord]] = {}
    for r in records:
        by = (r.phase, r.condition_id, r.family, r.arm, r.bundle_hash, r.task_seed, r.cycle)
        groups.setdefault(by, []).append(r)
    return groups


def _batches(records: list[TrialRecord], source: ReplaySource) -> list[Batch]:
    first = records[0]
    condition = source.condition(first.condition_id)
    fam = family(first.family)
    version = condition.tool_interface.get(fam.env_id)
    if version is None:
        raise RunnerError(
            f"trial {first.key[:12]}…: its condition serves no interface of {fam.env_id!r}",
            f"the records of {source.where} do not match its conditions",
        )
    interface = interface_version(fam.env_id, version, source.interfaces())
    artifacts = (
        source.artifacts(first.bundle_hash)
        if first.arm == "with" and first.bundle_hash
        else AgentArtifacts()
    )
    specs = [
        TrialSpec(key=r.key, task_id=r.task_id, task_index=r.task_index, trial=r.trial, seed=r.seed)
        for r in records
    ]
    return [
        Batch(
            cycle=first.cycle,
            phase=first.phase,
            condition_id=first.condition_id,
            condition=condition,
            family=fam.id,
            arm=first.arm,
            bundle_hash=first.bundle_hash,
            submission=first.submission,
            artifacts_json=artifacts.model_dump_json(),
            interface=interface,
            split_seed=first.task_seed,
            trials=tuple(specs[i : i + REPLAY_BATCH]),
        )
        for i in range(0, len(specs), REPLAY_BATCH)
    ]


def replay_trials(
    records: Sequence[TrialRecord],
    source: ReplaySource,
    *,
    sandbox: str = "auto",
    concurrency: int = 8,
    progress: Callable[[int, int], None] | None = None,
) -> ReplaySummary:
    """Replay ``records`` from their call records (see the module); records written before
    calls were recorded are listed as not replayable. ``progress`` is told (done, total)."""
    kind = resolve_sandbox_kind(sandbox).value
    secrets = secret_values()
    out: dict[str, ReplayedTrial] = {}
    replayable = []
    for r in records:
        if r.calls_sha256 is None:
            out[r.key] = _skipped(r, "recorded before model calls were recorded")
        else:
            replayable.append(r)
    by_key = {r.key: r for r in replayable}
    done = 0
    for group in _group(replayable).values():
        for batch in _batches(group, source):
            logs: dict[str, CallLog] = {}
            make_log = _replaying(source, by_key, secrets, logs)
            rows = asyncio.run(run_batch_async(batch, kind, concurrency, logs=make_log))
            for row in rows:
                replayed = TrialRecord.model_validate_json(row.record)
                out[replayed.key] = _compared(by_key[replayed.key], replayed, logs[replayed.key])
            done += len(rows)
            if progress is not None:
                progress(done, len(replayable))
    return ReplaySummary(where=source.where, trials=tuple(out[k] for k in sorted(out)))


def _replaying(
    source: ReplaySource,
    records: dict[str, TrialRecord],
    secrets: tuple[str, ...],
    logs: dict[str, CallLog],
) -> Callable[[TrialSpec, Callable[[CacheEntry], None] | None], CallLog]:
    """A call log factory answering each trial from its record, keeping the logs in ``logs``."""

    def make(spec: TrialSpec, journal: Callable[[CacheEntry], None] | None) -> CallLog:
        calls = source.calls(records[spec.key].calls_sha256 or "")
        logs[spec.key] = CallLog(secrets=secrets, replay=calls)
        return logs[spec.key]

    return make


def _skipped(r: TrialRecord, why: str) -> ReplayedTrial:
    return ReplayedTrial(
        key=r.key,
        task_id=r.task_id,
        phase=r.phase,
        recorded=r.outcome,
        replayed=None,
        identical=False,
        difference=why,
    )


def _compared(recorded: TrialRecord, replayed: TrialRecord, log: CallLog) -> ReplayedTrial:
    divergence = log.unreplayed()
    difference = f"diverged: {divergence}" if divergence else _first_field(recorded, replayed)
    return ReplayedTrial(
        key=recorded.key,
        task_id=recorded.task_id,
        phase=recorded.phase,
        recorded=recorded.outcome,
        replayed=replayed.outcome,
        identical=difference is None,
        difference=difference,
    )


class HomeSource:
    """The trials of a cycle's store, with the cycle's conditions, bundles and interfaces."""

    def __init__(self, cycle: Cycle) -> None:
        """Read from ``cycle``'s home."""
        self.cycle = cycle
        self.store = store_for(cycle.home)
        self.where = str(self.store.path)
        self._conditions = dict(cycle.evaluation_conditions())
        self._bundles = BundleStore(cycle.home)

    def records(self) -> list[TrialRecord]:
        """Every key's latest attempt, every phase."""
        return self.store.records()

    def condition(self, condition_id: str) -> Condition:
        """The evaluation condition with this (keyed) id."""
        if condition_id not in self._conditions:
            raise RunnerError(
                f"the cycle in {self.cycle.home} has no condition {condition_id[:16]}…",
                "replay trials of this cycle's frozen and adapted phases",
            )
        return self._conditions[condition_id]

    def artifacts(self, bundle_hash: str) -> AgentArtifacts:
        """The stored bundle's artifacts."""
        return self._bundles.get(bundle_hash).agent_artifacts()

    def interfaces(self) -> Sequence[InterfaceVersion]:
        """The cycle spec's interface versions."""
        return self.cycle.spec.interfaces

    def calls(self, calls_sha256: str) -> tuple[ReplayCall, ...]:
        """The stored calls with this hash."""
        calls = self.store.calls(calls_sha256)
        if calls is None:
            raise RunnerError(
                f"the store {self.store.path} has no call record {calls_sha256[:16]}… (or it "
                "is altered)",
                "restore the store from a backup",
            )
        return calls
