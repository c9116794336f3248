"""One trial with the OpenAI Agents SDK (``openai-agents``): an Agent with the trial's
instructions, its chat-completions model on vwt's loopback endpoint, its MCP client (streamable
HTTP) on the trial's tools, run by Runner.run. Tracing is off: nothing leaves the machine."""

from __future__ import annotations

from typing import Any

import _driver
from agents import (
    Agent,
    MaxTurnsExceeded,
    ModelBehaviorError,
    OpenAIChatCompletionsModel,
    Runner,
    set_tracing_disabled,
)
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI


async def run(trial: dict[str, Any]) -> dict[str, Any]:
    """Run the agent once; how it ended."""
    set_tracing_disabled(True)
    timeout = trial["timeout_s"]
    # The gateway behind the endpoint retries; the client must not multiply its attempts.
    client = AsyncOpenAI(
        base_url=trial["model_url"], api_key=trial["token"], max_retries=0, timeout=timeout
    )
    model = OpenAIChatCompletionsModel(model=trial["model_name"], openai_client=client)
    params = {
        "url": trial["mcp_url"],
        "headers": {"Authorization": f"Bearer {trial['token']}"},
        "timeout": timeout,
        "sse_read_timeout": timeout,
    }
    server = MCPServerStreamableHttp(
        params=params,
        name="vwt",
        cache_tools_list=True,
        client_session_timeout_seconds=timeout,
    )
    async with server:
        agent = Agent(
            name="agent", instructions=trial["instructions"], model=model, mcp_servers=[server]
        )
        try:
            result = await Runner.run(agent, trial["input"], max_turns=trial["max_turns"])
        except MaxTurnsExceeded as e:
            return {"ended": "turn_limit", "detail": str(e)}
        except ModelBehaviorError as e:
            return {"ended": "stopped", "detail": str(e)}
    return {"ended": "answered", "final": str(result.final_output or "")}


if __name__ == "__main__":
    _driver.main(run)
