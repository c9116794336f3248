"""The Gemini ``generateContent`` wire format (``POST /v1beta/models/{model}:generateContent``),
as the API defines it: ``contents`` of ``user`` and ``model`` turns made of ``parts``,
``functionCall``/``functionResponse`` parts (a response turn right after its call turn, one
response per call), ``systemInstruction``, ``tools[].functionDeclarations``, the key as
``?key=`` or ``x-goog-api-key``. Field names are accepted in both spellings of the API's JSON
(``functionCall`` and ``function_call``), as Google's servers accept them."""

from __future__ import annotations

import json
import re
from typing import Any, ClassVar, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from benchmark.sim._answer import Answer
from benchmark.sim._http import Request
from benchmark.sim._wire import Decoded, Wire, WireError, invalid, tool_call

PATH = re.compile(r"^/v1(?:beta)?/models/(?P<model>[^/:]+):generateContent$")
"""The route: the model is named in the path."""


def _either(camel: str, snake: str) -> Any:
    return Field(default=None, validation_alias=AliasChoices(camel, snake))


def _get(d: dict[str, Any], camel: str, snake: str) -> Any:
    return d[camel] if camel in d else d.get(snake)


class _Call(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    args: dict[str, Any] = Field(default_factory=dict)


class _Response(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    response: dict[str, Any]


class _Part(BaseModel):
    model_config = ConfigDict(extra="allow")

    text: str | None = None
    function_call: _Call | None = _either("functionCall", "function_call")
    function_response: _Response | None = _either("functionResponse", "function_response")


class _Content(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["user", "model"] = "user"
    parts: list[_Part] = Field(min_length=1)


class _Declaration(BaseModel):
    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    description: str | None = None
    parameters: dict[str, Any] | None = None


class _Tool(BaseModel):
    model_config = ConfigDict(extra="allow")

    function_declarations: list[_Declaration] | None = _either(
        "functionDeclarations", "function_declarations"
    )


class _Config(BaseModel):
    model_config = ConfigDict(extra="allow")

    seed: int | None = None


class GenerateContentRequest(BaseModel):
    """The fields of a generateContent request a sim model reads (others are ignored)."""

    model_config = ConfigDict(extra="allow")

    contents: list[_Content] = Field(min_length=1, description="The conversation.")
    system_instruction: _Content | None = _either("systemInstruction", "system_instruction")
    tools: list[_Tool] | None = Field(default=None, description="Function declarations offered.")
    generation_config: _Config | None = _either("generationConfig", "generation_config")


_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    413: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}
"""Google API status of each HTTP status the server sends."""


def _result(response: dict[str, Any]) -> str:
    """A functionResponse's ``response`` as the tool result text it came from: litellm wraps
    text as ``{"content": text}`` and sends a JSON object as the object itself."""
    if set(response) == {"content"} and isinstance(response["content"], str):
        return str(response["content"])
    return json.dumps(response)


def _texts(parts: list[dict[str, Any]]) -> str:
    return "\n\n".join(str(p["text"]) for p in parts if isinstance(p.get("text"), str))


def _responses(
    i: int, parts: list[dict[str, Any]], asked: list[tuple[str, str]]
) -> list[dict[str, Any]]:
    """The tool messages answering the call turn before: one functionResponse per call, each
    paired by id where it names one, else by position, and with the call's function name."""
    given = [_get(p, "functionResponse", "function_response") for p in parts]
    given = [g for g in given if g is not None]
    if len(given) != len(asked):
        raise WireError(
            400,
            f"contents[{i}]: the number of function response parts ({len(given)}) must equal "
            f"the number of function call parts of the function call turn ({len(asked)})",
        )
    ids = {call_id for call_id, _ in asked}
    out = []
    for j, g in enumerate(given):
        call_id, name = next((a for a in asked if a[0] == g.get("id")), asked[j])
        if g.get("id") not in (None, *ids) or g["name"] != name:
            raise WireError(400, f"contents[{i}]: function response {g['name']!r} answers no call")
        out.append({"role": "tool", "tool_call_id": call_id, "content": _result(g["response"])})
    return out


def _chat(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Contents as chat-completions messages: a model turn's functionCall parts its tool
    calls, the next user turn's functionResponse parts the tool messages."""
    out: list[dict[str, Any]] = []
    asked: list[tuple[str, str]] = []
    for i, c in enumerate(contents):
        parts = c["parts"]
        if c.get("role") == "model":
            if asked:
                raise WireError(
                    400,
                    f"contents[{i}]: a function call turn must be followed by "
                    "a function response turn",
                )
            calls = [f for p in parts if (f := _get(p, "functionCall", "function_call"))]
            asked = [(f.get("id") or f"call_{i}_{j}", f["name"]) for j, f in enumerate(calls)]
            named = [
                tool_call(call_id, name, f.get("args") or {})
                for (call_id, name), f in zip(asked, calls, strict=True)
            ]
            reply: dict[str, Any] = {"role": "assistant", "content": _texts(parts) or None}
            out.append({**reply, "tool_calls": named} if named else reply)
            continue
        if asked or any(_get(p, "functionResponse", "function_response") for p in parts):
            out += _responses(i, parts, asked)
        asked = []
        if _texts(parts):
            out.append({"role": "user", "content": _texts(parts)})
    return out


class GeminiGenerateContent(Wire):
    """Gemini generateContent, what litellm's ``gemini/`` adapter speaks."""

    name = "gemini-generate-content"
    malformed: ClassVar[tuple[bytes, ...]] = (
        b'{"candidates": [{"content": {"role": "model", "par',
        b'{"candidates": "none"}',
    )

    def decode(self, request: Request, data: Any) -> Decoded:
        """The system instruction as a system message, then the turns; the key required."""
        if not (request.query.get("key") or request.headers.get("x-goog-api-key")):
            raise WireError(
                403,
                "Method doesn't allow unregistered callers: send an API key (?key= or "
                "x-goog-api-key)",
            )
        match = PATH.match(request.path)
        if match is None:
            raise WireError(404, f"no model in {request.path}")
        try:
            parsed = GenerateContentRequest.model_validate(data)
        except ValidationError as e:
            raise invalid(e, "a generateContent request") from None
        instruction = _get(data, "systemInstruction", "system_instruction")
        system = _texts(instruction["parts"]) if instruction else ""
        tools = [
            {
                "type": "function",
                "function": {
                    "name": d["name"],
                    "description": d.get("description") or "",
                    "parameters": d.get("parameters") or {"type": "object", "properties": {}},
                },
            }
            for t in data.get("tools") or []
            for d in _get(t, "functionDeclarations", "function_declarations") or []
        ]
        messages = [{"role": "system", "content": system}] if system else []
        config = parsed.generation_config
        seed = config.seed if config is not None else None
        return Decoded(match["model"], messages + _chat(data["contents"]), tools, seed)

    def encode(self, reply: Answer, index: int) -> dict[str, Any]:
        """A response with one candidate: a text part or a functionCall part (with its id)."""
        move = reply.move
        part: dict[str, Any] = {"text": move.text}
        if move.tool is not None:
            part = {
                "functionCall": {"id": reply.call_id, "name": move.tool, "args": move.arguments}
            }
        prompt, completion = reply.prompt_tokens, reply.completion_tokens
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": prompt,
                "candidatesTokenCount": completion,
                "totalTokenCount": prompt + completion,
            },
            "modelVersion": reply.model,
            "responseId": f"sim-{index}",
        }

    def error(self, status: int, message: str) -> dict[str, Any]:
        """``{"error": {code, message, status}}``."""
        return {
            "error": {
                "code": status,
                "message": message,
                "status": _STATUSES.get(status, "INTERNAL"),
            }
        }
