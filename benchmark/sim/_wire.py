"""The OpenAI chat-completions wire format the sim HTTP server reads and writes."""

from __future__ import annotations

import json
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from benchmark.sim._answer import Answer
from benchmark.sim._catalogue import SIM_MODELS


class _Function(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    arguments: str


class _ToolCall(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    function: _Function


class _Message(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: str
    content: Any = None
    tool_calls: list[_ToolCall] | None = None


class _ToolFunction(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str
    parameters: dict[str, Any] = Field(default_factory=dict)


class _Tool(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: str = "function"
    function: _ToolFunction


class ChatRequest(BaseModel):
    """The fields of an OpenAI chat-completions request a sim model reads (others are ignored).

    Validation checks the shapes the policy relies on; the policy then reads the request's JSON.
    """

    model_config = ConfigDict(extra="allow")

    model: str = Field(description="Model name: 'acme-2' or 'sim/acme-2'.")
    messages: list[_Message] = Field(min_length=1, description="The conversation.")
    tools: list[_Tool] | None = Field(default=None, description="Tools offered.")
    seed: int | None = Field(default=None, description="Seed of the model's draws (default 0).")


def completion_body(reply: Answer, request_id: str) -> dict[str, Any]:
    """An OpenAI ``chat.completion`` object carrying ``reply``."""
    move = reply.move
    message: dict[str, Any] = {"role": "assistant", "content": move.text}
    if move.tool is not None:
        call = {"name": move.tool, "arguments": json.dumps(move.arguments)}
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": reply.call_id, "type": "function", "function": call}],
        }
    return {
        "id": request_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "stop" if move.tool is None else "tool_calls",
            }
        ],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        },
    }


def error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    """An OpenAI-style error object."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def models_body() -> dict[str, Any]:
    """The ``GET /v1/models`` list: every sim model, owned by its simulated provider."""
    return {
        "object": "list",
        "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": spec.provider}
            for name, spec in SIM_MODELS.items()
        ],
    }


MALFORMED_BODIES = (
    b'{"id": "chatcmpl-sim", "object": "chat.completion", "choi',
    b'{"object": "chat.completion", "choices": "none"}',
)
"""Bodies of injected malformed replies: cut-off JSON, and JSON that is not a completion."""
