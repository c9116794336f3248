"""The red-team gate of a folder family, run where its end states exist: in a sandbox.

For every release of the family, one sandbox and one relay (as a batch of trials has), and
per answer (the reference, or a planted wrong answer) a trial: the task's initial state, the
answer's canonical calls sent to the trial's own server over MCP, the end state read (and
the verifier command run) there, then the family's verifier. An answer must pass (or fail)
on every release.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Sequence

from benchmark._mcp_backend import BackendCallError, McpBackend
from benchmark._sandbox_types import SandboxFactory
from benchmark._task import Family, Task
from drift import InterfaceVersion, ToolCall

Verdict = tuple[bool | None, str]


async def _one(fam: Family, backend: McpBackend, task: Task, calls: Sequence[ToolCall]) -> Verdict:
    async with backend.trial(task.initial_state) as trial:
        for i, call in enumerate(calls):
            try:
                await trial.call(call.name, dict(call.arguments))
            except BackendCallError as e:
                return None, f"call {i + 1} ({call.name}) refused by the server: {e}"
        state = await trial.dump()
    try:
        result = fam.verify(task, state)
    except Exception as e:  # the verifier's own failure is the gate's finding
        return None, f"{type(e).__name__}: {e}"
    return result.passed, "; ".join(result.reasons)


async def _release(
    fam: Family,
    release: InterfaceVersion,
    concurrency: int,
    answers: Sequence[tuple[Task, Sequence[ToolCall]]],
    sandbox: SandboxFactory,
) -> list[Verdict]:
    backend = McpBackend.of(fam, release)
    box = sandbox(backend.mounts())
    limit = asyncio.Semaphore(concurrency)

    async def one(task: Task, calls: Sequence[ToolCall]) -> Verdict:
        async with limit:
            return await _one(fam, backend, task, calls)

    async with box, backend.serve(box):
        return list(await asyncio.gather(*(one(t, c) for t, c in answers)))


async def _all(
    fam: Family,
    releases: Sequence[InterfaceVersion],
    concurrency: int,
    answers: Sequence[tuple[Task, Sequence[ToolCall]]],
    sandbox: SandboxFactory,
) -> list[Verdict]:
    # one sandbox per release, side by side (each is held to one CPU)
    per_release = await asyncio.gather(
        *(_release(fam, r, concurrency, answers, sandbox) for r in releases)
    )
    out: list[Verdict] = []
    for i, (task, calls) in enumerate(answers):
        verdicts = [(r.id, found[i]) for r, found in zip(releases, per_release, strict=True)]
        broken = next(((r, v) for r, v in verdicts if v[0] is None), None)
        if broken is not None:
            out.append((None, f"on {broken[0]}: {broken[1][1]}"))
            continue
        # The reference must pass on every release, a planted answer fail on every one: on
        # mixed verdicts, report the release where it did what it must not.
        wants = tuple(calls) == tuple(task.reference_calls)
        wrong = [(r, v) for r, v in verdicts if v[0] is not wants]
        if wrong:
            r, v = wrong[0]
            out.append((not wants, f"on {r}" + (f": {v[1]}" if v[1] else "")))
            continue
        out.append((wants, ""))
    return out


def sandbox_verdicts(
    fam: Family,
    releases: Sequence[InterfaceVersion],
    concurrency: int,
    answers: Sequence[tuple[Task, Sequence[ToolCall]]],
    sandbox: SandboxFactory,
) -> list[Verdict]:
    """Per (task, canonical calls): whether the verifier passes the end state, or (None, why)
    when the calls cannot be applied, run in sandboxes ``sandbox`` makes (at most
    ``concurrency`` trials at once in each), on every one of ``releases``: the reference's
    verdict is a pass only if it passes on every release, a planted answer's a fail only if it
    fails on every one (the reason names the release)."""
    coro = _all(fam, releases, concurrency, answers, sandbox)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # called from inside a loop
        return pool.submit(asyncio.run, coro).result()
