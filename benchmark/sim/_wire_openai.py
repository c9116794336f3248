"""The OpenAI chat-completions wire format (``POST /v1/chat/completions``)."""

from __future__ import annotations

import time
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark.sim._answer import Answer
from benchmark.sim._catalogue import PROVIDER, SIM_MODELS
from benchmark.sim._http import Request
from benchmark.sim._wire import Decoded, Wire, invalid, tool_call


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


_ERROR_KINDS = {
    400: ("invalid_request_error", "invalid_request"),
    401: ("authentication_error", "invalid_api_key"),
    403: ("permission_error", "permission_denied"),
    404: ("invalid_request_error", "model_not_found"),
    413: ("invalid_request_error", "request_too_large"),
    429: ("rate_limit_exceeded", "rate_limit_exceeded"),
    500: ("server_error", "server_error"),
    503: ("service_unavailable", "service_unavailable"),
}
"""OpenAI error (type, code) of each status the server sends."""


class OpenAIChat(Wire):
    """OpenAI chat completions: what OpenAI, vLLM, llama.cpp and litellm's ``openai/`` speak."""

    name = "openai-chat-completions"
    malformed: ClassVar[tuple[bytes, ...]] = (
        b'{"id": "chatcmpl-sim", "object": "chat.completion", "choi',
        b'{"object": "chat.completion", "choices": "none"}',
    )

    def decode(self, request: Request, data: Any) -> Decoded:
        """The request as it is: chat completions is the engine's own form."""
        try:
            chat = ChatRequest.model_validate(data)
        except ValidationError as e:
            raise invalid(e, "a chat-completions request") from None
        return Decoded(
            model=chat.model.removeprefix(f"{PROVIDER}/"),
            messages=data["messages"],
            tools=data.get("tools") or [],
            seed=chat.seed,
        )

    def encode(self, reply: Answer, index: int) -> dict[str, Any]:
        """A ``chat.completion`` object: content, or one tool call (finish 'tool_calls')."""
        move = reply.move
        message: dict[str, Any] = {"role": "assistant", "content": move.text}
        if move.tool is not None:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [tool_call(reply.call_id, move.tool, move.arguments)],
            }
        return {
            "id": f"chatcmpl-sim-{index}",
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

    def error(self, status: int, message: str) -> dict[str, Any]:
        """``{"error": {message, type, param, code}}``."""
        kind, code = _ERROR_KINDS.get(status, ("server_error", "server_error"))
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
