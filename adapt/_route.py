"""A litellm provider that routes a model through a metered gateway (imports litellm).

The harness calls ``litellm.acompletion`` itself; given the model string
``vwt-metered/<gateway id>/<model>`` that call lands here and is made through the gateway,
so a procedure's trials are metered and refused exactly like its direct calls.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any, Protocol

import litellm
from litellm import CustomLLM, ModelResponse


class MeteredGateway(Protocol):
    """What routing needs of a gateway (``adapt._meter.MeteredGateway`` is one): its calls."""

    def complete(self, model: str, messages: list[dict[str, Any]], **kw: Any) -> Any:
        """One metered completion."""

    async def acomplete(self, model: str, messages: list[dict[str, Any]], **kw: Any) -> Any:
        """One metered completion, async."""


PROVIDER = "vwt-metered"
_FORWARDED = ("tools", "seed", "temperature", "tool_choice", "max_tokens")
_GATEWAYS: weakref.WeakValueDictionary[str, MeteredGateway] = weakref.WeakValueDictionary()
_IDS = itertools.count(1)
_LOCK = threading.Lock()


def _split(model: str) -> tuple[MeteredGateway, str]:
    key, _, inner = model.partition("/")
    gateway = _GATEWAYS.get(key)
    if gateway is None or not inner:
        raise ValueError(f"no metered gateway {key!r} (it was finished or never made)")
    return gateway, inner


class _MeteredLLM(CustomLLM):
    def completion(
        self, model: str, messages: list[Any], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        gateway, inner = _split(model)
        params = kwargs.get("optional_params") or {}
        kw = {k: params[k] for k in _FORWARDED if params.get(k) is not None}
        response: ModelResponse = gateway.complete(inner, [dict(m) for m in messages], **kw)
        return response

    async def acompletion(
        self, model: str, messages: list[Any], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        gateway, inner = _split(model)
        params = kwargs.get("optional_params") or {}
        kw = {k: params[k] for k in _FORWARDED if params.get(k) is not None}
        response: ModelResponse = await gateway.acomplete(inner, [dict(m) for m in messages], **kw)
        return response


_HANDLER = _MeteredLLM()


def route(gateway: MeteredGateway, model: str) -> str:
    """A litellm model string whose calls go to ``model`` through ``gateway``."""
    with _LOCK:
        entries = [e for e in litellm.custom_provider_map if e.get("provider") != PROVIDER]
        litellm.custom_provider_map = [*entries, {"provider": PROVIDER, "custom_handler": _HANDLER}]
        key = next((k for k, g in _GATEWAYS.items() if g is gateway), None)
        if key is None:
            key = f"g{next(_IDS)}"
            _GATEWAYS[key] = gateway
    return f"{PROVIDER}/{key}/{model}"
