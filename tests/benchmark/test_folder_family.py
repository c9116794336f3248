"""Task families written as folders: loading, validation (a malformed folder is refused with
one error naming the file and the field), the built-in verifier, pins and registration. No
server runs here (tests/benchmark/test_folder_sandbox.py runs them)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from benchmark import (
    FAMILIES,
    FOLDERS_ENV,
    BenchmarkError,
    FolderFamily,
    family,
    folders_to_hand_on,
    load_family_folder,
    use_family_folders,
)
from benchmark._folder_family import compare_files
from benchmark._registry import _FOLDERS
from conditions import CycleSpec, read_family_folder
from drift import ToolCall, folder_digest

EXAMPLE = Path(__file__).resolve().parents[2] / "benchmark" / "families" / "file_ops"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A copy of the example family, to change."""
    dest = tmp_path / "fam"
    shutil.copytree(EXAMPLE, dest)
    return dest


def _yaml(folder: Path) -> dict[str, Any]:
    return yaml.safe_load((folder / "family.yaml").read_text())


def _write_yaml(folder: Path, data: dict[str, Any]) -> None:
    (folder / "family.yaml").write_text(yaml.safe_dump(data, sort_keys=False))


def _lines(folder: Path, split: str = "dev") -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "tasks" / f"{split}.jsonl").read_text().splitlines()]


