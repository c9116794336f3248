"""One trial with PydanticAI (``pydantic-ai-slim``): an Agent with the trial's instructions as
its system prompt, its OpenAI chat model on vwt's loopback endpoint, its MCP client (streamable
HTTP) on the trial's tools.

Its API changed between the pinned releases, as users met it when upgrading: before 0.4 an MCP
server is given as ``mcp_servers=`` and run by ``agent.run_mcp_servers()``; from 0.4 it is a
toolset (``toolsets=``) the agent enters itself, and 1.0 names the chat model
``OpenAIChatModel``."""

from __future__ import annotations

import inspect
from typing import Any

import _driver
from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.exceptions import UnexpectedModelBehavior, UsageLimitExceeded
from pydantic_ai.mcp import MCPServerStreamableHTTP
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

try:
    from pydantic_ai.models.openai import OpenAIChatModel as ChatModel
except ImportError:  # before 1.0
    from pydantic_ai.models.openai import OpenAIModel as ChatModel


async def run(trial: dict[str, Any]) -> dict[str, Any]:
    """Run the agent once; how it ended."""
    timeout = trial["timeout_s"]
    # The gateway behind the endpoint retries; the client must not multiply its attempts.
    client = AsyncOpenAI(
        base_url=trial["model_url"], api_key=trial["token"], max_retries=0, timeout=timeout
    )
    model = ChatModel(trial["model_name"], provider=OpenAIProvider(openai_client=client))
    server = MCPServerStreamableHTTP(
        url=trial["mcp_url"],
        headers={"Authorization": f"Bearer {trial['token']}"},
        timeout=timeout,
        sse_read_timeout=timeout,
    )
    system = trial["instructions"]
    if "toolsets" in inspect.signature(Agent.__init__).parameters:
        agent = Agent(model, system_prompt=system, toolsets=[server])
        running: Any = agent
    else:
        agent = Agent(model, system_prompt=system, mcp_servers=[server])
        running = agent.run_mcp_servers()
    limits = UsageLimits(request_limit=trial["max_turns"])
    async with running:
        try:
            result = await agent.run(trial["input"], usage_limits=limits)
        except UsageLimitExceeded as e:
            return {"ended": "turn_limit", "detail": str(e)}
        except UnexpectedModelBehavior as e:
            return {"ended": "stopped", "detail": str(e)}
    return {"ended": "answered", "final": str(result.output or "")}


if __name__ == "__main__":
    _driver.main(run)
