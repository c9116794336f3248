"""Shared fixtures: a writable copy of a reference bundle, and cycles open for submissions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmark import default_cycle_spec_path
from conditions import Cycle, CycleSpec, CycleState
from submissions import reference_dir

OPEN_WINDOW = ("2020-01-01T00:00:00Z", "2999-01-01T00:00:00Z")
"""Submissions opened long ago and close far in the future."""
CLOSED_WINDOW = ("2020-01-01T00:00:00Z", "2020-02-01T00:00:00Z")
"""Submissions opened and closed long ago."""


def copy_reference(name: str, dest: Path) -> Path:
    """A copy of the reference submission ``name`` at ``dest``, to edit in a test."""
    shutil.copytree(reference_dir(name), dest)
    return dest


def spec_with(window: tuple[str, str] = OPEN_WINDOW, cycle: str | None = None) -> CycleSpec:
    """The embedded default spec with the submission ``window`` (and cycle id) replaced."""
    data = CycleSpec.load(default_cycle_spec_path()).model_dump(mode="json")
    data.update(opens_at=window[0], closes_at=window[1])
    if cycle is not None:
        data["cycle"] = cycle
    return CycleSpec.model_validate(data)


def open_cycle_at(home: Path, spec: CycleSpec, key_path: Path | None = None) -> Cycle:
    """A cycle of ``spec`` in ``home``, its targets committed and submissions open."""
    cycle = Cycle.init(home, spec, key_path=key_path)
    cycle.generate()
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open, "test opens submissions")
    return cycle


@pytest.fixture
def recipe_dir(tmp_path: Path) -> Path:
    """An editable copy of the prompt-recipe reference bundle."""
    return copy_reference("prompt-recipe", tmp_path / "recipe")


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    """An editable copy of the typed-skill reference bundle."""
    return copy_reference("typed-skill", tmp_path / "skill")


@pytest.fixture
def committed_cycle(tmp_path: Path) -> Cycle:
    """The default cycle, submissions window open now, its targets committed."""
    cycle = Cycle.init(tmp_path / "home", spec_with())
    cycle.generate()
    cycle.commit(public_seed=True)
    return cycle


@pytest.fixture
def open_cycle(committed_cycle: Cycle) -> Cycle:
    """The default cycle, open for submissions."""
    committed_cycle.transition(CycleState.open, "test opens submissions")
    return committed_cycle


@pytest.fixture
def closed_cycle(tmp_path: Path) -> Cycle:
    """A cycle in state open whose closes_at has passed."""
    return open_cycle_at(tmp_path / "closed", spec_with(CLOSED_WINDOW))
