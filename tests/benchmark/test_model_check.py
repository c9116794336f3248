"""check_model: provider prefixes, the sim catalogue and credentials, checked offline."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from benchmark import BenchmarkError, check_cycle_spec, check_model, default_cycle_spec_path
from benchmark._model_check import HOW_TO_WRITE
from conditions import CycleSpec


@pytest.mark.parametrize("model", ["sim/acme-2", "sim/orbit-3", "ollama/llama3", "hosted_vllm/x"])
def test_known_providers_without_required_credentials_pass(model: str) -> None:
    check_model(model)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("acme-2", "model 'acme-2' has no provider prefix"),
        ("gpt-4o-mini", "has no provider prefix (did you mean openai/gpt-4o-mini?)"),
        ("/acme-2", "model '/acme-2' has no provider prefix"),
        ("acme/acme-2", "model 'acme/acme-2': unknown provider 'acme'"),
        ("openai/", "model 'openai/' names no model after the provider"),
    ],
)
def test_strings_without_a_known_provider_say_how_to_write_one(model: str, message: str) -> None:
    with pytest.raises(BenchmarkError) as err:
        check_model(model)
    assert str(err.value) == message or message in str(err.value)
    assert err.value.hint == HOW_TO_WRITE
    assert "sim/acme-2" in HOW_TO_WRITE and "openai/gpt-4o-mini" in HOW_TO_WRITE


def test_an_unknown_sim_model_names_the_sim_catalogue() -> None:
    with pytest.raises(BenchmarkError, match="unknown sim model 'sim/acme-9'") as err:
        check_model("sim/acme-9")
    assert err.value.hint and "acme-2" in err.value.hint and "orbit-3" in err.value.hint


def test_a_missing_credential_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_BASE"):
        monkeypatch.delenv(name, raising=False)  # a base variable would make a keyless server
    with pytest.raises(BenchmarkError) as err:
        check_model("openai/gpt-4o-mini")
    assert str(err.value) == (
        "model 'openai/gpt-4o-mini' needs the credential OPENAI_API_KEY, which is not set"
    )
    assert err.value.hint and err.value.hint.startswith("export OPENAI_API_KEY=")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    check_model("openai/gpt-4o-mini")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(BenchmarkError, match="ANTHROPIC_API_KEY"):
        check_model("anthropic/claude-3-5-haiku-latest")
    assert capsys.readouterr().out == ""  # litellm's banners are kept off stdout


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("acme-2", "no provider prefix"),
        ("sim/zeta-1", "unknown sim model"),
        ("openai/gpt-4o-mini", "needs the credential OPENAI_API_KEY"),
    ],
)
def test_the_cycle_spec_check_checks_every_catalogue_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, model: str, message: str
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    data = yaml.safe_load(default_cycle_spec_path().read_text())
    data["catalogue"]["models"].append({"model": model, "version": "1", "provider": "p"})
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data))
    spec = CycleSpec.load(path)
    with pytest.raises(BenchmarkError, match=message):
        check_cycle_spec(spec)
