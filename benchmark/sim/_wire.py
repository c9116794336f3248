"""What every wire format the sim HTTP server speaks has in common: one API's requests decoded
into the engine's request, the engine's reply encoded back, errors in that API's shape."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import ValidationError

from benchmark.sim._answer import Answer
from benchmark.sim._http import Request

SEED_HEADER = "x-vwt-seed"
"""Header carrying the request seed where an API has no seed field (Anthropic Messages): the
gateway sends it there, and the sim reads it when the body names no seed. A real provider
ignores it."""


class WireError(Exception):
    """A request the API refuses: its HTTP ``status`` and a message for the error body."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Decoded:
    """A request as the sim engine reads it: chat-completions messages and function tools."""

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    seed: int | None


class Wire(ABC):
    """One provider API: its route's requests in, the sim's replies and errors out."""

    name: ClassVar[str]
    """The wire format's id, as trial records name it."""
    malformed: ClassVar[tuple[bytes, ...]]
    """Bodies of injected malformed replies: cut-off JSON, and JSON that is not a reply."""

    @abstractmethod
    def decode(self, request: Request, data: Any) -> Decoded:
        """The engine's request in ``request`` (its JSON body parsed as ``data``); raises
        WireError where the API would refuse it."""

    @abstractmethod
    def encode(self, reply: Answer, index: int) -> dict[str, Any]:
        """The API's response body carrying ``reply`` (request number ``index``)."""

    @abstractmethod
    def error(self, status: int, message: str) -> dict[str, Any]:
        """The API's error body for ``status``."""


def invalid(e: ValidationError, what: str) -> WireError:
    """A 400 naming the first field of ``e`` that is wrong (as providers' errors do)."""
    err = e.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return WireError(400, f"not {what}: {where}: {err['msg']}" if where else f"not {what}")


def text_of(value: Any) -> str:
    """The text of a content value: a string, or text blocks' texts joined by blank lines."""
    if isinstance(value, str):
        return value
    return "\n\n".join(str(b.get("text", "")) for b in value or [] if b.get("type") == "text")


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    """A chat-completions tool call."""
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
