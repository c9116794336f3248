"""The provider tables against the litellm installed, and model checks that import no litellm."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import version
from typing import Any

import pytest

import benchmark._providers
from benchmark import BenchmarkError, check_model, load_litellm
from benchmark._providers import (
    CREDENTIALS,
    GUESSES,
    PROVIDERS_FILE,
    guess_provider,
    known_provider,
    missing_credentials,
    provider_table,
)

SAMPLE_MODELS = ("x", "gpt-4o-mini", "llama3")
"""Model names every credential entry is checked with (litellm's checks are by provider)."""


@pytest.fixture(scope="module")
def litellm() -> Any:
    return load_litellm()


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """An environment without any of the tabled credential variables."""
    for groups in CREDENTIALS.values():
        for group in groups:
            for name in group:
                monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_the_provider_table_is_litellms_provider_list(litellm: Any) -> None:
    release, names = provider_table()
    listed = {str(getattr(p, "value", p)) for p in litellm.provider_list}
    # providers this process registered (the sim's, the metered route's) are not litellm's own
    listed -= {str(e.get("provider")) for e in litellm.custom_provider_map}
    added, gone = sorted(listed - names), sorted(names - listed)
    assert not added and not gone, (
        f"rewrite benchmark/{PROVIDERS_FILE} from litellm {version('litellm')}'s provider_list: "
        f"it adds {added}, drops {gone}"
    )
    assert release == version("litellm"), f"benchmark/{PROVIDERS_FILE}: name litellm's release"


def _litellm_missing(litellm: Any, model: str) -> set[str]:
    missing = litellm.validate_environment(model=model).get("missing_keys") or []
    return {k for k in missing if re.search(r"KEY|TOKEN|SECRET|PASSWORD", k)}


@pytest.mark.parametrize("provider", sorted(CREDENTIALS))
def test_each_credential_entry_is_what_litellm_requires(
    litellm: Any, no_credentials: pytest.MonkeyPatch, provider: str
) -> None:
    groups = CREDENTIALS[provider]
    for name in SAMPLE_MODELS:
        model = f"{provider}/{name}"
        assert _litellm_missing(litellm, model) == {n for g in groups for n in g}
        assert missing_credentials(provider, model) == [" or ".join(g) for g in groups]
        for pick in range(max((len(g) for g in groups), default=0)):
            with no_credentials.context() as env:
                for group in groups:
                    env.setenv(group[min(pick, len(group) - 1)], "set")
                assert _litellm_missing(litellm, model) == set()
                assert missing_credentials(provider, model) == []


def test_a_provider_without_an_entry_is_asked_of_litellm(
    litellm: Any, no_credentials: pytest.MonkeyPatch
) -> None:
    assert "voyage" not in CREDENTIALS
    no_credentials.delenv("VOYAGE_API_KEY", raising=False)
    assert missing_credentials("voyage", "voyage/voyage-3") == ["VOYAGE_API_KEY"]
    no_credentials.setenv("VOYAGE_API_KEY", "set")
    assert missing_credentials("voyage", "voyage/voyage-3") == []


def test_each_guess_names_a_provider_litellm_routes_those_models_to(litellm: Any) -> None:
    bare = [m for m in litellm.model_cost if "/" not in m]
    for pattern, provider in GUESSES:
        matched = [m for m in bare if re.match(pattern, m)]
        assert matched, f"{pattern!r} matches no model litellm knows"
        for name in matched:
            routed = litellm.get_llm_provider(model=name)[1]
            assert routed == provider or f"{provider}/{name}" in litellm.model_cost, name
    assert guess_provider("gpt-4o-mini") == "openai" and guess_provider("acme-2") is None


def test_another_litellm_is_asked_about_a_provider_the_table_lacks(
    monkeypatch: pytest.MonkeyPatch, litellm: Any
) -> None:
    release, names = provider_table()
    monkeypatch.setattr(
        benchmark._providers, "provider_table", lambda: (release, names - {"openai"})
    )
    monkeypatch.delitem(sys.modules, "litellm")  # as in a process that has not imported it
    assert not known_provider("openai")  # the table's own release: the table decides
    monkeypatch.setattr(
        benchmark._providers, "provider_table", lambda: ("0.0.1", names - {"openai"})
    )
    assert known_provider("openai")  # another release: litellm says


CHECK = """
import sys
from benchmark import BenchmarkError, check_model
for model in sys.argv[1:]:
    try:
        check_model(model)
        print(model, "ok")
    except BenchmarkError as e:
        print(model, "refused:", e)
print("litellm imported" if "litellm" in sys.modules else "litellm not imported")
"""


def test_model_strings_are_checked_without_importing_litellm() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "GEMINI_API_KEY")}
    env |= {"GOOGLE_API_KEY": "set", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    models = ["acme/x", "gpt-4o", "openai/gpt-4o", "gemini/gemini-2.0-flash", "ollama/llama3"]
    done = subprocess.run(
        [sys.executable, "-c", CHECK, *models],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "acme/x refused: model 'acme/x': unknown provider 'acme'",
        "gpt-4o refused: model 'gpt-4o' has no provider prefix (did you mean openai/gpt-4o?)",
        "openai/gpt-4o refused: model 'openai/gpt-4o' needs the credential OPENAI_API_KEY, "
        "which is not set",
        "gemini/gemini-2.0-flash ok",
        "ollama/llama3 ok",
        "litellm not imported",
    ]


def test_either_of_two_alternative_credentials_will_do(no_credentials: pytest.MonkeyPatch) -> None:
    with pytest.raises(BenchmarkError) as err:
        check_model("gemini/gemini-2.0-flash")
    assert "needs the credential GEMINI_API_KEY or GOOGLE_API_KEY" in str(err.value)
    assert err.value.hint and err.value.hint.startswith("export GEMINI_API_KEY=")
    no_credentials.setenv("GOOGLE_API_KEY", "set")
    check_model("gemini/gemini-2.0-flash")
