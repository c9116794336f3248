"""Shared fixtures: specs (the embedded default and a richer one) and cycles at given states."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from conditions import Cycle, CycleSpec, CycleState

DEFAULT_SPEC = Path(__file__).resolve().parent / "fixtures" / "cycle.yaml"


@pytest.fixture
def default_data() -> dict[str, Any]:
    """The pinned test spec (fixtures/cycle.yaml) as plain data, to edit in tests."""
    data: dict[str, Any] = yaml.safe_load(DEFAULT_SPEC.read_text())
    return data


@pytest.fixture
def default_spec() -> CycleSpec:
    """The pinned test spec (fixtures/cycle.yaml: 8 targets)."""
    return CycleSpec.load(DEFAULT_SPEC)


def rich_data(base: dict[str, Any]) -> dict[str, Any]:
    """The default spec with a wider catalogue: three providers, two families, two harnesses."""
    data = copy.deepcopy(base)
    data["catalogue"]["models"] += [
        {"model": "sim/orbit-3", "version": "3", "provider": "orbit"},
        {"model": "sim/nova-2", "version": "2", "provider": "nova"},
    ]
    data["catalogue"]["task_families"].append({"family": "billing", "split": "sealed"})
    data["catalogue"]["harnesses"].append("harness-v2")
    return data


@pytest.fixture
def rich_spec(default_data: dict[str, Any]) -> CycleSpec:
    """A spec whose catalogue realises every pair of axes."""
    return CycleSpec.model_validate(rich_data(default_data))


def record_run(cycle: Cycle, phase: str, *, expected: int = 4, **counts: int) -> None:
    """Append a ``run.<phase>`` accounting entry as the runner does (clean unless told)."""
    payload = {"phase": phase, "expected": expected, "valid": expected, "invalid": 0}
    payload |= {"missing": 0, "unexpected": 0} | counts
    cycle.ledger.append(f"run.{phase}", payload)


def advance_to(cycle: Cycle, state: CycleState) -> None:
    """Walk a committed cycle forward until ``state``: opening early if need be, recording
    a clean run of each phase the walk passes (as `vwt run` would) unless one is recorded.
    """
    while cycle.state != state:
        nxt = cycle.state.next()
        assert nxt is not None
        if nxt == CycleState.adaptation and cycle.ledger.last("run.frozen") is None:
            record_run(cycle, "frozen")
        cycle.transition(nxt, f"test moves to {nxt}", override_window=True)
    if state == CycleState.adapted_run and cycle.ledger.last("run.adapted") is None:
        record_run(cycle, "adapted")


@pytest.fixture
def committed(tmp_path: Path, default_spec: CycleSpec) -> Cycle:
    """A default cycle with its targets generated and committed."""
    cycle = Cycle.init(tmp_path / "home", default_spec)
    cycle.generate()
    cycle.commit(public_seed=True)
    return cycle


@pytest.fixture
def revealed(committed: Cycle) -> Cycle:
    """The committed default cycle after a full reveal."""
    advance_to(committed, CycleState.adapted_run)
    committed.reveal()
    return committed
