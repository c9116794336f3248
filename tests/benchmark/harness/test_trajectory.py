"""Retrieval of the closest episode, and how the harness shows it."""

import pytest
from pydantic import ValidationError

from benchmark import family
from benchmark.harness import TrajectorySet, retrieve
from benchmark.harness._trajectory import render_episode
from submissions import reference_dir

MEMORY = TrajectorySet.model_validate_json(
    (reference_dir("retrieved-trajectories") / "episodes.json").read_text()
)
KIND_WORDS = {
    "duplicate_charge": ("twice", "identical"),
    "damaged_item": ("damaged", "broken"),
    "late_delivery": ("late",),
    "damaged_by_email": ("email", "customer"),
}


def test_retrieval_finds_an_episode_of_the_same_kind_for_most_tasks() -> None:
    tasks = [t for t in family("support_ops").tasks("sealed", 100, 5) if t.kind in KIND_WORDS]
    same = 0
    for t in tasks:
        episode = retrieve(MEMORY, t.instruction)
        same += any(w in episode.instruction.lower() for w in KIND_WORDS[t.kind])
    assert len(tasks) == 40
    assert same >= 30  # word overlap is a decent, imperfect retriever


def test_retrieval_is_deterministic_and_rendered_as_structured_text() -> None:
    instruction = family("support_ops").tasks("sealed", 1, 5)[0].instruction
    first = retrieve(MEMORY, instruction)
    assert retrieve(MEMORY, instruction) == first
    text = render_episode(MEMORY, first)
    assert text.startswith('<trajectory memory="support-ops-episodes">') and '"calls"' in text


def test_an_empty_memory_is_refused() -> None:
    with pytest.raises(ValidationError, match="at least 1"):
        TrajectorySet(name="m", episodes=())
