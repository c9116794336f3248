"""Checking a litellm model string before anything runs: its provider and its credentials."""

from __future__ import annotations

import contextlib
import io
import re
from typing import Any

from benchmark._endpoint import BASE_VARIABLES, endpoint_kwargs, keyless_base, note_keyless
from benchmark._models import load_litellm
from benchmark.errors import BenchmarkError
from benchmark.sim import PROVIDER as SIM_PROVIDER
from benchmark.sim import sim_model
from conditions import ModelEndpoint

HOW_TO_WRITE = (
    "write a model as <provider>/<name>, e.g. sim/acme-2 (offline) or openai/gpt-4o-mini; "
    "providers: https://docs.litellm.ai/docs/providers"
)

_CREDENTIAL = re.compile(r"KEY|TOKEN|SECRET|PASSWORD")
"""Names of environment variables that hold credentials (not endpoints such as *_API_BASE,
which providers like ollama default)."""


def check_model(model: str, endpoint: ModelEndpoint | None = None) -> None:
    """Raise BenchmarkError unless ``model`` names a known provider whose credentials are set.

    ``sim/<name>`` must be in the sim catalogue (no credentials, litellm not imported). Other
    strings need a ``<provider>/`` prefix litellm knows (its provider list or a registered
    custom provider) and every credential variable litellm's ``validate_environment`` names
    for the model set in the environment — or, when the spec's ``endpoint`` for the model
    names its own key variable, that one. A model sent to another server (the spec's endpoint
    or the provider's base-URL variable) without any key set is accepted with a note on
    stderr: local OpenAI-compatible servers need none. Works offline; imports litellm (seconds) for
    non-sim models, so call it outside any event loop.
    """
    provider, slash, name = model.partition("/")
    if provider == SIM_PROVIDER:
        sim_model(model)  # raises, naming the sim catalogue
        return
    if not slash or not provider:
        raise BenchmarkError(
            f"model {model!r} has no provider prefix{_guess(model)}", hint=HOW_TO_WRITE
        )
    if not name.strip():
        raise BenchmarkError(f"model {model!r} names no model after the provider", HOW_TO_WRITE)
    litellm = _litellm()
    known = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    known |= {str(e.get("provider")) for e in litellm.custom_provider_map}
    if provider not in known:
        raise BenchmarkError(f"model {model!r}: unknown provider {provider!r}", hint=HOW_TO_WRITE)
    if endpoint is not None and endpoint.api_key_env is not None:
        endpoint_kwargs(model, endpoint)  # raises when its key variable is not set
        return
    base = keyless_base(model, endpoint)
    if base is not None:  # a local server (llama.cpp, vLLM) needs no key
        note_keyless(model, base)
        return
    with contextlib.redirect_stdout(io.StringIO()):  # litellm prints banners on stdout
        missing = litellm.validate_environment(model=model).get("missing_keys") or []
    credentials = [k for k in missing if _CREDENTIAL.search(k)]
    if credentials:
        names = ", ".join(credentials)
        raise BenchmarkError(
            f"model {model!r} needs the credential {names}, which is not set",
            hint=f"export {credentials[0]}=<your {provider} key>{_local(provider)}, or use a "
            "sim model (sim/acme-2)",
        )


def _local(provider: str) -> str:
    """', or point OPENAI_API_BASE at a local server' where the provider can be moved."""
    names = BASE_VARIABLES.get(provider)
    return f", or point {names[0]} at a server that needs no key" if names else ""


def _litellm() -> Any:
    return load_litellm()  # banners off, the sim provider registered


def _guess(model: str) -> str:
    """' (did you mean …?)' when litellm can tell the provider of a bare model name."""
    if "/" in model or not model.strip():
        return ""
    litellm = _litellm()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            _, provider, _, _ = litellm.get_llm_provider(model=model)
    except litellm.BadRequestError:  # an unknown name
        return ""
    return f" (did you mean {provider}/{model}?)" if provider else ""
