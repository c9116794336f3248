"""A sim model's reply to one request, shared by the in-process provider and the HTTP server."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from benchmark.sim._catalogue import sim_model
from benchmark.sim._engine import Move, next_move


def approx_tokens(obj: Any) -> int:
    """Token estimate of ``obj`` as JSON: ~4 characters a token (sim usage is an estimate)."""
    return max(1, len(json.dumps(obj, default=str)) // 4)


@dataclass(frozen=True)
class Answer:
    """What a sim model replies, before any wire format: its move, call id and usage."""

    model: str
    move: Move
    call_id: str
    prompt_tokens: int
    completion_tokens: int


def answer(
    model: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]], seed: int
) -> Answer:
    """Sim model ``model``'s (``name`` or ``sim/name``) reply to ``messages`` and ``tools``."""
    spec = sim_model(model)
    move = next_move(spec, seed, messages, tools)
    out: Any = move.text if move.tool is None else {"name": move.tool, "arguments": move.arguments}
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    return Answer(
        model=spec.name,
        move=move,
        call_id=f"call_{turn}",
        prompt_tokens=approx_tokens([messages, tools]),
        completion_tokens=approx_tokens(out),
    )
