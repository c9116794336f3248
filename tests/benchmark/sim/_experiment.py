"""Counterfactual experiments: one arm of sim trials, run in-process through the real path
(litellm, the harness, a backend subprocess, the verifier and the oracle)."""

from __future__ import annotations

import asyncio
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchmark import Family, TrialResult, family, run_trial, serve, stable_int
from benchmark._seeds import request_seed
from benchmark.harness import AgentArtifacts, harness_version
from drift import AnyOperator, InterfaceVersion
from tests.benchmark._helpers import start_backend


@dataclass
class Arm:
    """The results of one arm, by task."""

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


def version(*ops: AnyOperator, env: str = "support-ops") -> InterfaceVersion:
    """An interface version of ``env`` with ``ops`` over its base."""
    base = f"{env}@1"
    return InterfaceVersion(id=f"{env}@test", env=env, label="test", parent=base, ops=ops)


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
    chosen = [t for t in fam.tasks(split, tasks * 12 if kinds else tasks, seed)]
    if kinds:
        chosen = [t for t in chosen if t.kind in kinds][:tasks]

    async def go() -> Arm:
        out = Arm()
        with tempfile.TemporaryDirectory() as tmp:
            backend = await start_backend(fam, Path(tmp))
            try:
                for task in chosen:
                    for j in range(k):
                        out.results.append(
                            await run_trial(
                                fam,
                                task,
                                served,
                                backend,
                                f"{task.id}/{j}",
                                model=f"sim/{model}",
                                harness=harness_version(harness),
                                artifacts=artifacts or AgentArtifacts(),
                                seed=request_seed(stable_int(seed, task.id, j), arm),
                            )
                        )
            finally:
                await backend.close()
        return out

    return asyncio.run(go())
