"""Counterfactual experiments: one arm of sim trials, run in-process through the real path
(litellm, the harness, a backend subprocess, the verifier and the oracle)."""

from __future__ import annotations

import asyncio
import atexit
import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from benchmark import (
    Family,
    McpBackend,
    Task,
    TrialResult,
    family,
    run_trial,
    serve,
    stable_int,
)
from benchmark._seeds import request_seed
from benchmark.harness import AgentArtifacts
from benchmark.harness import harness as harness_of
from benchmark.sim import FORMATS, SIM_MODELS, SimModelSpec
from drift import AnyOperator, InterfaceVersion
from tests.benchmark._helpers import start_backend


@dataclass
class Arm:
    """The results of one arm: ``results[i]`` is a trial of ``tasks[i]``."""

    tasks: list[Task] = field(default_factory=list)
    results: list[TrialResult] = field(default_factory=list)

    @property
    def outcomes(self) -> Counter[str]:
        return Counter(r.outcome.value for r in self.results)

    @property
    def success(self) -> float:
        return self.outcomes["success"] / max(1, len(self.results))

    @property
    def critical(self) -> int:
        return self.outcomes["critical"]


CERTAIN: dict[str, Any] = {
    "understand": 1.0,
    "read_numbers": 1.0,
    "map_enums": 1.0,
    "know_procedure": 1.0,
    "read_schema": 1.0,
    "read_conventions": 1.0,
    "recover": 1.0,
    "load_skills": 1.0,
    "notice_conflicts": 0.0,
    "on_conflict": "artifact",
    "temperature": 0.0,
}
"""A controlled model's parameters unless a test says otherwise: every skill certain, conflicts
never noticed, no sampling noise."""


def use_model(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    *,
    follows: dict[str, float] | tuple[str, ...] = FORMATS,
    **params: Any,
) -> str:
    """Put a controlled sim model ``name`` into the catalogue for one test: ``CERTAIN`` updated
    by ``params``; ``follows`` gives per-format probabilities, or the formats it always follows
    (and no other). Returns the name to pass to ``run_arm``."""
    if not isinstance(follows, dict):
        follows = {f: float(f in follows) for f in FORMATS}
    spec = SimModelSpec.model_validate(
        {
            "name": name,
            "provider": "test",
            "version": "1",
            **CERTAIN,
            **params,
            "follows": {f: follows.get(f, 0.0) for f in FORMATS},
        }
    )
    monkeypatch.setitem(SIM_MODELS, name, spec)
    return name


def version(*ops: AnyOperator, env: str = "support-ops") -> InterfaceVersion:
    """An interface version of ``env`` with ``ops`` over its base."""
    base = f"{env}@1"
    return InterfaceVersion(id=f"{env}@test", env=env, label="test", parent=base, ops=ops)


class _Servers:
    """The arms of this process run on one event loop, each family's MCP server started on it
    once and kept for every later arm (a server holds any number of trials, each from its own
    initial state, as a batch's does): starting one costs more than an arm's trials."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.running: dict[tuple[int, str | None], tuple[Family, McpBackend]] = {}
        self.places = tempfile.TemporaryDirectory(prefix="vwt-sim-arms-")
        atexit.register(self.close)

    async def backend(self, fam: Family, interface: InterfaceVersion | None) -> McpBackend:
        """``fam``'s server, started now if it is not running (or has stopped)."""
        if fam.external_server(interface) is not None:  # a relay serves one release only
            return await self._start(fam)
        key = (id(fam), os.environ.get("VWT_SANDBOX_OPT"))  # the server reads it at start
        known = self.running.get(key)
        if known is not None and known[1].exit_cause() is None:
            return known[1]
        backend = await self._start(fam)
        self.running[key] = (fam, backend)  # the family kept: its id stays its own
        return backend

    async def _start(self, fam: Family) -> McpBackend:
        return await start_backend(fam, Path(tempfile.mkdtemp(dir=self.places.name)))

    def close(self) -> None:
        """Stop every server, then the loop's other tasks (litellm's logging worker), then
        the loop."""
        if self.loop.is_closed():
            return
        for _, backend in self.running.values():
            self.loop.run_until_complete(backend.close())
        self.running.clear()
        others = asyncio.all_tasks(self.loop)
        for task in others:
            task.cancel()
        if others:  # gather() of nothing asks for the current loop, which atexit has none of
            self.loop.run_until_complete(asyncio.gather(*others, return_exceptions=True))
        self.loop.run_until_complete(self.loop.shutdown_asyncgens())
        self.loop.close()
        self.places.cleanup()


_SERVERS: _Servers | None = None


def _servers() -> _Servers:
    global _SERVERS
    if _SERVERS is None:
        _SERVERS = _Servers()
    return _SERVERS


_TASKS: dict[tuple[int, str, int, int], tuple[Family, list[Task]]] = {}


def _tasks(fam: Family, split: str, n: int, seed: int) -> list[Task]:
    """``fam.tasks(split, n, seed)``, generated once per process (arms share their tasks)."""
    key = (id(fam), split, n, seed)
    if key not in _TASKS:
        _TASKS[key] = (fam, fam.tasks(split, n, seed))  # the family kept: its id stays its own
    return list(_TASKS[key][1])


def run_arm(
    model: str,
    *,
    fam: Family | None = None,
    interface: InterfaceVersion | None = None,
    artifacts: AgentArtifacts | None = None,
    tasks: int = 24,
    k: int = 1,
    harness: str = "harness-v1",
    arm: str = "baseline",
    split: str = "sealed",
    kinds: tuple[str, ...] = (),
    seed: int = 7,
) -> Arm:
    """``tasks`` tasks (of ``kinds`` if given) × ``k`` trials of ``model`` in one arm."""
    fam = fam or family("support_ops")
    served = serve(fam.env_id, interface or version())
    chosen = _tasks(fam, split, tasks * 12 if kinds else tasks, seed)
    if kinds:
        chosen = [t for t in chosen if t.kind in kinds][:tasks]
    servers = _servers()

    async def go() -> Arm:
        out = Arm()
        backend = await servers.backend(fam, interface)
        try:
            for task in chosen:
                for j in range(k):
                    out.tasks.append(task)
                    out.results.append(
                        await run_trial(
                            fam,
                            task,
                            served,
                            backend,
                            model=f"sim/{model}",
                            harness=harness_of(harness),
                            artifacts=artifacts or AgentArtifacts(),
                            seed=request_seed(stable_int(seed, task.id, j), arm),
                        )
                    )
        finally:
            if all(backend is not b for _, b in servers.running.values()):
                await backend.close()
        return out

    return servers.loop.run_until_complete(go())


def tool_calls(result: TrialResult) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls a trial's model made, in order: (name, arguments) as it sent them."""
    return [
        (tc["function"]["name"], json.loads(tc["function"]["arguments"]))
        for m in result.run.messages
        for tc in m.get("tool_calls") or []
    ]
