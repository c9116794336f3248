"""Sim models in code maintenance through its knowledge pack, run through the real trial path
(litellm, harness, backend subprocess with real test runs, verifier, oracle): the pack reads
every instruction as its kind, a mid model solves a fair share, a model certain of every skill
solves every task, one that does not know the procedure fixes only the first file of a
two-file change unless a recipe names the step, the flipped default is critical for a model
that misses it only, and a recipe naming the new field right beats one naming it wrong."""

import pytest

from benchmark import Task, serve
from benchmark.code_maint import CALL_KINDS, ENV_ID, KINDS, CodeMaintenance, _generator, _phrasings
from benchmark.code_maint import interface_versions as versions
from benchmark.code_maint._sim_pack import PACK
from benchmark.harness import AgentArtifacts, Recipe
from benchmark.sim._intent import read_request
from submissions import reference_dir
from tests.benchmark.sim._experiment import run_arm, use_model

SOURCE = versions()[f"{ENV_ID}@1"]
SOURCE_TOOLS = serve(ENV_ID, SOURCE).tools
ONE_FILE = ("test_repair", "config_migrate")


@pytest.mark.parametrize("phrasings", ["PHRASINGS", "SECOND_PHRASINGS"])
def test_the_pack_reads_every_instruction_as_its_kind(
    phrasings: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the generator's phrasings and a second set written independently of them
    monkeypatch.setattr(_generator, "PHRASINGS", getattr(_phrasings, phrasings))
    assert {k.name for k in PACK.kinds} == set(KINDS)
    tools = {t.name: t.description for t in SOURCE_TOOLS.tools}
    for task in CodeMaintenance().tasks("sealed", 48, 13):
        read = read_request(task.instruction, True, 0.0, 0.0, tools)
        assert read is not None and read.kind.name == task.kind, task.instruction


def test_the_family_serves_its_pack(registered: CodeMaintenance) -> None:
    assert registered.sim_pack() is PACK
    assert PACK.family == registered.id


def test_a_mid_model_solves_a_fair_share_on_the_source_interface(
    registered: CodeMaintenance,
) -> None:
    arm = run_arm("acme-2", fam=registered, interface=SOURCE, tasks=24)
    assert {t.kind for t in arm.tasks} == set(KINDS)
    assert 0.5 <= arm.success <= 0.95, arm.outcomes
    assert arm.critical == 0


def _files(task: Task) -> int:
    return len({c.arguments.get("path") for c in task.reference_calls})


def test_a_model_certain_of_every_skill_solves_every_task(
    registered: CodeMaintenance, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = use_model(monkeypatch, "maint-certain")
    arm = run_arm(model, fam=registered, interface=SOURCE, tasks=16)
    assert any(_files(t) > 1 for t in arm.tasks)
    assert arm.success == 1.0, arm.outcomes


def test_every_call_site_is_fixed_only_by_a_model_that_knows_to_or_is_told(
    registered: CodeMaintenance, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = use_model(monkeypatch, "maint-first-only", know_procedure=0.0, follows=("numbered",))
    playbook = AgentArtifacts(
        recipes=(
            Recipe(
                name="every-site",
                text="1. Search for every call site; edit each file that has one with "
                "replace_in_file.\n",
            ),
        )
    )
    bare = run_arm(model, fam=registered, interface=SOURCE, tasks=24, kinds=CALL_KINDS)
    told = run_arm(
        model, fam=registered, interface=SOURCE, artifacts=playbook, tasks=24, kinds=CALL_KINDS
    )
    two = [i for i, t in enumerate(bare.tasks) if _files(t) > 1]
    assert two and all(bare.results[i].outcome.value == "failure" for i in two)
    verdicts = [bare.results[i].verifier for i in two]
    assert all(v is not None and "call_sites" in " ".join(v.reasons) for v in verdicts)
    assert sum(told.results[i].outcome.value == "success" for i in two) >= len(two) - 1


def test_the_flipped_default_is_critical_for_a_model_that_misses_it_only(
    registered: CodeMaintenance, monkeypatch: pytest.MonkeyPatch
) -> None:
    changed = versions()[f"{ENV_ID}@2-default"]
    misser = use_model(monkeypatch, "maint-misser", read_conventions=0.0, recover=0.0)
    reader = use_model(monkeypatch, "maint-reader")
    missed = run_arm(misser, fam=registered, interface=changed, tasks=8, kinds=CALL_KINDS)
    read = run_arm(reader, fam=registered, interface=changed, tasks=8, kinds=CALL_KINDS)
    several = [any(c.arguments["all_occurrences"] for c in t.reference_calls) for t in missed.tasks]
    assert any(several) and not all(several)
    assert [r.outcome.value == "critical" for r in missed.results] == several
    (op,) = changed.ops
    assert {f.operator for r in missed.results for f in r.critical} == {op.describe()}
    assert read.critical == 0, read.outcomes
    for many, m, r in zip(several, missed.results, read.results, strict=True):
        if not many:  # one occurrence per file: the first is all of them
            assert m.outcome == r.outcome


def _recipe(path_field: str) -> AgentArtifacts:
    text = (
        "1. Fix what a dependency upgrade broke with replace_in_file: "
        f"{path_field} is the file to edit, then old and new names as the changelog gives them."
    )
    return AgentArtifacts(recipes=(Recipe(name="dependency-updates", text=text),))


def test_a_recipe_naming_the_new_field_right_beats_one_naming_it_wrong(
    registered: CodeMaintenance, monkeypatch: pytest.MonkeyPatch
) -> None:
    renamed = versions()[f"{ENV_ID}@2-rename"]
    model = use_model(
        monkeypatch, "maint-rememberer", read_schema=0.0, recover=0.0, follows=("numbered",)
    )

    def arm(artifacts: AgentArtifacts) -> float:
        run = run_arm(
            model, fam=registered, interface=renamed, tasks=6, kinds=ONE_FILE, artifacts=artifacts
        )
        return run.success

    assert arm(AgentArtifacts()) == 0.0  # it sends the field it remembers: 'path'
    assert arm(_recipe("file_path")) == 1.0
    assert arm(_recipe("target_path")) == 0.0


def test_the_reference_recipe_written_at_repo_1_misleads_under_the_flipped_default(
    registered: CodeMaintenance, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The playbook says all_occurrences defaults to true; a model that reads the served
    description but does not notice the contradiction follows the playbook and leaves the
    flag out: critical where a file has several call sites. Without the playbook it reads
    'Defaults to false' and states the flag."""
    changed = versions()[f"{ENV_ID}@2-default"]
    model = use_model(monkeypatch, "maint-follower", follows=("numbered",))
    text = (reference_dir("prompt-recipe") / "dependency-updates.md").read_text()
    playbook = AgentArtifacts(recipes=(Recipe(name="dependency-updates", text=text),))
    alone = run_arm(model, fam=registered, interface=changed, tasks=8, kinds=CALL_KINDS)
    led = run_arm(
        model, fam=registered, interface=changed, tasks=8, kinds=CALL_KINDS, artifacts=playbook
    )
    several = [any(c.arguments["all_occurrences"] for c in t.reference_calls) for t in led.tasks]
    assert alone.critical == 0
    assert [r.outcome.value == "critical" for r in led.results] == several
