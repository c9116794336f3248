"""Shared fixtures: a writable copy of a reference bundle, and a cycle open for submissions."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmark import default_cycle_spec_path
from conditions import Cycle, CycleSpec, CycleState
from submissions import reference_dir


def copy_reference(name: str, dest: Path) -> Path:
    """A copy of the reference submission ``name`` at ``dest``, to edit in a test."""
    shutil.copytree(reference_dir(name), dest)
    return dest


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
    """The embedded default cycle with its targets committed (state committed)."""
    cycle = Cycle.init(tmp_path / "home", CycleSpec.load(default_cycle_spec_path()))
    cycle.generate()
    cycle.commit()
    return cycle


@pytest.fixture
def open_cycle(committed_cycle: Cycle) -> Cycle:
    """The default cycle, open for submissions."""
    committed_cycle.transition(CycleState.open, "test opens submissions")
    return committed_cycle
