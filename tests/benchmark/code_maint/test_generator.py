"""The code-maintenance generator: deterministic, disjoint splits, every kind in both
phrasings, a spread of difficulty (call sites and files), and projects whose target tests fail
before the reference patch and pass after it (run for real, in-process)."""

import ast
import itertools
from collections import Counter

import pytest

from benchmark import BenchmarkError
from benchmark.code_maint import CALL_KINDS, KINDS, CodeMaintenance
from benchmark.code_maint._backend import whole_names
from benchmark.code_maint._phrasings import PHRASINGS
from benchmark.code_maint._planted import targets

FAM = CodeMaintenance()
TASKS = FAM.tasks("sealed", 48, 3)


def test_the_same_seed_gives_the_same_tasks_and_another_seed_others() -> None:
    again = FAM.tasks("sealed", 48, 3)
    assert [t.model_dump_json() for t in again] == [t.model_dump_json() for t in TASKS]
    other = FAM.tasks("sealed", 48, 4)
    assert {t.instruction for t in other}.isdisjoint({t.instruction for t in TASKS})


def test_splits_share_no_id_and_no_request() -> None:
    splits = {s: FAM.tasks(s, 40, 9) for s in FAM.splits}
    for a, b in itertools.combinations(splits, 2):
        assert not {t.id for t in splits[a]} & {t.id for t in splits[b]}
        assert not {t.instruction for t in splits[a]} & {t.instruction for t in splits[b]}


def _phrasing(kind: str, instruction: str) -> int:
    body = instruction.split(": ", 1)[1]
    heads = [p.split("{number}: ", 1)[1].split("{")[0] for p in PHRASINGS[kind]]
    return next(i for i, head in enumerate(heads) if body.startswith(head))


def test_every_kind_comes_in_both_phrasings() -> None:
    assert set(PHRASINGS) == set(KINDS)
    for kind in KINDS:
        used = {_phrasing(kind, t.instruction) for t in TASKS if t.kind == kind}
        assert len(PHRASINGS[kind]) >= 2 and used == set(range(len(PHRASINGS[kind]))), kind


def _sites(task_files: dict[str, str], old: str) -> Counter[str]:
    return Counter(
        path
        for path, text in task_files.items()
        if path.endswith(".py") and not path.startswith("tests/")
        for _ in range(text.count(f"acmelib.{old}("))
    )


def test_call_site_tasks_spread_over_one_to_three_sites_in_one_or_two_files() -> None:
    shapes = set()
    for task in (t for t in TASKS if t.kind in CALL_KINDS):
        old = task.reference_calls[0].arguments["old"]
        sites = _sites(task.initial_state["files"], old)
        assert set(sites) == {c.arguments["path"] for c in task.reference_calls}
        shapes.add((sum(sites.values()), len(sites)))
    assert {n for n, _ in shapes} == {1, 2, 3}
    assert {f for _, f in shapes} == {1, 2}


def test_each_reference_edit_matches_exactly_the_occurrences_it_means() -> None:
    for task in TASKS:
        for call in task.reference_calls:
            args = call.arguments
            text = task.initial_state["files"][args["path"]]
            found = len(whole_names(args["old"]).findall(text))
            assert found >= 1 and (found > 1) == args["all_occurrences"], (task.id, args)
            if task.kind == "test_repair":
                assert found == 1


def test_projects_are_small_packages_with_a_test_per_function() -> None:
    for task in TASKS:
        files = task.initial_state["files"]
        modules = [
            p for p in files if p.endswith(".py") and "/" in p and not p.startswith("tests/")
        ]
        assert 3 <= len(modules) <= 6  # __init__, config and 2-4 modules
        assert files["requirements.txt"] == "acmelib==2.0\n"
        for path in modules:
            functions = [
                f.name for f in ast.parse(files[path]).body if isinstance(f, ast.FunctionDef)
            ]
            name = path.rsplit("/", 1)[1]
            if functions and name != "config.py":
                tests = files[f"tests/test_{name}"]
                assert all(f"def test_{f}(self):" in tests for f in functions)


@pytest.mark.parametrize("kind", KINDS)
def test_the_targets_fail_before_the_reference_and_everything_passes_after(kind: str) -> None:
    for task in [t for t in TASKS if t.kind == kind][:3]:
        before = FAM.end_state(task, ())
        after = FAM.end_state(task, task.reference_calls)
        wanted = {f"{p[:-3].replace('/', '.')}" for p, _ in targets(task)}
        failing = {t for t, o in before["tests"].items() if o["outcome"] != "pass"}
        assert failing and {t.rsplit(".", 2)[0] for t in failing} == wanted
        assert {t.rsplit(".", 1)[1] for t in failing} == {n for _, n in targets(task)}
        assert all(o["outcome"] == "pass" for o in after["tests"].values())
        assert set(after["tests"]) == set(before["tests"])
        assert after["build_errors"] == [] and after["crashed"] is None


def test_unknown_splits_and_indexes_are_refused() -> None:
    with pytest.raises(BenchmarkError):
        FAM.generate("nope", 0, 1)
    with pytest.raises(BenchmarkError):
        FAM.generate("dev", 10000, 1)
