"""Sending a model's calls to the endpoint the cycle spec (or the provider's base-URL variable)
gives it, with or without a key."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping

from benchmark.errors import BenchmarkError
from conditions import ModelEndpoint

KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}
"""Provider → the variables litellm reads its key from, for the providers whose clients refuse
to send a request without one (so a keyless server is sent ``NO_KEY``)."""
BASE_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai": ("OPENAI_API_BASE", "OPENAI_BASE_URL"),
    "anthropic": ("ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"),
    "gemini": ("GEMINI_API_BASE",),
}
"""Provider → the variables that move its requests to another server, in litellm's order."""
NO_KEY = "no-key"
"""The key sent to a server that needs none (llama.cpp and vLLM started without ``--api-key``
ignore it): the provider's client refuses to send a request with no key at all."""

_noted: set[tuple[str, str]] = set()


def keyless_base(
    model: str, endpoint: ModelEndpoint | None, environ: Mapping[str, str] | None = None
) -> str | None:
    """The base URL ``model``'s requests go to without a key: the spec's endpoint, or the
    provider's base-URL variable, when the endpoint names no key variable and the provider's
    usual key variable is not set. None: a key is set, the requests go to the provider's own
    service (which needs one), or the provider is not one of ``KEY_VARIABLES``."""
    env = os.environ if environ is None else environ
    provider = model.split("/", 1)[0]
    if provider not in KEY_VARIABLES or (endpoint is not None and endpoint.api_key_env):
        return None
    if any(env.get(name) for name in KEY_VARIABLES[provider]):
        return None
    if endpoint is not None:
        return endpoint.api_base
    return next((env[name] for name in BASE_VARIABLES[provider] if env.get(name)), None)


def note_keyless(model: str, base: str) -> None:
    """Say once per process, on stderr, that ``model``'s requests to ``base`` go without a key."""
    if (model, base) in _noted:
        return
    _noted.add((model, base))
    names = " or ".join(KEY_VARIABLES[model.split("/", 1)[0]])
    print(
        f"note: model {model} is served at {base} and no {names} is set: its requests go "
        "without a key, as a local server (llama.cpp, vLLM) takes them",
        file=sys.stderr,
        flush=True,
    )


def endpoint_kwargs(
    model: str, endpoint: ModelEndpoint | None, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The litellm keyword arguments that send ``model``'s calls to ``endpoint``: its
    ``api_base`` and, when it names a key variable, ``api_key`` from that variable; ``api_key``
    ``NO_KEY`` for a keyless server (:func:`keyless_base`). Empty otherwise (the provider's
    defaults). Raises BenchmarkError when the endpoint's key variable is not set."""
    env = os.environ if environ is None else environ
    kwargs = {} if endpoint is None else {"api_base": endpoint.api_base}
    if keyless_base(model, endpoint, env) is not None:
        kwargs["api_key"] = NO_KEY
    if endpoint is None or endpoint.api_key_env is None:
        return kwargs
    key = env.get(endpoint.api_key_env)
    if not key:
        raise BenchmarkError(
            f"model {model} is served at {endpoint.api_base}, whose key is read from "
            f"${endpoint.api_key_env}, which is not set",
            f"export {endpoint.api_key_env}=... where the trials run (on a Ray cluster, "
            "in the driver's environment: vwt forwards it to the workers)",
        )
    kwargs["api_key"] = key
    return kwargs


def require_endpoint_keys(models: Iterable[tuple[str, ModelEndpoint | None]]) -> list[str]:
    """Check every endpoint's key variable is set here; returns the variables' names (for
    forwarding to workers). Raises BenchmarkError naming the first that is not."""
    names = []
    for model, endpoint in models:
        endpoint_kwargs(model, endpoint)
        if endpoint is not None and endpoint.api_key_env is not None:
            names.append(endpoint.api_key_env)
    return sorted(set(names))
