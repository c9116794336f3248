"""The ``sim`` provider, registered with litellm: every sim call runs litellm's real path."""

from __future__ import annotations

import json
import time
from typing import Any

import litellm
from litellm import CustomLLM, ModelResponse
from litellm.types.utils import ChatCompletionMessageToolCall, Function, Usage

from benchmark.sim._answer import answer
from benchmark.sim._catalogue import PROVIDER, SIM_MODELS

# no "Give Feedback / Get Help" or "Provider List" banners on stdout for failed calls
litellm.suppress_debug_info = True


class SimLLM(CustomLLM):
    """litellm handler for ``sim/<model>``: decides the next move from the request alone."""

    def completion(
        self, model: str, messages: list[Any], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        params = kwargs.get("optional_params") or {}
        seed = int(params.get("seed") or 0)
        tools = params.get("tools") or []
        reply = answer(model, [dict(m) for m in messages], tools, seed)
        move = reply.move
        response = ModelResponse(model=f"{PROVIDER}/{reply.model}", created=int(time.time()))
        message = response.choices[0].message
        if move.tool is None:
            message.content = move.text
            response.choices[0].finish_reason = "stop"
        else:
            message.content = None
            message.tool_calls = [
                ChatCompletionMessageToolCall(
                    id=reply.call_id,
                    type="function",
                    function=Function(name=move.tool, arguments=json.dumps(move.arguments)),
                )
            ]
            response.choices[0].finish_reason = "tool_calls"
        prompt, completion = reply.prompt_tokens, reply.completion_tokens
        response.usage = Usage(  # type: ignore[attr-defined]
            prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
        )
        return response

    async def acompletion(
        self, model: str, messages: list[Any], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        return self.completion(model, messages, *args, **kwargs)


_HANDLER = SimLLM()


WIRE_PROVIDERS = ("anthropic", "gemini")
"""litellm providers whose real adapters reach the sim server (``vwt sim serve``) as
``<provider>/<sim model>``; ``openai/<sim model>`` needs no entry (litellm asks nothing of an
OpenAI-compatible model's info)."""


def register() -> None:
    """Make ``sim/<model>`` strings resolvable by litellm (idempotent), at zero cost, and tell
    litellm what the sim models are as ``anthropic/…`` and ``gemini/…`` models (chat models
    with tools and system prompts, free): so its adapters lay requests out as for a current
    model of that provider (Gemini's ``systemInstruction``, not the system prompt folded into
    the first user turn as for a model it does not know)."""
    entries = [e for e in litellm.custom_provider_map if e.get("provider") != PROVIDER]
    litellm.custom_provider_map = [*entries, {"provider": PROVIDER, "custom_handler": _HANDLER}]
    free = {
        "mode": "chat",
        "input_cost_per_token": 0.0,
        "output_cost_per_token": 0.0,
        "cache_creation_input_token_cost": 0.0,
        "cache_read_input_token_cost": 0.0,
        "supports_function_calling": True,
    }
    info = {f"{PROVIDER}/{name}": {"litellm_provider": PROVIDER, **free} for name in SIM_MODELS}
    for provider in WIRE_PROVIDERS:
        info |= {
            f"{provider}/{name}": {
                "litellm_provider": provider,
                "supports_system_messages": True,
                "supports_tool_choice": True,
                **free,
            }
            for name in SIM_MODELS
        }
    litellm.register_model(info)
