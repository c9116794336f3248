"""What a harness returns for one trial: the transcript in vwt's trace form."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark._models import Usage

STOP_REPORT = "INTERFACE CHANGE:"
"""How the preamble asks a model to begin a reply that stops on a detected interface change."""


class AgentRun(BaseModel):
    """How one agent run went, before verification."""

    model_config = ConfigDict(extra="forbid")

    final: str = Field(default="", description="The agent's final message.")
    turns: int = Field(default=0, description="Model calls made.")
    tool_calls: int = Field(default=0, description="Tool calls made.")
    tool_errors: int = Field(default=0, description="Tool calls that returned an error.")
    hit_turn_limit: bool = Field(default=False, description="Cut off at max_turns.")
    safe_stop: str | None = Field(default=None, description="Why the run stopped safely.")
    invalid: str | None = Field(default=None, description="Infrastructure failure, if any.")
    notes: list[str] = Field(default_factory=list, description="What the skill runtime did.")
    usage: Usage = Field(default_factory=Usage, description="Model usage.")
    messages: list[dict[str, Any]] = Field(
        default_factory=list, description="The messages, as the model saw them."
    )
    mcp: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="The MCP exchange ({'request', 'result'}) behind each tool message that "
        "went over MCP, by tool call id.",
    )

    def trace(self) -> list[dict[str, Any]]:
        """The messages, each tool message that went over MCP with its exchange under
        ``mcp``: what a trial's stored trace holds."""
        out = []
        for m in self.messages:
            exchange = self.mcp.get(m.get("tool_call_id", "")) if m.get("role") == "tool" else None
            out.append({**m, "mcp": exchange} if exchange is not None else m)
        return out
