"""Which provider API (wire format) a model's requests travel in: recorded with every trial,
so a provider change is visible as the change of message layout and tool-call format it is."""

from __future__ import annotations

SIM_IN_PROCESS = "sim-in-process"
"""``sim/<model>``: litellm's custom provider, in the calling process; no wire at all."""
OPENAI_CHAT = "openai-chat-completions"
"""OpenAI chat completions (OpenAI, vLLM, llama.cpp, LM Studio, …)."""

WIRE_FORMATS: dict[str, str] = {
    "sim": SIM_IN_PROCESS,
    "anthropic": "anthropic-messages",
    "gemini": "gemini-generate-content",
    **dict.fromkeys(
        ("openai", "hosted_vllm", "openai_like", "custom_openai", "lm_studio", "llamafile"),
        OPENAI_CHAT,
    ),
}
"""litellm provider → the wire format its adapter speaks, for the providers vwt's sim serves
and the OpenAI-compatible ones people point at local servers."""


def wire_format(model: str) -> str:
    """The wire format of litellm model string ``model`` (``<provider>/<name>``): from
    ``WIRE_FORMATS``, else ``litellm-<provider>`` (that provider's own litellm adapter)."""
    provider = model.split("/", 1)[0] if "/" in model else model
    return WIRE_FORMATS.get(provider, f"litellm-{provider}")
