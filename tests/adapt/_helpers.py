"""Shared fixtures for the adaptation tests: targets of the full embedded cycle, kits, a fake
writer."""

from __future__ import annotations

import time
from typing import Any

import litellm
from litellm import CustomLLM, ModelResponse
from litellm.types.utils import Usage

from adapt import AdaptationKit, Budget, MeteredGateway
from benchmark import full_cycle_spec_path, load_litellm
from conditions import Condition, CycleSpec

SPEC = CycleSpec.load(full_cycle_spec_path())
"""The embedded full cycle: every built-in family, and the file_ops folder family."""
FAMILY_OF_ENV = {"support-ops": "support_ops", "reconciliation": "reconciliation"}
FAMILY_OF_ENV["research"] = "research_evidence"
FAMILY_OF_ENV["repo"] = "code_maint"


def target(interface: str) -> Condition:
    """The full cycle's source with one environment's interface changed, on its family's
    tasks (e.g. 'support-ops@2-units')."""
    env = interface.split("@")[0]
    src = SPEC.source
    return src.model_copy(
        update={
            "tool_interface": {**src.tool_interface, env: interface},
            "task_family": src.task_family.model_copy(update={"family": FAMILY_OF_ENV[env]}),
        }
    )


def kit(interface: str, sample: int = 4, **kw: Any) -> AdaptationKit:
    """The adaptation kit of ``target(interface)`` in the full cycle (its code run in the
    local sandbox unless ``sandbox`` says otherwise: the tests run our own bundles)."""
    kw.setdefault("sandbox", "local")
    return AdaptationKit(target(interface), sample_seed=SPEC.seed, sample=sample, **kw)


def gateway(tokens: int = 200_000, calls: int = 400, seconds: float = 600) -> MeteredGateway:
    """A gateway with a budget (the default cycle's, unless told otherwise)."""
    return MeteredGateway(Budget(tokens=tokens, calls=calls, seconds=seconds))


class Writer(CustomLLM):
    """A fake model for the 'writer' provider: replies ``reply`` with ``usage`` tokens."""

    def __init__(self, reply: str, prompt: int = 100, completion: int = 50) -> None:
        super().__init__()
        self.reply, self.prompt_tokens, self.completion_tokens = reply, prompt, completion
        self.requests: list[list[dict[str, Any]]] = []

    def completion(self, model: str, messages: list[Any], *a: Any, **kw: Any) -> ModelResponse:
        self.requests.append([dict(m) for m in messages])
        response = ModelResponse(model=f"writer/{model}", created=int(time.time()))
        response.choices[0].message.content = self.reply
        response.usage = Usage(  # type: ignore[attr-defined]
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            total_tokens=self.prompt_tokens + self.completion_tokens,
        )
        return response

    async def acompletion(
        self, model: str, messages: list[Any], *a: Any, **kw: Any
    ) -> ModelResponse:
        return self.completion(model, messages, *a, **kw)


def install_writer(monkeypatch: Any, writer: Writer) -> str:
    """Register ``writer`` as litellm provider 'writer' for one test; returns its model."""
    load_litellm()
    entries = [e for e in litellm.custom_provider_map if e.get("provider") != "writer"]
    monkeypatch.setattr(
        litellm, "custom_provider_map", [*entries, {"provider": "writer", "custom_handler": writer}]
    )
    return "writer/w-1"
