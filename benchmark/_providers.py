"""What litellm knows of providers, as small tables, so a model string is checked without
importing litellm (which takes seconds).

The tables were read from one litellm release (``litellm_providers.txt`` names it);
tests/benchmark/test_providers.py checks them against the litellm installed, so they cannot go
stale silently. Where a table has no answer — a provider it does not list while another litellm
is installed, or a provider without a credential entry — litellm itself is asked.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import sys
from importlib.metadata import PackageNotFoundError, version
from importlib.resources import files
from types import ModuleType

PROVIDERS_FILE = "litellm_providers.txt"
"""litellm's provider names, in package ``benchmark``: a comment line naming the litellm
release they come from, then the names separated by white space."""

CREDENTIALS: dict[str, tuple[tuple[str, ...], ...]] = {
    "openai": (("OPENAI_API_KEY",),),
    "anthropic": (("ANTHROPIC_API_KEY",),),
    "gemini": (("GEMINI_API_KEY", "GOOGLE_API_KEY"),),
    "mistral": (("MISTRAL_API_KEY",),),
    "groq": (("GROQ_API_KEY",),),
    "deepseek": (("DEEPSEEK_API_KEY",),),
    "xai": (("XAI_API_KEY",),),
    "cohere": (("COHERE_API_KEY",),),
    "together_ai": (("TOGETHERAI_API_KEY",),),
    "fireworks_ai": (("FIREWORKS_AI_API_KEY",),),
    "openrouter": (("OPENROUTER_API_KEY",),),
    "perplexity": (("PERPLEXITYAI_API_KEY",),),
    "deepinfra": (("DEEPINFRA_API_KEY",),),
    "cerebras": (("CEREBRAS_API_KEY",),),
    "ollama": (),
    "ollama_chat": (),
    "hosted_vllm": (),
    "vllm": (),
    "lm_studio": (),
    "llamafile": (),
}
"""Provider → the credential variables litellm requires of it: each group needs one of its
names set. Providers not listed are asked of litellm (``validate_environment``)."""

GUESSES: tuple[tuple[str, str], ...] = (
    (r"gpt-[45]|o[134](-|$)|chatgpt-", "openai"),
    (r"claude-(?!.*-v\d+:\d+$)", "anthropic"),  # not Bedrock's ids (…-v1:0)
)
"""(pattern on a bare model name, the provider litellm routes it to): a hint for a model
string written without its provider."""

_CREDENTIAL = re.compile(r"KEY|TOKEN|SECRET|PASSWORD")
"""Names of environment variables that hold credentials (not endpoints such as *_API_BASE,
which providers like ollama default)."""


@functools.cache
def provider_table() -> tuple[str, frozenset[str]]:
    """(the litellm release the table was read from, its provider names)."""
    text = (files("benchmark") / PROVIDERS_FILE).read_text()
    first, _, rest = text.partition("\n")
    return first.split()[2].rstrip(":"), frozenset(rest.split())


def _installed_litellm() -> str | None:
    try:
        return version("litellm")
    except PackageNotFoundError:
        return None


def _loaded_litellm() -> ModuleType:
    from benchmark._models import load_litellm  # seconds: only where the tables cannot answer

    return load_litellm()


def known_provider(provider: str) -> bool:
    """Whether litellm routes ``provider/…`` strings: in the table, or a custom provider
    registered with a litellm already imported; litellm is imported to ask only when another
    release than the table's is installed and the table does not list ``provider``."""
    release, names = provider_table()
    if provider in names:
        return True
    litellm = sys.modules.get("litellm")
    if litellm is None and _installed_litellm() not in (None, release):
        litellm = _loaded_litellm()
    if litellm is None:
        return False
    known = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    known |= {str(e.get("provider")) for e in litellm.custom_provider_map}
    return provider in known


def missing_credentials(provider: str, model: str) -> list[str]:
    """The credential variables ``model`` of ``provider`` needs and the environment lacks:
    from ``CREDENTIALS`` (one name per unmet group, alternatives joined by ' or '), else from
    litellm's ``validate_environment``."""
    if provider in CREDENTIALS:
        return [
            " or ".join(group)
            for group in CREDENTIALS[provider]
            if not any(os.environ.get(name) for name in group)
        ]
    litellm = _loaded_litellm()
    with contextlib.redirect_stdout(io.StringIO()):  # litellm prints banners on stdout
        missing = litellm.validate_environment(model=model).get("missing_keys") or []
    return [k for k in missing if _CREDENTIAL.search(k)]


def guess_provider(name: str) -> str | None:
    """The provider a bare model ``name`` belongs to, if ``GUESSES`` tells."""
    return next((p for pattern, p in GUESSES if re.match(pattern, name)), None)
