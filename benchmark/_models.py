"""The model gateway: every model call goes through ``litellm.acompletion``."""

from __future__ import annotations

import asyncio
import functools
import time
from types import ModuleType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.sim import register_sim_provider


@functools.cache
def _litellm() -> ModuleType:
    """litellm, imported on first use (the import takes seconds) with the sim provider on."""
    import litellm

    register_sim_provider()
    return litellm


def _retriable(litellm: ModuleType) -> tuple[type[Exception], ...]:
    e = litellm.exceptions
    return (
        e.APIConnectionError,
        e.APIError,
        e.InternalServerError,
        e.RateLimitError,
        e.ServiceUnavailableError,
        e.Timeout,
    )


class ModelCallFailed(Exception):
    """A model call failed after its retries: the trial is 'invalid', not a failure."""


class Usage(BaseModel):
    """Token and call accounting of one trial or phase."""

    model_config = ConfigDict(extra="forbid")

    calls: int = Field(default=0, description="Model calls made.")
    prompt_tokens: int = Field(default=0, description="Prompt tokens reported by the provider.")
    completion_tokens: int = Field(default=0, description="Completion tokens reported.")
    latency_s: float = Field(default=0.0, description="Seconds spent waiting for the model.")

    def add(self, response: Any, seconds: float) -> None:
        """Count one response."""
        usage = getattr(response, "usage", None)
        self.calls += 1
        self.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
        self.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
        self.latency_s += seconds


async def complete(
    model: str,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    *,
    seed: int,
    retries: int,
    usage: Usage,
    timeout: float = 120.0,
) -> dict[str, Any]:
    """One chat completion with tools; returns the assistant message as a plain dict."""
    litellm = _litellm()
    retriable = _retriable(litellm)
    delay = 0.05
    for attempt in range(retries + 1):
        start = time.perf_counter()
        try:
            # The harness's retry policy is the only one: the provider client must not
            # multiply it with retries of its own.
            response = await litellm.acompletion(
                model=model,
                messages=messages,
                tools=tools or None,
                seed=seed,
                temperature=0,
                max_retries=0,
                timeout=timeout,
            )
        except retriable as e:
            if attempt == retries:
                raise ModelCallFailed(f"{model}: {type(e).__name__}: {e}") from e
            await asyncio.sleep(delay)
            delay *= 4
            continue
        usage.add(response, time.perf_counter() - start)
        message = response.choices[0].message
        out: dict[str, Any] = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            out["tool_calls"] = [
                {
                    "id": tc.id,
                    "type": "function",
                    "function": {"name": tc.function.name, "arguments": tc.function.arguments},
                }
                for tc in message.tool_calls
            ]
        return out
    raise AssertionError("unreachable")
