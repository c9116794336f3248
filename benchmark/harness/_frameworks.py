"""The agent frameworks vwt runs as harnesses, each at two pinned releases: what their
``vwt.harnesses`` entry points name. ``scripts/frameworks/<id>.txt`` pins each environment."""

from __future__ import annotations

from benchmark.harness._framework import FrameworkHarness

_OPENAI_AGENTS = {"OPENAI_AGENTS_DISABLE_TRACING": "1"}
"""The SDK exports traces to OpenAI unless told not to (the driver turns tracing off too)."""
_PYDANTIC_AI = {"OTEL_SDK_DISABLED": "true"}
"""PydanticAI instruments with OpenTelemetry's API: no SDK is installed, and none may start."""

OPENAI_AGENTS_0_2_11 = FrameworkHarness(
    "openai-agents",
    "0.2.11",
    "run_openai_agents.py",
    "OpenAI Agents SDK; a tool result reaches the model as a whole MCP block",
    environment=_OPENAI_AGENTS,
)
OPENAI_AGENTS_0_8_4 = FrameworkHarness(
    "openai-agents",
    "0.8.4",
    "run_openai_agents.py",
    "OpenAI Agents SDK; a tool result reaches the model as text parts",
    environment=_OPENAI_AGENTS,
)
PYDANTIC_AI_0_3_7 = FrameworkHarness(
    "pydantic-ai",
    "0.3.7",
    "run_pydantic_ai.py",
    "PydanticAI, MCP servers as mcp_servers=; tool errors as retry prompts",
    distribution="pydantic-ai-slim",
    environment=_PYDANTIC_AI,
)
PYDANTIC_AI_1_0_18 = FrameworkHarness(
    "pydantic-ai",
    "1.0.18",
    "run_pydantic_ai.py",
    "PydanticAI 1.0, MCP servers as toolsets=; tool errors as retry prompts",
    distribution="pydantic-ai-slim",
    environment=_PYDANTIC_AI,
)
