"""The Anthropic Messages wire format (``POST /v1/messages``), as the API defines it: the
system prompt a top-level field, content blocks, ``tool_use``/``tool_result`` blocks paired by
id, ``max_tokens`` required, user and assistant turns alternating, the key in ``x-api-key`` and
the API version in ``anthropic-version``."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark.sim._answer import Answer
from benchmark.sim._http import Request
from benchmark.sim._wire import Decoded, Wire, WireError, invalid, text_of, tool_call


class _Block(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Text(_Block):
    type: Literal["text"]
    text: str


class _ToolUse(_Block):
    type: Literal["tool_use"]
    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    input: dict[str, Any]


class _ToolResult(_Block):
    type: Literal["tool_result"]
    tool_use_id: str = Field(min_length=1)
    content: str | list[_Text] = ""
    is_error: bool = False


_Content = Annotated[_Text | _ToolUse | _ToolResult, Field(discriminator="type")]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str | list[_Content]


class _Tool(BaseModel):
    model_config = ConfigDict(extra="allow")

    type: Literal["custom"] | None = None
    name: str = Field(min_length=1)
    description: str | None = None
    input_schema: dict[str, Any]


class MessagesRequest(BaseModel):
    """The fields of a Messages request a sim model reads (others are accepted and ignored)."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, description="The model: a sim model's name.")
    max_tokens: int = Field(ge=1, description="Required by the API; the sim's replies are short.")
    messages: list[_Message] = Field(min_length=1, description="Alternating turns, user first.")
    system: str | list[_Text] | None = Field(default=None, description="The system prompt.")
    tools: list[_Tool] | None = Field(default=None, description="Client tools offered.")


_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",
}
"""Anthropic error type of each status the server sends."""


def _alternate(messages: list[dict[str, Any]]) -> None:
    """Turns alternate, user first; each assistant turn's tool_use blocks are answered by
    tool_result blocks at the start of the next user turn, and by no others."""
    if messages[0]["role"] != "user":
        raise WireError(400, "messages: the first message must use the 'user' role")
    asked: set[str] = set()
    for i, m in enumerate(messages):
        if i and m["role"] == messages[i - 1]["role"]:
            raise WireError(400, f"messages.{i}: roles must alternate between user and assistant")
        blocks = m["content"] if isinstance(m["content"], list) else []
        if m["role"] == "assistant":
            if asked:
                raise WireError(400, f"messages.{i}: tool_use ids {sorted(asked)} have no result")
            asked = {b["id"] for b in blocks if b["type"] == "tool_use"}
            continue
        kinds = [b["type"] for b in blocks]
        results = {b["tool_use_id"] for b in blocks if b["type"] == "tool_result"}
        first_text = kinds.index("text") if "text" in kinds else len(kinds)
        if "tool_result" in kinds[first_text:]:
            raise WireError(400, f"messages.{i}: tool_result blocks must come first")
        if results != asked:
            raise WireError(
                400,
                f"messages.{i}: tool_result ids {sorted(results)} do not answer the tool_use ids "
                f"{sorted(asked)} of the message before",
            )
        asked = set()


def _chat(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages turns as chat-completions messages: a user turn's tool results become tool
    messages, an assistant turn's tool_use blocks its tool calls."""
    out: list[dict[str, Any]] = []
    for m in messages:
        content = m["content"]
        if isinstance(content, str):
            out.append({"role": m["role"], "content": content})
            continue
        if m["role"] == "assistant":
            calls = [
                tool_call(b["id"], b["name"], b["input"])
                for b in content
                if b["type"] == "tool_use"
            ]
            reply: dict[str, Any] = {"role": "assistant", "content": text_of(content) or None}
            out.append({**reply, "tool_calls": calls} if calls else reply)
            continue
        for b in content:
            if b["type"] == "tool_result":
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": b["tool_use_id"],
                        "content": text_of(b.get("content")),
                    }
                )
        if any(b["type"] == "text" for b in content):
            out.append({"role": "user", "content": text_of(content)})
    return out


class AnthropicMessages(Wire):
    """Anthropic Messages, what litellm's ``anthropic/`` adapter speaks."""

    name = "anthropic-messages"
    malformed: ClassVar[tuple[bytes, ...]] = (
        b'{"id": "msg_sim", "type": "message", "role": "assistant", "cont',
        b'{"type": "message", "content": "none"}',
    )

    def decode(self, request: Request, data: Any) -> Decoded:
        """The system field as a system message, then the turns; the API's headers checked."""
        if not request.headers.get("x-api-key"):
            raise WireError(401, "x-api-key header is required")
        if not request.headers.get("anthropic-version"):
            raise WireError(400, "anthropic-version header is required")
        try:
            MessagesRequest.model_validate(data)
        except ValidationError as e:
            raise invalid(e, "a Messages request") from None
        _alternate(data["messages"])
        system = text_of(data.get("system") or "")
        messages = [{"role": "system", "content": system}] if system else []
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t["name"],
                    "description": t.get("description") or "",
                    "parameters": t["input_schema"],
                },
            }
            for t in data.get("tools") or []
        ]
        return Decoded(data["model"], messages + _chat(data["messages"]), tools, None)

    def encode(self, reply: Answer, index: int) -> dict[str, Any]:
        """A ``message``: a text block (stop 'end_turn') or a tool_use block (stop 'tool_use')."""
        move = reply.move
        block: dict[str, Any] = {"type": "text", "text": move.text}
        if move.tool is not None:
            block = {
                "type": "tool_use",
                "id": f"toolu_{reply.call_id}",
                "name": move.tool,
                "input": move.arguments,
            }
        return {
            "id": f"msg_sim_{index}",
            "type": "message",
            "role": "assistant",
            "model": reply.model,
            "content": [block],
            "stop_reason": "end_turn" if move.tool is None else "tool_use",
            "stop_sequence": None,
            "usage": {
                "input_tokens": reply.prompt_tokens,
                "output_tokens": reply.completion_tokens,
            },
        }

    def error(self, status: int, message: str) -> dict[str, Any]:
        """``{"type": "error", "error": {type, message}}``."""
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}
