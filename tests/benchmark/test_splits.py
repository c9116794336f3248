"""Every built-in family's splits are disjoint: no task (id, or request with its answer) of one
split appears in another, for the public splits and the cycle-seeded ones alike."""

import itertools
import json

import pytest

from benchmark import FAMILIES, Family, Task


def _solved(task: Task) -> str:
    """A task's request with its answer."""
    calls = [c.model_dump_json() for c in task.reference_calls]
    return json.dumps([task.instruction, calls])


@pytest.mark.parametrize("fam", list(FAMILIES.values()), ids=list(FAMILIES))
@pytest.mark.parametrize("cycle_seed", [1, 20261201])
def test_the_splits_of_every_family_are_disjoint(fam: Family, cycle_seed: int) -> None:
    assert {"dev", "sealed", "adapt"} <= set(fam.splits)
    assert fam.examples_split in fam.splits
    tasks = {split: fam.tasks(split, 60, cycle_seed) for split in fam.splits}
    for split, drawn in tasks.items():
        assert len({t.id for t in drawn}) == 60, split
        assert all(t.split == split and t.family == fam.id for t in drawn)
    for a, b in itertools.combinations(fam.splits, 2):
        assert not {t.id for t in tasks[a]} & {t.id for t in tasks[b]}, (a, b)
        solved_a = {_solved(t) for t in tasks[a]}
        solved_b = {_solved(t) for t in tasks[b]}
        assert not solved_a & solved_b, (a, b)
