"""The model gateway: retries through litellm, then 'invalid' rather than a failure."""

import asyncio
from typing import Any

import litellm
import pytest
from litellm import CustomLLM

from benchmark import ModelCallFailed, Usage, complete


class _Flaky(CustomLLM):
    def __init__(self, failures: int) -> None:
        super().__init__()
        self.failures, self.calls = failures, 0

    async def acompletion(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.calls += 1
        if self.calls <= self.failures:
            raise litellm.exceptions.ServiceUnavailableError(
                message="overloaded", llm_provider="flaky", model="flaky/m"
            )
        return litellm.ModelResponse(
            choices=[{"message": {"role": "assistant", "content": "done"}}],
            usage={"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        )


@pytest.fixture
def flaky() -> Any:
    def register(failures: int) -> _Flaky:
        handler = _Flaky(failures)
        others = [e for e in litellm.custom_provider_map if e["provider"] != "flaky"]
        litellm.custom_provider_map = [*others, {"provider": "flaky", "custom_handler": handler}]
        return handler

    yield register
    litellm.custom_provider_map = [
        e for e in litellm.custom_provider_map if e["provider"] != "flaky"
    ]


def _complete(retries: int) -> tuple[dict[str, Any], Usage]:
    usage = Usage()
    msgs = [{"role": "user", "content": "hi"}]
    reply = asyncio.run(complete("flaky/m", msgs, [], seed=1, retries=retries, usage=usage))
    return reply, usage


def test_transient_errors_are_retried(flaky: Any) -> None:
    handler = flaky(2)
    reply, usage = _complete(retries=2)
    assert reply["content"] == "done" and handler.calls == 3 and usage.calls == 1


def test_persistent_errors_become_model_call_failed(flaky: Any) -> None:
    handler = flaky(10)
    with pytest.raises(ModelCallFailed, match="flaky/m"):
        _complete(retries=1)
    assert handler.calls == 2
