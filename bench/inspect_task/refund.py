"""The support-ops refund task as an Inspect AI task: vwt's batch, run by Inspect.

Run by bench/inspect_peer.py with the bench venv's interpreter:
``python bench/inspect_task/refund.py BATCH_JSON URL [--concurrency 16]``. BATCH_JSON is a
file holding a baseline ``runner.Batch`` (no artifacts); URL is the sim server's OpenAI-
compatible base URL. Each task of the batch is an Inspect sample, each of its k trials an
epoch. A sample's tools are the served interface's tools, each backed by the same backend
vwt uses (one ``McpBackend`` in a local sandbox, one MCP trial per trial, through
``TrialEnvironment``: the same validation, drift oracle and result mapping); the messages
are the harness's preamble and the task's instruction; every model request carries the
trial's request seed at temperature 0, as vwt's do. The scorer is the family's end-state
verifier, and the outcome is classified by ``benchmark.classify``. Prints one JSON line:
trials, seconds (``eval_async``'s wall time after a one-sample warm-up), outcomes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval_async
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Score, Target, accuracy, scorer
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.tool import ToolDef, ToolParams

from benchmark import (
    McpBackend,
    TrialEnvironment,
    classify,
    family,
    serve,
)
from benchmark._seeds import request_seed
from benchmark.harness import AgentRun, harness_version
from benchmark.harness._loop import STOP_REPORT
from drift import ToolCall
from runner import Batch, Mount, make_sandbox

MODEL = "openai-api/sim/acme-2"
"""Inspect's generic OpenAI-compatible provider, service 'sim' (SIM_BASE_URL, SIM_API_KEY)."""


class Refund:
    """One batch's trials as an Inspect task, over one backend."""

    def __init__(self, batch: Batch, backend: McpBackend) -> None:
        self.batch, self.backend = batch, backend
        c = batch.condition
        self.family = family(batch.family)
        self.served = serve(self.family.env_id, batch.interface)
        self.harness = harness_version(c.harness)
        indexes = sorted({t.task_index for t in batch.trials})
        self.tasks = {
            i: self.family.generate(c.task_family.split, i, batch.split_seed) for i in indexes
        }
        self.trials = {(t.task_index, t.trial + 1): t for t in batch.trials}
        self.envs: dict[tuple[int, int], tuple[TrialEnvironment, AgentRun]] = {}

    def task(self, indexes: list[int], epochs: int) -> Task:
        samples = [Sample(id=i, input=self.tasks[i].instruction, target="success") for i in indexes]
        return Task(
            dataset=MemoryDataset(samples),
            solver=self.solver(),
            scorer=self.scorer(),
            epochs=epochs,
        )

    def tool(self, env: TrialEnvironment, name: str, schema: dict[str, Any]) -> Any:
        async def call(**kwargs: Any) -> str:
            return (await env.call(ToolCall(name=name, arguments=kwargs))).content

        fn = schema["function"]
        params = ToolParams.model_validate(fn["parameters"])
        return ToolDef(call, name=name, description=fn["description"], parameters=params)

    def solver(self) -> Callable[..., Any]:
        @solver
        def refund_agent() -> Callable[[TaskState, Generate], Awaitable[TaskState]]:
            async def solve(state: TaskState, generate: Generate) -> TaskState:
                index = int(state.sample_id)
                spec = self.trials[(index, state.epoch)]
                env = TrialEnvironment(self.family, self.tasks[index], self.served, self.backend)
                run = AgentRun()
                self.envs[(index, state.epoch)] = env, run
                await env.start()
                state.tools = [
                    self.tool(env, t["function"]["name"], t).as_tool() for t in env.tools
                ]
                state.messages = [
                    ChatMessageSystem(content=self.harness.preamble),
                    ChatMessageUser(content=self.tasks[index].instruction),
                ]
                seed = request_seed(spec.seed, "baseline")
                for _ in range(self.harness.max_turns):
                    state = await generate(state, tool_calls="single", seed=seed, temperature=0)
                    run.turns += 1
                    if not state.output.message.tool_calls:
                        run.final = state.output.completion
                        break
                else:
                    run.hit_turn_limit = True
                if run.final.startswith(STOP_REPORT):
                    run.safe_stop = run.final
                return state

            return solve

        return refund_agent()

    def scorer(self) -> Callable[..., Any]:
        @scorer(metrics=[accuracy()])
        def refund_verifier() -> Callable[[TaskState, Target], Awaitable[Score]]:
            async def score(state: TaskState, target: Target) -> Score:
                env, run = self.envs.pop((int(state.sample_id), state.epoch))
                verdict = await env.verify()
                await env.close()
                outcome = classify(run, verdict, env.critical).value
                return Score(value=int(outcome == target.text), answer=outcome)

            return score

        return refund_verifier()


def outcomes(logs: list[Any]) -> Counter[str]:
    """Outcome per trial of an eval's log; 'error' for a sample Inspect could not finish."""
    out: Counter[str] = Counter()
    for sample in logs[0].samples or ():
        score = (sample.scores or {}).get("refund_verifier")
        out[score.answer if score is not None and not sample.error else "error"] += 1
    return out


async def main_async(batch: Batch, url: str, concurrency: int) -> dict[str, Any]:
    os.environ["SIM_BASE_URL"], os.environ["SIM_API_KEY"] = url, "sim"
    os.environ["INSPECT_DISPLAY"] = "none"
    backend = McpBackend.of(family(batch.family))
    sandbox = make_sandbox("local", mounts=[Mount(*m) for m in backend.mounts()])
    async with sandbox, backend.serve(sandbox):
        refund = Refund(batch, backend)
        indexes = sorted(refund.tasks)
        epochs = max(t.trial for t in batch.trials) + 1
        options: dict[str, Any] = {
            "model": MODEL,
            "log_dir": tempfile.mkdtemp(prefix="vwt-inspect-logs-"),
            "max_samples": concurrency,
            "max_connections": concurrency,
            "fail_on_error": False,
        }
        await eval_async(refund.task(indexes[:1], 1), **options)  # warm-up
        refund = Refund(batch, backend)
        started = time.perf_counter()
        logs = await eval_async(refund.task(indexes, epochs), **options)
        seconds = time.perf_counter() - started
    counts = outcomes(logs)
    return {"trials": sum(counts.values()), "seconds": seconds, "outcomes": dict(counts)}


def main() -> None:
    parser = argparse.ArgumentParser(description="The refund task as an Inspect AI task.")
    parser.add_argument("batch", type=Path, help="a file holding a baseline Batch (JSON)")
    parser.add_argument("url", help="the sim server's OpenAI-compatible base URL")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    batch = Batch.model_validate_json(args.batch.read_text())
    print(json.dumps(asyncio.run(main_async(batch, args.url, args.concurrency))))


if __name__ == "__main__":
    main()
