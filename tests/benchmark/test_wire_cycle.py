"""benchmark/wire_cycle.yaml: the default cycle with its provider axis on the wire."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest

from benchmark import check_cycle_spec, default_cycle_spec_path, wire_format
from conditions import CycleSpec

WIRE = Path(str(files("benchmark") / "wire_cycle.yaml"))


def test_it_is_the_default_cycle_but_for_where_its_models_are_served(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    wire, default = CycleSpec.load(WIRE), CycleSpec.load(default_cycle_spec_path())
    renamed = {"sim/acme-2": "openai/acme-2", "sim/acme-3": "openai/acme-3"}
    renamed["sim/orbit-2"] = "anthropic/orbit-2"
    data = default.model_dump(mode="json")
    data["cycle"] = wire.cycle
    data["source"]["model"]["model"] = renamed[data["source"]["model"]["model"]]
    for m in data["catalogue"]["models"]:
        m["model"] = renamed[m["model"]]
    data["endpoints"] = wire.model_dump(mode="json")["endpoints"]
    assert wire.model_dump(mode="json") == data
    # the provider axis changes the wire format, each model's base is the sim server's
    by_provider = {m.provider: wire_format(m.model) for m in wire.catalogue.models}
    assert by_provider == {"acme": "openai-chat-completions", "orbit": "anthropic-messages"}
    assert {e.api_base.rsplit(":", 1)[1] for e in wire.endpoints.values()} == {"8765/v1", "8765"}
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    check_cycle_spec(wire)  # keyless endpoints are accepted, each with a note
    notes = capsys.readouterr().err
    assert all(f"note: model {m} " in notes for m in wire.endpoints)
