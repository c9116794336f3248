"""Trials of an adaptation sample, run in-process through the real path (the harness, litellm
through the metered gateway, a backend in the kit's sandbox, the verifier and the oracle).

The trials run with the submitter's artifacts, so what the model writes under them (code and
the tests it runs, in the code-maintenance family) is the submitter's code: the sandbox is
Docker unless the operator named ``local``."""

from __future__ import annotations

from adapt._access import AdaptationKit
from adapt._meter import MeteredGateway
from adapt._pair_loop import run
from benchmark import (
    McpBackend,
    Task,
    TrialResult,
    family,
    run_trial,
    stable_int,
)
from benchmark._seeds import request_seed
from benchmark.harness import AgentArtifacts, harness
from runner import Mount, SandboxScripts, make_sandbox, skill_mount

UNTRUSTED = "adaptations (they run submitters' code)"
"""What runs, for the refusal when Docker is not there and ``local`` was not named."""


async def _family_trials(
    kit: AdaptationKit,
    gateway: MeteredGateway,
    artifacts: AgentArtifacts,
    tasks: list[Task],
    arm: str,
) -> list[tuple[Task, TrialResult]]:
    fam = family(tasks[0].family)
    served = kit.served(fam.env_id)
    backend = McpBackend.of(fam)
    chosen = harness(kit.harness)
    out: list[tuple[Task, TrialResult]] = []
    with skill_mount(artifacts.skills) as skills:  # the skills' scripts run in the sandbox
        mounts = [Mount(*m) for m in backend.mounts()]
        box = make_sandbox(
            kit.sandbox, mounts=[*mounts, *([skills] if skills else [])], untrusted=UNTRUSTED
        )
        async with box as sandbox, backend.serve(sandbox), chosen.session():
            for task in tasks:
                if gateway.closed:
                    break
                result = await run_trial(
                    fam,
                    task,
                    served,
                    backend,
                    model=gateway.routed(kit.model),
                    harness=chosen,
                    artifacts=artifacts,
                    seed=request_seed(stable_int("adapt", task.id), arm),
                    scripts=SandboxScripts(sandbox),
                )
                out.append((task, result))
    return out


def run_sample(
    kit: AdaptationKit,
    gateway: MeteredGateway,
    artifacts: AgentArtifacts,
    tasks: list[Task],
    arm: str,
) -> list[tuple[Task, TrialResult]]:
    """One trial of each of ``tasks`` (kit tasks) with ``artifacts`` in the target condition,
    in order, until the gateway closes: a trial whose model call is refused ends 'invalid',
    and no later trial starts."""
    out: list[tuple[Task, TrialResult]] = []
    for fam_id in dict.fromkeys(t.family for t in tasks):
        mine = [t for t in tasks if t.family == fam_id]
        if gateway.closed:
            break
        out += run(_family_trials(kit, gateway, artifacts, mine, arm))
    return out
