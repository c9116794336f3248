"""Sending a model's calls to the endpoint the cycle spec gives it."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from benchmark.errors import BenchmarkError
from conditions import ModelEndpoint


def endpoint_kwargs(
    model: str, endpoint: ModelEndpoint | None, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The litellm keyword arguments that send ``model``'s calls to ``endpoint``: its
    ``api_base`` and, when it names a key variable, ``api_key`` from that variable. Empty
    without an endpoint (the provider's defaults). Raises BenchmarkError when the variable is
    not set."""
    if endpoint is None:
        return {}
    kwargs = {"api_base": endpoint.api_base}
    if endpoint.api_key_env is not None:
        key = (os.environ if environ is None else environ).get(endpoint.api_key_env)
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