def _write_lines(folder: Path, lines: list[dict[str, Any]], split: str = "dev") -> None:
    (folder / "tasks" / f"{split}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def test_the_example_family_loads_with_its_splits_versions_and_pack() -> None:
    fam = load_family_folder(EXAMPLE)
    assert isinstance(fam, FolderFamily)
    assert (fam.id, fam.env_id) == ("file_ops", "files")
    assert fam.splits == ("dev", "sealed", "adapt", "examples")
    assert fam.examples_split == "examples"
    assert {s: fam.split_size(s) for s in fam.splits} == {
        "dev": 10,
        "sealed": 30,
        "adapt": 10,
        "examples": 5,
    }
    versions = fam.interface_versions()
    assert set(versions) == {"files@2025.7.1", "files@2026.8.31", "files@2026.8.31-rename"}
    old, new = (fam.base_tools_for(versions[v]) for v in ("files@2025.7.1", "files@2026.8.31"))
    assert "read_file" in old.names() and "read_text_file" not in old.names()
    assert "read_text_file" in new.names()  # the real release's rename
    assert fam.release_of(versions["files@2026.8.31-rename"]) == "files@2026.8.31"
    kinds = {t.kind for t in fam.tasks("dev", 10, 0)}
    assert kinds == {"write_note", "rename_file", "copy_file", "archive_file", "find_and_move"}
    pack = fam.sim_pack()
    assert pack is not None and pack.family == "file_ops"
    assert "read_file" in pack.remembered()  # models remember the base release


def test_public_splits_keep_file_order_and_sealed_ones_follow_the_cycle_seed() -> None:
    fam = load_family_folder(EXAMPLE)
    dev = [t.id for t in fam.tasks("dev", 10, 1)]
    assert dev == [t.id for t in fam.tasks("dev", 10, 2)]
    assert dev[0].endswith("/d01")
    one, two = ([t.id for t in fam.tasks("sealed", 30, s)] for s in (1, 2))
    assert sorted(one) == sorted(two) and one != two
    with pytest.raises(BenchmarkError, match="holds 10 tasks"):
        fam.tasks("dev", 11, 0)


def test_the_digest_is_the_shell_listing_of_the_folder() -> None:
    files = read_family_folder(EXAMPLE)
    listing = subprocess.run(
        "find . -type f -printf '%P\\0' | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum",
        shell=True,
        cwd=EXAMPLE,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[0]
    assert folder_digest(files) == listing == load_family_folder(EXAMPLE).digest


def test_loading_writes_nothing_and_a_changed_folder_breaks_its_pin(folder: Path) -> None:
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    fam = load_family_folder(folder)
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    load_family_folder(folder, pin=fam.digest)
    (folder / "state" / "README.md").write_text("changed\n")
    with pytest.raises(BenchmarkError, match="changed since the cycle spec pinned it"):
        load_family_folder(folder, pin=fam.digest)


def _break_yaml(key: str, value: Any) -> Any:
    def change(folder: Path) -> None:
        data = _yaml(folder)
        node = data
        *parents, last = key.split(".")
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        if value is _DELETE:
            del node[last]
        else:
            node[int(last) if isinstance(node, list) else last] = value
        _write_yaml(folder, data)

    return change


_DELETE = object()


def _break_line(field: str, value: Any, split: str = "dev", index: int = 0) -> Any:
    def change(folder: Path) -> None:
        lines = _lines(folder, split)
        if value is _DELETE:
            del lines[index][field]
        else:
            lines[index][field] = value
        _write_lines(folder, lines, split)

    return change


def _raw(rel: str, text: str) -> Any:
    def change(folder: Path) -> None:
        (folder / rel).write_text(text)

    return change


def _repeat_dev_in_sealed(folder: Path) -> None:
    sealed = _lines(folder, "sealed")
    sealed[0] = {**_lines(folder, "dev")[0], "id": "s99"}
    _write_lines(folder, sealed, "sealed")


def _link(folder: Path) -> None:
    os.symlink("/etc/passwd", folder / "state" / "passwd")


def _oversize(folder: Path) -> None:
    (folder / "state" / "big.bin").write_bytes(b"x" * (4 * 1024 * 1024 + 1))


def _no_family_yaml(folder: Path) -> None:
    (folder / "family.yaml").unlink()


MALFORMED = [
    ("no family.yaml", _no_family_yaml, "family.yaml", None),
    ("yaml syntax", _raw("family.yaml", "id: [unclosed\n"), "family.yaml", "does not parse"),
    ("unknown field", _break_yaml("surprise", 1), "family.yaml", "surprise"),
    ("bad id", _break_yaml("id", "File Ops"), "family.yaml", "id"),
    ("no version", _break_yaml("version", _DELETE), "family.yaml", "version"),
    (
        "release without tools",
        _break_yaml("environment.versions.0.tools", _DELETE),
        "family.yaml",
        "environment.versions.0",
    ),
    (
        "unknown placeholder",
        _break_yaml("environment.versions.0.server", ["node", "{home}/x.js"]),
        "family.yaml",
        "environment.versions.0.server",
    ),
    (
        "missing verifier script",
        _break_yaml("verifier.command", ["sh", "{family}/nowhere.sh"]),
        "family.yaml",
        "verifier.command",
    ),
    (
        "tools file missing",
        _break_yaml("environment.versions.1.tools", "tools/none.json"),
        "family.yaml",
        "environment.versions.1.tools",
    ),
    (
        "effect not a tool",
        _break_yaml("environment.effects", {"delete_file": ["path"]}),
        "family.yaml",
        "environment.effects.delete_file",
    ),
    (
        "ops that do not apply",
        _break_yaml(
            "environment.versions.2.ops", [{"op": "rename_tool", "tool": "nope", "new_name": "x"}]
        ),
        "family.yaml",
        "environment.versions.2.ops",
    ),
    (
        "task line not JSON",
        _raw("tasks/dev.jsonl", '{"id": "d01",\n'),
        "tasks/dev.jsonl line 1",
        None,
    ),
    ("no reference", _break_line("reference", _DELETE), "tasks/dev.jsonl line 1", "reference"),
    (
        "path escaping the state",
        _break_line("files", {"../../etc/passwd": "x"}),
        "tasks/dev.jsonl line 1",
        "files",
    ),
    (
        "absolute path",
        _break_line("expected", {"files": {"/etc/passwd": "x"}}, index=1),
        "tasks/dev.jsonl line 2",
        "expected.files",
    ),
    (
        "reference without effect",
        _break_line("reference", [{"name": "read_file", "arguments": {"path": "a"}}]),
        "tasks/dev.jsonl line 1",
        "reference.0.name",
    ),
    ("unknown task field", _break_line("answer", "x"), "tasks/dev.jsonl line 1", "answer"),
    ("duplicate id", _break_line("id", "d02"), "tasks/dev.jsonl line 2", "id"),
    ("splits overlap", _repeat_dev_in_sealed, "tasks/sealed.jsonl line 1", "instruction"),
    ("a link", _link, "state/passwd", None),
    ("oversize file", _oversize, "state/big.bin", None),
    (
        "bad pack regex",
        _raw(
            "sim-pack.yaml",
            "v: 1\nactions: {a: {words: {x: 3}}}\nkinds: [{name: k, cues: {}, "
            "slots: {s: {type: text, stated: '(['}}, steps: [{action: a, args: {}}]}]\n",
        ),
        "sim-pack.yaml",
        "kinds.0.slots.s.stated",
    ),
]


@pytest.mark.parametrize(
    ("change", "file", "field"),
    [pytest.param(c, f, fld, id=name) for name, c, f, fld in MALFORMED],
)
def test_a_malformed_folder_is_refused_naming_the_file_and_the_field(
    folder: Path, change: Any, file: str, field: str | None
) -> None:
    change(folder)
    with pytest.raises(BenchmarkError) as refused:
        load_family_folder(folder)
    message = str(refused.value)
    assert "\n" not in message
    assert f"{folder}" in message and file in message
    if field is not None:
        assert field in message
    assert refused.value.hint


def test_the_builtin_comparison_passes_the_asked_end_state_and_nothing_else() -> None:
    initial = {"files": {"a/x.md": "1", "b.md": "2"}, "dirs": []}
    asked = {"a/x.md": None, "c/x.md": "1"}
    good = {"files": {"b.md": "2", "c/x.md": "1"}, "dirs": ["a", "c"]}
    assert compare_files(initial, asked, [], good).passed
    copied = {"files": {"a/x.md": "1", "b.md": "2", "c/x.md": "1"}, "dirs": ["a", "c"]}
    assert compare_files(initial, asked, [], copied).reasons == ("files: a/x.md not asked for",)
    edited = {**good, "files": {"b.md": "2!", "c/x.md": "1"}}
    assert (
        "files: b.md differs from what was asked"
        in compare_files(initial, asked, [], edited).reasons
    )
    stray = {**good, "dirs": ["a", "c", "tmp"]}
    assert compare_files(initial, asked, [], stray).reasons == ("dirs: tmp not asked for",)
    assert compare_files(initial, {}, ["z"], initial).reasons == ("dirs: z missing",)


def test_a_task_without_expected_is_judged_by_its_verifier_verdict() -> None:
    fam = load_family_folder(EXAMPLE)
    note = next(t for t in fam.tasks("dev", 10, 0) if t.kind == "write_note")
    assert note.initial_state["check"]["check"]["path"]  # sent into the sandbox
    verdict = {"passed": False, "reasons": ["text: other text"]}
    assert fam.verify(note, {"files": {}, "verdict": verdict}).reasons == ("text: other text",)
    with pytest.raises(BenchmarkError, match="the verifier of task"):
        fam.verify(note, {"files": {}, "verifier_error": "printed no JSON verdict (exit 2)"})
    assert not fam.verify(note, {"problem": "more than 2000 files"}).passed


def test_effect_keys_name_the_declared_arguments() -> None:
    fam = load_family_folder(EXAMPLE)
    move = ToolCall(name="move_file", arguments={"source": "a", "destination": "b", "x": 1})
    assert fam.effect_key(move) == ("move_file", "a", "b")
    assert fam.effectful_tools == ("write_file", "move_file", "create_directory")


def test_folder_families_register_with_their_origin_and_are_handed_on(
    folder: Path, clean_registry: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    (fam,) = use_family_folders([folder])
    assert family("file_ops") is fam
    assert FAMILIES.origin("file_ops").folder == str(folder.resolve())
    handed = json.loads(folders_to_hand_on())
    assert handed[str(folder.resolve())] == fam.digest
    other = folder.parent / "other"
    shutil.copytree(folder, other)
    with pytest.raises(BenchmarkError, match="is taken by the family from folder"):
        use_family_folders([other])


def test_a_folder_family_cannot_take_a_builtin_id(folder: Path, clean_registry: Any) -> None:
    data = _yaml(folder)
    data["id"] = "support_ops"
    _write_yaml(folder, data)
    with pytest.raises(BenchmarkError, match=r"'support_ops' .* is taken"):
        use_family_folders([folder])


def test_a_spec_naming_a_folder_makes_its_family_known(
    folder: Path, tmp_path: Path, clean_registry: Any
) -> None:
    from benchmark import default_cycle_spec_path

    data = yaml.safe_load(default_cycle_spec_path().read_text())
    data["families"] = {
        "development": ["support_ops"],
        "held_out": ["reconciliation", "research_evidence"],
        "folders": [os.path.relpath(folder, tmp_path)],
    }
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text(yaml.safe_dump(data))
    spec = CycleSpec.load(spec_file)
    (pinned,) = spec.family_roles.folders
    assert pinned.path == str(folder.resolve())
    assert family("file_ops").digest == pinned.digest  # type: ignore[attr-defined]


def test_handed_folders_must_be_json(monkeypatch: pytest.MonkeyPatch, clean_registry: Any) -> None:
    monkeypatch.setenv(FOLDERS_ENV, "[1]")
    with pytest.raises(BenchmarkError, match=FOLDERS_ENV):
        family("no_such_family")


def test_a_handed_folder_is_in_the_sims_packs_before_its_family_is_asked_for() -> None:
    # a Ray worker's sim must know the same families whichever family's trial it runs first
    show = "import benchmark, benchmark.sim as s; print(sorted(p.family for p in s.packs()))"
    env = {k: v for k, v in os.environ.items() if k != FOLDERS_ENV}
    digest = load_family_folder(EXAMPLE).digest
    alone = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True)
    env[FOLDERS_ENV] = json.dumps({str(EXAMPLE.resolve()): digest})
    handed = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True)
    assert alone.returncode == handed.returncode == 0, alone.stderr + handed.stderr
    assert "file_ops" not in alone.stdout and "'support_ops'" in alone.stdout
    assert "'file_ops'" in handed.stdout


def test_a_cycle_pins_and_commits_its_folder_and_refuses_it_changed(
    folder: Path, tmp_path: Path, clean_registry: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import conditions._spec
    from benchmark import default_cycle_spec_path
    from conditions import Cycle

    data = yaml.safe_load(default_cycle_spec_path().read_text())
    data["seed"] = 7
    data["source"]["tool_interface"]["files"] = "files@2025.7.1"
    data["catalogue"]["tool_interfaces"]["files"] = ["files@2025.7.1", "files@2026.8.31"]
    data["catalogue"]["task_families"].append({"family": "file_ops", "split": "sealed"})
    data["catalogue"]["family_envs"]["file_ops"] = "files"
    data["families"]["held_out"].append("file_ops")
    spec_file = tmp_path / "spec.yaml"
    spec_file.write_text(yaml.safe_dump(data))
    spec = CycleSpec.load(spec_file).with_family_folders([folder])
    digest = load_family_folder(folder).digest
    cycle = Cycle.init(tmp_path / "home", spec)
    cycle.generate()
    commitment = json.loads(cycle.commit().read_text())
    assert commitment["commitment"]["families"]["folders"] == [digest]

    (folder / "tasks" / "sealed.jsonl").write_text(
        (folder / "tasks" / "sealed.jsonl").read_text().replace("Archive", "Archive now")
    )
    _FOLDERS.clear()  # a new process: only the cycle's record names the folder
    if "file_ops" in FAMILIES:
        del FAMILIES["file_ops"]
    conditions._spec._SPEC_FOLDERS.clear()
    Cycle.open(tmp_path / "home")
    with pytest.raises(BenchmarkError, match="changed since the cycle spec pinned it"):
        family("file_ops")


def test_a_commitment_without_folders_keeps_its_form() -> None:
    from conditions import CommittedFamilies

    plain = CommittedFamilies(development=["a"], held_out=["b"])
    assert plain.canonical() == b'{"development":["a"],"held_out":["b"]}'
    assert (
        b'"folders":["'
        in CommittedFamilies(development=["a"], held_out=[], folders=["0" * 64]).canonical()
    )
