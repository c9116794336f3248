"""Checking a litellm model string before anything runs: its provider and its credentials."""

from __future__ import annotations

from benchmark._endpoint import endpoint_kwargs
from benchmark._providers import guess_provider, known_provider, missing_credentials
from benchmark.errors import BenchmarkError
from benchmark.sim import PROVIDER as SIM_PROVIDER
from benchmark.sim import sim_model
from conditions import ModelEndpoint

HOW_TO_WRITE = (
    "write a model as <provider>/<name>, e.g. sim/acme-2 (offline) or openai/gpt-4o-mini; "
    "providers: https://docs.litellm.ai/docs/providers"
)


def check_model(model: str, endpoint: ModelEndpoint | None = None) -> None:
    """Raise BenchmarkError unless ``model`` names a known provider whose credentials are set.

    ``sim/<name>`` must be in the sim catalogue. Other strings need a ``<provider>/`` prefix
    litellm knows (its provider list or a registered custom provider) and the credential
    variables litellm requires of that provider set in the environment — or, when the spec's
    ``endpoint`` for the model names its own key variable, that one. Works offline, from
    tables of what litellm knows (``benchmark._providers``) without importing litellm, but for
    a provider those tables cannot answer for (then it takes seconds: call it outside any
    event loop).
    """
    provider, slash, name = model.partition("/")
    if provider == SIM_PROVIDER:
        sim_model(model)  # raises, naming the sim catalogue
        return
    if not slash or not provider:
        guess = guess_provider(model.strip()) if not slash else None
        also = f" (did you mean {guess}/{model}?)" if guess else ""
        raise BenchmarkError(f"model {model!r} has no provider prefix{also}", hint=HOW_TO_WRITE)
    if not name.strip():
        raise BenchmarkError(f"model {model!r} names no model after the provider", HOW_TO_WRITE)
    if not known_provider(provider):
        raise BenchmarkError(f"model {model!r}: unknown provider {provider!r}", hint=HOW_TO_WRITE)
    if endpoint is not None and endpoint.api_key_env is not None:
        endpoint_kwargs(model, endpoint)  # raises when its key variable is not set
        return
    credentials = missing_credentials(provider, model)
    if credentials:
        names = ", ".join(credentials)
        first = credentials[0].split(" or ")[0]
        raise BenchmarkError(
            f"model {model!r} needs the credential {names}, which is not set",
            hint=f"export {first}=<your {provider} key>, or use a sim model (sim/acme-2)",
        )
