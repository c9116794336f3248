"""Checking a litellm model string before anything runs: its provider and its credentials."""

from __future__ import annotations

from benchmark._endpoint import BASE_VARIABLES, endpoint_kwargs, keyless_base, note_keyless
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
    ``endpoint`` for the model names its own key variable, that one. A model sent to another
    server (the spec's endpoint or the provider's base-URL variable) without any key set is
    accepted with a note on stderr: local OpenAI-compatible servers need none. Works offline,
    from tables of what litellm knows (``benchmark._providers``) without importing litellm,
    but for a provider those tables cannot answer for (then it takes seconds: call it outside
    any event loop).
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
    base = keyless_base(model, endpoint)
    if base is not None:  # a local server (llama.cpp, vLLM) needs no key
        note_keyless(model, base)
        return
    credentials = missing_credentials(provider, model)
    if credentials:
        names = ", ".join(credentials)
        first = credentials[0].split(" or ")[0]
        raise BenchmarkError(
            f"model {model!r} needs the credential {names}, which is not set",
            hint=f"export {first}=<your {provider} key>{_local(provider)}, or use a sim model "
            "(sim/acme-2)",
        )


def _local(provider: str) -> str:
    """', or point OPENAI_API_BASE at a local server' where the provider can be moved."""
    names = BASE_VARIABLES.get(provider)
    return f", or point {names[0]} at a server that needs no key" if names else ""
